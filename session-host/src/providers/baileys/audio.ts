import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Voice notes must be ogg/opus mono for WhatsApp to play them as ptt (spec §7). Temp files rather
 * than pipes: containers such as mp4/m4a keep their index at the end and cannot be read from a pipe.
 */
export async function toOggOpus(input: Buffer, opts: { ffmpegPath?: string; timeoutMs?: number } = {}): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'balcao-ptt-'));
  const src = join(dir, 'in');
  const out = join(dir, 'out.ogg');
  try {
    await writeFile(src, input);
    await run(
      opts.ffmpegPath ?? 'ffmpeg',
      ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y', '-i', src, '-vn', '-c:a', 'libopus', '-ac', '1', '-ar', '48000', '-b:a', '32k', '-f', 'ogg', out],
      opts.timeoutMs ?? 60_000,
    );
    return await readFile(out);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function run(cmd: string, args: string[], timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      if (stderr.length < 4000) stderr += d.toString();
    });
    // A stuck ffmpeg must not hold the connection's command queue forever.
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`ffmpeg could not start: ${err.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`ffmpeg failed (${signal ?? code}): ${stderr.trim().slice(0, 500)}`));
    });
  });
}
