import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '@aws-amplify/ui-react/styles.css';
import './styles.css';
import { i18nReady } from './i18n';
import { loadConfig } from './config';
import App from './App';

const root = createRoot(document.getElementById('root')!);
// A language catalogue that fails to load falls back to Portuguese rather than blocking the console.
Promise.all([loadConfig(), i18nReady.catch(() => {})])
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
