import fs from 'node:fs';
import path from 'node:path';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

/**
 * `npm run dev -w web` against a running `npm start`: answer /config.json from the stack's
 * .local/endpoints.json (the built console gets the same file from the stack or the cloud web stack).
 */
function localConfig(): Plugin {
  const file = path.resolve(import.meta.dirname, '../.local/endpoints.json');
  return {
    name: 'balcao-local-config',
    configureServer(server) {
      server.middlewares.use('/config.json', (_req, res) => {
        if (!fs.existsSync(file)) {
          res.statusCode = 404;
          res.end('run `npm start` first: .local/endpoints.json is missing');
          return;
        }
        const e = JSON.parse(fs.readFileSync(file, 'utf8'));
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ apiUrl: e.apiUrl, wsUrl: e.wsUrl, cognito: e.cognito }));
      });
    },
  };
}

// The API and Cognito addresses come from /config.json at runtime, so one build serves every stage.
export default defineConfig({
  plugins: [react(), localConfig()],
  build: { outDir: 'dist', sourcemap: true, chunkSizeWarningLimit: 1500 },
  server: { port: 5173 },
});
