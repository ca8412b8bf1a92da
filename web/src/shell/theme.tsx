import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { ThemeProvider, createTheme, defaultDarkModeOverride, type ColorMode } from '@aws-amplify/ui-react';

type Mode = 'light' | 'dark';
const ModeContext = createContext<{ mode: Mode; toggle: () => void }>({ mode: 'light', toggle: () => {} });
export const useColorMode = () => useContext(ModeContext);

const theme = createTheme({
  name: 'balcao',
  overrides: [defaultDarkModeOverride],
  tokens: {
    colors: {
      brand: {
        primary: {
          10: '#e6f4f1',
          20: '#c0e4dc',
          40: '#5fb9a6',
          60: '#1f8f78',
          80: '#0f6e5c',
          90: '#0b5446',
          100: '#073b31',
        },
      },
    },
  },
});

function initialMode(): Mode {
  const saved = localStorage.getItem('preferredTheme');
  if (saved === 'light' || saved === 'dark') return saved;
  return window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

/** Light/dark kept as preferredTheme; nothing saved follows the system preference (spec 003 §4). */
export function ColorModeProvider({ children }: { children: ReactNode }) {
  const [mode, setMode] = useState<Mode>(initialMode);
  useEffect(() => {
    document.documentElement.dataset.theme = mode;
  }, [mode]);
  const toggle = () =>
    setMode((m) => {
      const next = m === 'light' ? 'dark' : 'light';
      localStorage.setItem('preferredTheme', next);
      return next;
    });
  return (
    <ModeContext.Provider value={{ mode, toggle }}>
      <ThemeProvider theme={theme} colorMode={mode as ColorMode}>
        {children}
      </ThemeProvider>
    </ModeContext.Provider>
  );
}
