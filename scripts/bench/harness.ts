/**
 * What every benchmark script shares: starting a sibling script in its own process (compiled or
 * through tsx, as this one runs), reading its READY line, and waiting for a pipeline's socket.
 */
import type { spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const ts = import.meta.url.endsWith('.ts');

/** The node arguments that run a sibling benchmark script (`tcp-send`, a peer...). */
export const script = (name: string): string[] => (ts ? ['--import', 'tsx', join(here, `${name}.ts`)] : [join(here, `${name}.js`)]);

/** The rest of the first line of a child's stdout that starts with `prefix`. */
export function firstLine(child: ReturnType<typeof spawn>, prefix: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.on('line', (l) => {
      if (l.startsWith(prefix)) {
        rl.close();
        resolve(l.slice(prefix.length).trim());
      }
    });
    child.on('exit', (code) => reject(new Error(`${prefix} never came (exit ${code})`)));
  });
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

/** Resolves once something accepts connections on the port (the source listens asynchronously). */
export async function listening(port: number): Promise<void> {
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Resolves once `done()` holds, checked every few milliseconds (a metric reaching the count sent). */
export function whenDone(done: () => boolean, everyMs = 5): Promise<void> {
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      if (done()) {
        clearInterval(timer);
        resolve();
      }
    }, everyMs);
  });
}

/** This process's peak resident set, MiB. */
export const peakRssMiB = (): number => process.resourceUsage().maxRSS / 1024;
