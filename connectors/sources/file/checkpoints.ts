/**
 * The read positions of one `file` source, `<data_dir>/<component id>/checkpoints.json`: one
 * entry per fingerprint with the byte offset up to which every line was emitted (delivered, with
 * acknowledgements) and when it was last set. The file is replaced atomically (write, then
 * rename), so a crash leaves the old or the new positions, never a mix.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** One saved position. */
interface Entry {
  position: number;
  /** When it was set, in scheduler milliseconds; entries of files gone for a day are dropped. */
  modified: number;
}

/** Entries not set for this long, of files no longer watched, are forgotten at the next write. */
const FORGET_AFTER_MS = 24 * 3600 * 1000;

/** Positions by fingerprint, kept in memory and written when they changed. */
export class Checkpoints {
  readonly path: string;
  private readonly entries = new Map<string, Entry>();
  private dirty = false;

  /** Opens (creating the component's folder) and loads the saved positions; throws when it cannot. */
  constructor(dataDir: string, componentId: string) {
    const dir = join(dataDir, componentId);
    mkdirSync(dir, { recursive: true });
    this.path = join(dir, 'checkpoints.json');
    let text: string | undefined;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    if (text === undefined) return;
    const json = JSON.parse(text) as { checkpoints?: { fingerprint: string; position: number; modified: number }[] };
    for (const c of json.checkpoints ?? [])
      if (typeof c.fingerprint === 'string' && Number.isSafeInteger(c.position)) this.entries.set(c.fingerprint, { position: c.position, modified: c.modified });
  }

  /** The saved position of a file, if any. */
  get(fingerprint: string): number | undefined {
    return this.entries.get(fingerprint)?.position;
  }

  /** Records a position (written at the next {@link write}). */
  set(fingerprint: string, position: number, now: number): void {
    const e = this.entries.get(fingerprint);
    if (e !== undefined && e.position === position) {
      e.modified = now;
      return;
    }
    this.entries.set(fingerprint, { position, modified: now });
    this.dirty = true;
  }

  /** Forgets a file's position (its file was removed). */
  delete(fingerprint: string): void {
    if (this.entries.delete(fingerprint)) this.dirty = true;
  }

  /** Writes the positions if they changed; `watched` entries are kept however old. Throws on a write error. */
  write(now: number, watched: (fingerprint: string) => boolean): boolean {
    if (!this.dirty) return false;
    for (const [fp, e] of this.entries) if (!watched(fp) && now - e.modified > FORGET_AFTER_MS) this.entries.delete(fp);
    const checkpoints = [...this.entries].map(([fingerprint, e]) => ({ fingerprint, position: e.position, modified: e.modified }));
    const tmp = `${this.path}.tmp`;
    writeFileSync(tmp, `${JSON.stringify({ version: 1, checkpoints })}\n`);
    renameSync(tmp, this.path);
    this.dirty = false;
    return true;
  }
}
