import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import os from 'node:os';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { closeServer, listen, onLines, sendJson, type Log } from './http-util.js';
import { REPO_ROOT } from './functions-loader.js';

const WEB = path.join(REPO_ROOT, 'web');
export const WEB_DIST = path.join(WEB, 'dist');

/** Newest mtime under a path (files only), skipping node_modules. */
function newest(p: string): number {
  if (!fs.existsSync(p)) return 0;
  const st = fs.statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let max = 0;
  for (const e of fs.readdirSync(p)) if (e !== 'node_modules') max = Math.max(max, newest(path.join(p, e)));
  return max;
}

export function webBuildIsStale() {
  const built = fs.existsSync(path.join(WEB_DIST, 'index.html')) ? fs.statSync(path.join(WEB_DIST, 'index.html')).mtimeMs : 0;
  if (!built) return true;
  const sources = Math.max(
    newest(path.join(WEB, 'src')),
    newest(path.join(WEB, 'index.html')),
    newest(path.join(WEB, 'public')),
    newest(path.join(WEB, 'vite.config.ts')),
    newest(path.join(REPO_ROOT, 'shared/src')),
  );
  return sources > built;
}

/** `npm run build -w web` when the build is missing or older than its sources. */
export async function buildWebIfStale(log: Log) {
  if (!fs.existsSync(path.join(WEB, 'index.html'))) {
    log('web', 'web/index.html does not exist yet; nothing to build');
    return;
  }
  // Several stacks (npm start, test runs) may start at once; one builds, the others wait for it.
  const lock = path.join(os.tmpdir(), `balcao-web-build-${crypto.createHash('sha1').update(WEB).digest('hex').slice(0, 8)}.lock`);
  for (;;) {
    if (!webBuildIsStale()) {
      log('web', 'web/dist is up to date');
      return;
    }
    try {
      fs.mkdirSync(lock);
      break;
    } catch {
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 5 * 60_000) fs.rmSync(lock, { recursive: true, force: true }); // left by a killed build
      else await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    await runBuild(log);
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * `vite build` of the console into `outDir` (web/dist unless told). Only vite's warnings and errors
 * are logged, then one summary line: its listing of every chunk (~90 lines) buried the start banner.
 */
export async function runBuild(log: Log, outDir = WEB_DIST) {
  log('web', 'building the console (vite)…');
  const started = Date.now();
  const elsewhere = path.resolve(outDir) !== WEB_DIST ? ['--outDir', path.resolve(outDir), '--emptyOutDir'] : [];
  await new Promise<void>((resolve, reject) => {
    // --silent: without npm's own "> vite build" header lines; the script's output still comes through.
    const child = spawn('npm', ['run', '--silent', 'build', '-w', 'web', '--', '--logLevel', 'warn', ...elsewhere], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...(process.stdout.isTTY ? {} : { NO_COLOR: '1', FORCE_COLOR: '0' }) },
    });
    // npm's config warnings about this machine's npmrc are not build output.
    const out = (l: string) => !/^npm warn Unknown (user|env) config/.test(l) && log('web', l);
    onLines(child.stdout, out);
    onLines(child.stderr, out);
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`web build failed (exit ${code})`))));
  });
  log('web', buildSummary(outDir, Date.now() - started));
}

/** What a build made, in one line: the scripts and stylesheets under `<outDir>/assets` and their size. */
export function buildSummary(outDir: string, ms: number): string {
  const assets = path.join(outDir, 'assets');
  let scripts = 0;
  let styles = 0;
  let bytes = 0;
  for (const name of fs.existsSync(assets) ? fs.readdirSync(assets) : []) {
    const ext = path.extname(name);
    if (ext !== '.js' && ext !== '.css') continue;
    if (ext === '.js') scripts++;
    else styles++;
    bytes += fs.statSync(path.join(assets, name)).size;
  }
  return `built in ${(ms / 1000).toFixed(1)} s: ${scripts} scripts and ${styles} stylesheets, ${Math.round(bytes / 1024)} kB in ${path.relative(REPO_ROOT, path.resolve(outDir)) || '.'}`;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.mp3': 'audio/mpeg',
  '.ogg': 'audio/ogg',
  '.wav': 'audio/wav',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json',
  '.webmanifest': 'application/manifest+json',
};

/** Serves web/dist with SPA fallback, plus the runtime /config.json the cloud deployment also writes. */
export async function startWebServer(opts: { port: number; config: () => unknown; log: Log }) {
  const root = WEB_DIST;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://local');
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendJson(res, 405, { message: 'Method Not Allowed' });
    if (url.pathname === '/config.json') {
      return sendJson(res, 200, opts.config(), { 'cache-control': 'no-store' });
    }
    let rel: string;
    try {
      rel = decodeURIComponent(url.pathname);
    } catch {
      return sendJson(res, 400, { message: 'Bad Request' });
    }
    let file = path.join(root, path.normalize(rel).replace(/^(\.\.[/\\])+/, ''));
    if (!file.startsWith(root)) return sendJson(res, 403, { message: 'Forbidden' });
    let isFallback = false;
    if (!fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      const index = path.join(file, 'index.html');
      if (fs.existsSync(index)) file = index;
      else if (path.extname(rel) && !rel.endsWith('.html')) {
        // A missing asset is a 404, not the SPA shell (keeps broken asset links visible).
        return sendJson(res, 404, { message: 'Not Found' });
      } else {
        file = path.join(root, 'index.html');
        isFallback = true;
      }
    }
    if (!fs.existsSync(file)) {
      res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' });
      return res.end('The console has not been built yet (web/dist is empty).\n');
    }
    const type = TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
    const hashed = /\/assets\//.test(file) && !isFallback;
    const st = fs.statSync(file);
    res.writeHead(200, {
      'content-type': type,
      'content-length': st.size,
      'cache-control': hashed ? 'public, max-age=31536000, immutable' : 'no-cache',
    });
    if (req.method === 'HEAD') return res.end();
    fs.createReadStream(file).pipe(res);
  });
  await listen(server, opts.port);
  return { url: `http://127.0.0.1:${opts.port}`, stop: () => closeServer(server) };
}
