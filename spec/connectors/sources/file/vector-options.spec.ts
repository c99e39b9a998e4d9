import { expect } from 'chai';
import { appendFileSync, symlinkSync, writeFileSync } from 'node:fs';
import * as v from 'valibot';
import { FileSourceConfig } from '../../../../connectors/sources/file/index.js';
import { Harness } from './harness.js';

describe("file source: Vector's deprecated options", () => {
  let h: Harness;
  beforeEach(() => {
    h = new Harness();
  });
  afterEach(() => h.dispose());

  /** Reads a.log once (its checkpoint written at the stop), then starts again with `o`; what the second run read. */
  const rerun = (o: Record<string, unknown>) => {
    writeFileSync(h.path('a.log'), 'one\ntwo\n');
    const first = h.start();
    h.advance(10);
    first.stop();
    expect(first.messages()).to.deep.equal(['one', 'two']);
    const second = h.start(o);
    h.advance(10);
    return second;
  };

  it('start_at_beginning = true: checkpoints are ignored, with a deprecation warning', () => {
    const r = rerun({ start_at_beginning: true });
    expect(r.messages()).to.deep.equal(['one', 'two']);
    expect(r.ctx.lines.join('\n')).to.include('deprecated option start_at_beginning');
  });

  it('start_at_beginning = true gives way to an explicit ignore_checkpoints = false', () => {
    expect(rerun({ start_at_beginning: true, ignore_checkpoints: false }).messages()).to.deep.equal([]);
  });

  it('start_at_beginning = false changes nothing but the warning', () => {
    const r = rerun({ start_at_beginning: false });
    expect(r.messages()).to.deep.equal([]);
    expect(r.ctx.lines.join('\n')).to.include('deprecated option start_at_beginning');
  });

  it('message_start_indicator: lines up to the next match join the message (halt_before with that pattern)', () => {
    writeFileSync(h.path('a.log'), 'INFO a\n  at x\n  at y\nERROR b\nINFO c\n  at z\n');
    const r = h.start({ message_start_indicator: '^(INFO|ERROR)' });
    h.advance(10);
    expect(r.messages()).to.deep.equal(['INFO a\n  at x\n  at y', 'ERROR b']);
  });

  it('multi_line_timeout: the open message is emitted that long after its last line (default 1000 ms)', () => {
    writeFileSync(h.path('a.log'), 'INFO a\n  at x\n');
    writeFileSync(h.path('b.log'), 'INFO b\n  at y\n');
    const quick = h.start({ include: [h.path('a.log')], message_start_indicator: '^INFO', multi_line_timeout: 50 });
    const slow = h.start({ include: [h.path('b.log')], message_start_indicator: '^INFO', data_dir: h.path() });
    h.advance(40);
    expect(quick.messages()).to.deep.equal([]);
    h.advance(20);
    expect(quick.messages()).to.deep.equal(['INFO a\n  at x']);
    h.advance(900);
    expect(slow.messages()).to.deep.equal([]);
    h.advance(100);
    expect(slow.messages()).to.deep.equal(['INFO b\n  at y']);
  });

  it('multiline, when set, wins over message_start_indicator, with a warning', () => {
    writeFileSync(h.path('a.log'), 'A 1\nx\nB 2\nx\n');
    const multiline = { start_pattern: '^B', condition_pattern: '^x', mode: 'continue_through', timeout_ms: 10 };
    const r = h.start({ multiline, message_start_indicator: '^A' });
    h.advance(50);
    expect(r.messages()).to.deep.equal(['A 1', 'x', 'B 2\nx']);
    expect(r.ctx.lines.join('\n')).to.include('message_start_indicator is ignored');
  });
});

describe("file source: ignore_not_found, empty keys and Vector's older option names", () => {
  let h: Harness;
  beforeEach(() => {
    h = new Harness();
  });
  afterEach(() => h.dispose());

  const fingerprintErrors = (r: ReturnType<Harness['start']>) => r.ctx.metric('component_errors_total', { error_code: 'reading_fingerprint' });

  it('a dangling symbolic link the glob lists is an error, counted and logged, unless ignore_not_found', () => {
    symlinkSync(h.path('nowhere'), h.path('dangling.log'));
    writeFileSync(h.path('real.log'), 'line\n');
    const counted = h.start();
    h.advance(10);
    expect(counted.messages()).to.deep.equal(['line']);
    expect(fingerprintErrors(counted)).to.equal(1);
    expect(counted.ctx.lines.join('\n')).to.include('Failed reading file for fingerprinting').and.include('dangling.log');
    const quiet = h.start({ ignore_not_found: true, data_dir: h.path() });
    h.advance(10);
    expect(quiet.messages()).to.deep.equal(['line']);
    expect(fingerprintErrors(quiet)).to.equal(0);
    expect(quiet.ctx.lines.join('\n')).not.to.include('fingerprinting');
  });

  it('a pattern without glob characters naming no file is no error', () => {
    const r = h.start({ include: [h.path('absent.log')] });
    h.advance(10);
    expect(fingerprintErrors(r)).to.equal(0);
  });

  it('file_key, host_key and offset_key set to "" leave their fields out', () => {
    writeFileSync(h.path('a.log'), 'one\n');
    const r = h.start({ file_key: '', host_key: '', offset_key: '' });
    h.advance(10);
    const fields = Object.keys(r.events()[0]!.fields).sort();
    expect(fields).to.deep.equal(['message', 'source_type', 'timestamp']);
    const kept = h.start({ offset_key: 'offset', data_dir: h.path() });
    appendFileSync(h.path('a.log'), 'two\n');
    h.advance(10);
    expect(Object.keys(kept.events()[0]!.fields)).to.include.members(['file', 'host', 'offset']);
  });

  it('ignore_older, glob_minimum_cooldown, fingerprinting, remove_after are read as their current names', () => {
    const c = v.parse(FileSourceConfig, {
      type: 'file',
      include: ['/tmp/*.log'],
      ignore_older: 600,
      glob_minimum_cooldown: 50,
      fingerprinting: { strategy: 'device_and_inode' },
      remove_after: 5,
    });
    expect([c.ignore_older_secs, c.glob_minimum_cooldown_ms, c.fingerprint.strategy, c.remove_after_secs]).to.deep.equal([600, 50, 'device_and_inode', 5]);
    // the current name wins; the alias written beside it is refused as unknown
    const both = v.safeParse(FileSourceConfig, { type: 'file', include: ['/tmp/*.log'], ignore_older: 1, ignore_older_secs: 2 });
    expect(both.success).to.equal(false);
  });

  it('acknowledgements = true is the short form of acknowledgements.enabled = true', () => {
    const c = v.parse(FileSourceConfig, { type: 'file', include: ['/tmp/*.log'], acknowledgements: true });
    expect(c.acknowledgements.enabled).to.equal(true);
  });
});
