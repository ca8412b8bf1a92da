import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The API and Cognito addresses come from /config.json at runtime, so one build serves every stage.
export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist', sourcemap: true, chunkSizeWarningLimit: 1500 },
  server: { port: 5173 },
});
