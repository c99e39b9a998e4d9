/**
 * A remap program's compile error names the config file and the line in it: the line where the
 * `source` value starts plus the program's own line, for TOML and YAML; JSON names the option path.
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { validateCommand } from '../../../bin/cli/validate.js';
import { positionInOption } from '../../../lib/config/option-position.js';
import { runWeir } from '../../helpers/weir-process.js';

const dir = mkdtempSync(join(tmpdir(), 'weir-program-position-'));
function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}
async function validate(path: string): Promise<{ code: number; out: string }> {
  let out = '';
  const sink = new Writable({ write(chunk, _enc, cb) { out += chunk; cb(); } });
  const code = await validateCommand({ files: [path], environment: false, skipHealthchecks: true, denyWarnings: false }, sink);
  return { code, out };
}

// the error is on the program's 3rd line: `upcase` of an integer, at column 13
const PROGRAM = ['.a = 1', '.b = 2', '.c = upcase(.a) + 1'];

const TOML = `[sources.in]
type = "demo_logs"
format = "shuffle"
lines = ["a"]

[transforms.other]
type = "remap"
inputs = ["in"]
source = '.x = 1'

[transforms.fix]
type = "remap"
inputs = ["in"]
source = '''
${PROGRAM.join('\n')}
'''

[sinks.out]
type = "blackhole"
inputs = ["fix", "other"]
`;

const YAML = `sources:
  in:
    type: demo_logs
    format: shuffle
    lines: ["a"]
transforms:
  fix:
    type: remap
    inputs: ["in"]
    source: |
${PROGRAM.map((l) => '      ' + l).join('\n')}
sinks:
  out:
    type: blackhole
    inputs: ["fix"]
`;

describe('remap program errors in a config file', function () {
  this.timeout(120_000);

  it('TOML: validate names the file, the line of the error in it (17) and the column', async () => {
    const path = file('a.toml', TOML);
    // the program starts on line 15, after the line holding the opening '''
    expect(TOML.split('\n')[14]).to.equal(PROGRAM[0]);
    const { code, out } = await validate(path);
    expect(code).to.equal(78);
    expect(out).to.contain(`${path}:17:13: transforms.fix.source: remap program does not compile:`);
    expect(out).to.contain(`┌─ ${path}:17:13`);
    expect(out).to.not.contain('┌─ :');
  });

  it('YAML: the block scalar\'s lines and indent are counted (line 13, column 6 + 13)', async () => {
    const path = file('a.yaml', YAML);
    expect(YAML.split('\n')[12]).to.equal('      ' + PROGRAM[2]);
    const { code, out } = await validate(path);
    expect(code).to.equal(78);
    expect(out).to.contain(`${path}:13:19: transforms.fix.source: remap program does not compile:`);
    expect(out).to.contain(`┌─ ${path}:13:19`);
  });

  it('JSON: the file, the option path and the program\'s line:column', async () => {
    const path = file('a.json', JSON.stringify({
      sources: { in: { type: 'demo_logs', format: 'shuffle', lines: ['a'] } },
      transforms: { fix: { type: 'remap', inputs: ['in'], source: PROGRAM.join('\n') } },
      sinks: { out: { type: 'blackhole', inputs: ['fix'] } },
    }, null, 2));
    const { code, out } = await validate(path);
    expect(code).to.equal(78);
    expect(out).to.contain(`${path}: transforms.fix.source: remap program does not compile:`);
    expect(out).to.contain('┌─ transforms.fix.source:3:13');
  });

  it('a one-line TOML string: the column counts from after the opening quote', () => {
    const path = file('b.toml', TOML);
    expect(positionInOption(path, ['transforms', 'other', 'source'], { line: 1, column: 2 })).to.deep.equal({ line: 9, column: 12 });
  });

  it('a config folder\'s section file holds the option at its top', () => {
    const path = file('fix.toml', `type = "remap"\ninputs = ["in"]\nsource = """\n${PROGRAM.join('\n')}\n"""\n`);
    expect(positionInOption(path, ['transforms', 'fix', 'source'], { line: 3, column: 13 })).to.deep.equal({ line: 6, column: 13 });
  });

  it('the daemon at start names the same file line', async () => {
    const path = file('c.toml', TOML);
    const r = await runWeir(['--config', path]);
    expect(r.code).to.equal(78);
    expect(r.stderr).to.contain(`${path}:17:13: transforms.fix.source: remap program does not compile:`);
  });
});
