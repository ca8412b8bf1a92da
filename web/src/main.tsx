import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '@aws-amplify/ui-react/styles.css';
import './styles.css';
import './i18n';
import { loadConfig } from './config';
import App from './App';

const root = createRoot(document.getElementById('root')!);
loadConfig()
  .then(() =>
    root.render(
      <StrictMode>
        <App />
      </StrictMode>,
    ),
  )
  .catch((e: unknown) => {
    // Without its runtime settings the console cannot reach anything: say so plainly.
    const p = document.createElement('p');
    p.className = 'fatal';
    p.textContent = `Balcão: ${String(e)}`;
    document.getElementById('root')!.replaceChildren(p);
  });
