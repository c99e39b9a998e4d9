/** Runs `weir validate` (health checks skipped) on config text written to a temp file; returns the exit code and the output. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { validateCommand } from '../../bin/cli/validate.js';

export async function validateConfigText(text: string, ext = 'toml'): Promise<{ code: number; out: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'weir-validate-'));
  const file = join(dir, `config.${ext}`);
  writeFileSync(file, text);
  let out = '';
  const w = new Writable({
    write(chunk, _enc, cb) {
      out += chunk;
      cb();
    },
  });
  try {
    const code = await validateCommand({ files: [file], environment: false, skipHealthchecks: true, denyWarnings: false }, w);
    return { code, out };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
