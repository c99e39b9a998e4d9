import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { validateCommand } from '../../../../bin/cli/validate.js';

const dir = mkdtempSync(join(tmpdir(), 'weir-file-config-'));

async function validate(text: string): Promise<{ code: number; out: string }> {
  const f = join(dir, `c${Math.random().toString(36).slice(2)}.toml`);
  writeFileSync(f, text);
  return validatePath(f);
}
async function validatePath(f: string): Promise<{ code: number; out: string }> {
  let out = '';
  const sink = new Writable({
    write(chunk, _enc, cb) {
      out += chunk;
      cb();
    },
  });
  const code = await validateCommand({ files: [f], environment: false, skipHealthchecks: true, denyWarnings: false }, sink);
  return { code, out };
}
const SINK = `[sinks.out]\ntype = "console"\ninputs = ["logs"]\nencoding.codec = "json"\n`;

describe('file source: weir validate', () => {
  it("accepts Vector's documented example", async () => {
    const { code, out } = await validate(`data_dir = "${dir}"\n[sources.logs]\ntype = "file"\ninclude = ["/var/log/**/*.log"]\n${SINK}`);
    expect(code, out).to.equal(0);
  });

  it('refuses a missing include, naming it', async () => {
    const { code, out } = await validate(`[sources.logs]\ntype = "file"\n${SINK}`);
    expect(code, out).to.equal(78);
    expect(out).to.include('sources.logs.include').and.include('missing required option');
  });

  it('refuses an unknown read_from, naming it and the choices', async () => {
    const { code, out } = await validate(`[sources.logs]\ntype = "file"\ninclude = ["/tmp/*.log"]\nread_from = "middle"\n${SINK}`);
    expect(code, out).to.equal(78);
    expect(out).to.include('sources.logs.read_from').and.include('"beginning"').and.include('"end"');
  });

  it('refuses an empty include list', async () => {
    const { code, out } = await validate(`[sources.logs]\ntype = "file"\ninclude = []\n${SINK}`);
    expect(code, out).to.equal(78);
    expect(out).to.include('sources.logs.include');
  });

  it('the example in config/examples validates', async () => {
    const root = [resolve('config/examples/file.toml'), resolve('../config/examples/file.toml')][0]!;
    process.env.WEIR_DATA_DIR = dir;
    try {
      const { code, out } = await validatePath(root);
      expect(code, out).to.equal(0);
    } finally {
      delete process.env.WEIR_DATA_DIR;
    }
  });
});

describe("file source: Vector's deprecated options and older names", () => {
  it('validate, each with its deprecation noted in the docs rather than refused', async () => {
    const extra = 'start_at_beginning = true\nmessage_start_indicator = "^INFO"\nmulti_line_timeout = 500\nignore_not_found = true\nignore_older = 600\nacknowledgements = true';
    const { code, out } = await validate(`data_dir = "${dir}"\n[sources.logs]\ntype = "file"\ninclude = ["/tmp/*.log"]\n${extra}\n${SINK}`);
    expect(code, out).to.equal(0);
  });

  it('refuses an invalid message_start_indicator, naming it', async () => {
    const { code, out } = await validate(`[sources.logs]\ntype = "file"\ninclude = ["/tmp/*.log"]\nmessage_start_indicator = "(("\n${SINK}`);
    expect(code, out).to.equal(78);
    expect(out).to.include('sources.logs.message_start_indicator').and.include('regular expression');
  });
});
