import { Amplify } from 'aws-amplify';

export interface RuntimeConfig {
  apiUrl: string;
  wsUrl: string;
  cognito: { region: string; endpoint?: string; userPoolId: string; userPoolClientId: string };
}

let current: RuntimeConfig | null = null;

/** Runtime settings come from /config.json so the same build runs locally and in every AWS stage. */
export async function loadConfig(): Promise<RuntimeConfig> {
  const res = await fetch('/config.json', { cache: 'no-store' });
  if (!res.ok) throw new Error(`config.json: ${res.status}`);
  const cfg = (await res.json()) as RuntimeConfig;
  cfg.apiUrl = cfg.apiUrl.replace(/\/+$/, '');
  Amplify.configure({
    Auth: {
      Cognito: {
        userPoolId: cfg.cognito.userPoolId,
        userPoolClientId: cfg.cognito.userPoolClientId,
        ...(cfg.cognito.endpoint ? { userPoolEndpoint: cfg.cognito.endpoint } : {}),
        loginWith: { email: true },
      },
    },
  });
  current = cfg;
  return cfg;
}

export function config(): RuntimeConfig {
  if (!current) throw new Error('config not loaded');
  return current;
}
