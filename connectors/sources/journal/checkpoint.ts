/** The journal cursor saved after each batch: `<data_dir>/<id>/checkpoint.txt`. */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Reads and saves one component's cursor. */
export interface Checkpoint {
  readonly path: string;
  /** The saved cursor, or undefined when none was saved yet. */
  read(): string | undefined;
  /** Replaces the saved cursor; a crash leaves either the old or the new one, never half a line. */
  save(cursor: string): void;
}

/** Opens (creating the component's folder) the checkpoint under `dataDir`; throws when it cannot. */
export function openCheckpoint(dataDir: string, componentId: string): Checkpoint {
  const dir = join(dataDir, componentId);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'checkpoint.txt');
  const tmp = `${path}.tmp`;
  return {
    path,
    read() {
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw err;
      }
      const line = text.split('\n', 1)[0]!.trim();
      return line === '' ? undefined : line;
    },
    save(cursor) {
      writeFileSync(tmp, `${cursor}\n`);
      renameSync(tmp, path);
    },
  };
}
