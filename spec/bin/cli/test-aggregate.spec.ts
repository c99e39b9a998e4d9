/** `weir test` with the aggregate transform: sums, interval flushes and Max in virtual time. */
import { expect } from 'chai';
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { testCommand } from '../../../bin/cli/test.js';
import { LogRoot } from '../../../lib/log.js';
import { repoRoot } from '../../helpers/weir-process.js';

const fixture = join(repoRoot, 'spec/bin/cli/fixtures/unit-tests/aggregate.toml');

function run(file: string): { code: number; out: string } {
  let out = '';
  const sink = (add: (s: string) => void) =>
    new Writable({
      write(chunk: Buffer, _enc, done) {
        add(chunk.toString());
        done();
      },
    });
  const code = testCommand({ files: [file], junitReports: [], log: new LogRoot('error', { write() {} }) }, sink((s) => (out += s)), sink(() => undefined));
  return { code, out };
}

describe('weir test: aggregate', () => {
  it('runs the aggregate fixture: every test passes', () => {
    const r = run(fixture);
    expect(r.out).to.equal(
      [
        'Running tests',
        'test aggregate sums incremental counters within an interval ... passed',
        'test aggregate flushes every interval_ms of virtual time ... passed',
        'test aggregate Max keeps the highest gauge ... passed',
        '',
      ].join('\n'),
    );
    expect(r.code).to.equal(0);
  });

  it('fails where interval_ms or mode is not applied', () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-aggregate-'));
    try {
      const text = readFileSync(fixture, 'utf8').replace('interval_ms = 60000\n', 'interval_ms = 10000\n').replace('mode = "Max"\n', 'mode = "Min"\n');
      const file = join(dir, 'changed.toml');
      writeFileSync(file, text);
      const r = run(file);
      expect(r.code).to.equal(78);
      expect(r.out).to.include('test aggregate sums incremental counters within an interval ... failed');
      expect(r.out).to.include('test aggregate flushes every interval_ms of virtual time ... passed');
      expect(r.out).to.include('test aggregate Max keeps the highest gauge ... failed');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
