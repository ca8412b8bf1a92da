import fs from 'node:fs';
import path from 'node:path';
import { defineConfig, type Plugin, type UserConfig } from 'vite';
import { RolldownMagicString } from 'rolldown';
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

type Node = { type: string; start: number; end: number; [k: string]: unknown };

/** Whether evaluating `node` calls zod (`z.…(…)`), not counting function bodies (they run later). */
function callsZod(node: unknown): boolean {
  if (!node || typeof node !== 'object') return false;
  if (Array.isArray(node)) return node.some(callsZod);
  const n = node as Node;
  if (n.type === 'ArrowFunctionExpression' || n.type === 'FunctionExpression') return false;
  if (n.type === 'CallExpression') {
    let callee = n.callee as Node;
    while (callee.type === 'MemberExpression' || callee.type === 'CallExpression')
      callee = (callee.type === 'MemberExpression' ? callee.object : callee.callee) as Node;
    if (callee.type === 'Identifier' && callee.name === 'z') return true;
  }
  return Object.entries(n).some(([k, v]) => k !== 'type' && typeof v === 'object' && callsZod(v));
}

/**
 * @balcao/shared declares its zod schemas at module top level (`export const x = z.object(…)`).
 * Bundlers must keep such calls even when nothing reads `x`, and they keep whole modules, so the
 * first load got every schema of a module it took one constant from (whatsapp.ts: ALERT_STATUSES),
 * and zod with them. Each such initialiser becomes a pure IIFE (same value, same evaluation order
 * when used), which the bundler drops when unused. Building a schema has no other effect.
 */
function pureSharedSchemas(): Plugin {
  return {
    name: 'balcao-pure-shared-schemas',
    apply: 'build',
    enforce: 'post',
    transform(code, id) {
      if (!/[\\/]shared[\\/]src[\\/].*\.ts$/.test(id) || !code.includes('z.')) return null;
      const s = new RolldownMagicString(code);
      for (const stmt of this.parse(code).body as unknown as Node[]) {
        const decl = (stmt.type === 'ExportNamedDeclaration' ? stmt.declaration : stmt) as Node | null;
        if (decl?.type !== 'VariableDeclaration') continue;
        for (const d of decl.declarations as Node[]) {
          const init = d.init as Node | null;
          if (!init || !callsZod(init)) continue;
          s.appendLeft(init.start, '/* @__PURE__ */ (() => (');
          s.appendRight(init.end, '))()');
        }
      }
      return s.hasChanged() ? { code: s } : null;
    },
  };
}

// The API and Cognito addresses come from /config.json at runtime, so one build serves every stage.
const config = {
  plugins: [react(), localConfig(), pureSharedSchemas()],
  build: {
    outDir: 'dist',
    sourcemap: true,
    chunkSizeWarningLimit: 1500,
    rolldownOptions: {
      treeshake: {
        // @balcao/shared has no import-time effects: a module of it nothing reads from is left out
        // (with pureSharedSchemas, so are its unused schemas). Other modules keep the default.
        moduleSideEffects: [{ test: /[\\/]shared[\\/]src[\\/]/, sideEffects: false }],
      },
    },
  },
  server: { port: 5173 },
} satisfies UserConfig;

export default defineConfig(({ command }) => {
  // A build is always the production console. An inherited NODE_ENV (vitest sets `test`, and the
  // stack tests build web/dist) would otherwise give React's development build and dev JSX: ~60 KB
  // gzip more in the first load, measured by the benchmark and even deployable.
  if (command === 'build') process.env.NODE_ENV = 'production';
  return config;
});
