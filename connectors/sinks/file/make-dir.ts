/**
 * Creates the folders of a path with a bounded walk. Node's `mkdir({ recursive: true })` loops
 * without end under file systems that answer ENOENT for every new entry (`/proc`); this walk
 * creates each missing parent once, and gives up after `maxDepth` levels.
 */
import { mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';

const codeOf = (err: unknown) => (err as NodeJS.ErrnoException).code;

/** Ensures `dir` exists as a folder; rejects with the file system's error otherwise. */
export async function makeDir(dir: string, maxDepth = 128): Promise<void> {
  try {
    await mkdir(dir);
  } catch (err) {
    if (codeOf(err) === 'EEXIST') {
      if ((await stat(dir)).isDirectory()) return;
      throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${dir}'`), { code: 'ENOTDIR' });
    }
    const parent = dirname(dir);
    if (codeOf(err) !== 'ENOENT' || parent === dir || maxDepth <= 0) throw err;
    await makeDir(parent, maxDepth - 1);
    // the parent exists now: one more try, no loop
    await mkdir(dir).catch((again: unknown) => {
      if (codeOf(again) !== 'EEXIST') throw again;
    });
  }
}
