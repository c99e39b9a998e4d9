import { expect } from 'chai';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as v from 'valibot';
import type { Subscription } from 'rxjs';
import { JournalSourceConfig, buildJournalSource } from '../../../../connectors/sources/journal/index.js';
import type { EventBatch, LogEvent } from '../../../../lib/event.js';
import { toJSON } from '../../../../lib/value.js';
import { until } from '../../../helpers/wait.js';
import { CURRENT_BOOT, type Entry, entry, journalRemote, writeJournal } from '../../../peers/journal.js';
import { type TestSourceContext, testSourceContext } from '../source-context.js';

interface Running {
  ctx: TestSourceContext;
  batches: LogEvent[][];
  events: () => LogEvent[];
  messages: () => string[];
  stop: () => void;
}

describe('journal source with real journal files and journalctl', function () {
  this.timeout(60_000);
  let dir: string;
  let data: string;
  const running: Running[] = [];
  before(() => {
    journalRemote();
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'weir-journal-'));
    data = mkdtempSync(join(tmpdir(), 'weir-journal-data-'));
  });
  afterEach(() => {
    for (const r of running.splice(0)) r.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(data, { recursive: true, force: true });
  });

  function start(o: Record<string, unknown>, ctx = testSourceContext('journal')): Running {
    const config = v.parse(JournalSourceConfig, { type: 'journal', journal_directory: dir, data_dir: data, ...o });
    const batches: LogEvent[][] = [];
    const sub: Subscription = buildJournalSource(config, ctx).subscribe({
      next: (b: EventBatch) => batches.push(b as LogEvent[]),
      error: (e: unknown) => batches.push([{ error: e } as unknown as LogEvent]),
    });
    const events = () => batches.flat();
    const r: Running = { ctx, batches, events, messages: () => events().map((e) => String(e.fields.message)), stop: () => sub.unsubscribe() };
    running.push(r);
    return r;
  }
  const checkpoint = () => readFileSync(join(data, 'in', 'checkpoint.txt'), 'utf8');

  const OLD_BOOT = '0123456789abcdef0123456789abcdef';

  it('reads every unit, priority and boot (current_boot_only = false); binary and non-UTF-8 values decoded lossily; the event layout', async () => {
    const entries: Entry[] = [
      entry('old boot', 'a.service', {}, OLD_BOOT),
      entry('one', 'a.service', { PRIORITY: '3' }),
      entry(Buffer.from([0x62, 0x61, 0x64, 0x20, 0xff, 0xfe]), 'b.service', { BINFIELD: Buffer.from([0x6c, 0x69, 0x0a, 0x6e, 0x65]) }),
      entry('multi\nline', 'c.socket', { _SOURCE_REALTIME_TIMESTAMP: '1714557600000000' }),
    ];
    writeJournal(dir, 'test', entries);
    const r = start({ current_boot_only: false });
    await until(() => r.events().length >= 4, 20_000, 'four events');
    expect(r.messages()).to.deep.equal(['old boot', 'one', 'bad \uFFFD\uFFFD', 'multi\nline']);
    const [, one, bin, multi] = r.events();
    const f = toJSON(one!.fields) as Record<string, string>;
    expect(Object.keys(f).slice(0, 3)).to.deep.equal(['message', 'host', 'timestamp']);
    expect(Object.keys(f).at(-1)).to.equal('source_type');
    // entry() stamps entries from a clock shared by every spec that writes journals: read it back
    const stamp = new Date(Number(entries[1]!.__REALTIME_TIMESTAMP) / 1000).toISOString();
    expect(f).to.include({ message: 'one', host: 'testhost', timestamp: stamp, PRIORITY: '3', _SYSTEMD_UNIT: 'a.service', SYSLOG_IDENTIFIER: 'a', _PID: '100', _BOOT_ID: CURRENT_BOOT, source_type: 'journal' });
    expect(f).to.not.have.property('__CURSOR');
    expect(f).to.not.have.property('_HOSTNAME');
    expect(f).to.not.have.property('MESSAGE');
    expect(bin!.fields.BINFIELD).to.equal('li\nne');
    expect(String(toJSON(multi!.fields.timestamp!))).to.equal('2024-05-01T10:00:00Z');
    await until(() => checkpoint().startsWith('s='), 5_000, 'the checkpoint');
    expect(checkpoint()).to.match(/^s=[0-9a-f]+;i=4;.*\n$/);
    expect(r.ctx.metric('component_received_bytes_total')).to.be.greaterThan(0);
  });

  it('current_boot_only = true reads only the latest boot in the files', async () => {
    writeJournal(dir, 'test', [entry('old', 'a.service', {}, OLD_BOOT), entry('new', 'a.service')]);
    const r = start({});
    await until(() => r.events().length >= 1, 20_000, 'one event');
    writeJournal(dir, 'test', [entry('newer', 'a.service')]);
    await until(() => r.events().length >= 2, 20_000, 'the appended event');
    expect(r.messages()).to.deep.equal(['new', 'newer']);
  });

  it('include_units, exclude_units, include_matches and exclude_matches filter in-process', async () => {
    writeJournal(dir, 'test', [
      entry('a1', 'a.service'),
      entry('b1', 'b.service'),
      entry('c1', 'c.socket', { PRIORITY: '2' }),
      entry('d1', 'd.service', { SYSLOG_IDENTIFIER: 'noisy' }),
      entry('a2', 'a.service', { SYSLOG_IDENTIFIER: 'noisy' }),
      entry('last', 'z.service'),
    ]);
    const inc = start({ current_boot_only: false, include_units: ['a', 'c.socket'] }, testSourceContext('journal', 'inc'));
    const exc = start({ current_boot_only: false, exclude_units: ['b'], exclude_matches: { SYSLOG_IDENTIFIER: ['noisy'] } }, testSourceContext('journal', 'exc'));
    const m = start({ current_boot_only: false, include_matches: { PRIORITY: ['2'], _SYSTEMD_UNIT: ['z.service'] } }, testSourceContext('journal', 'm'));
    await until(() => inc.events().length >= 3 && exc.events().length >= 3 && m.events().length >= 2, 20_000, 'filtered events');
    expect(inc.messages()).to.deep.equal(['a1', 'c1', 'a2']);
    expect(exc.messages()).to.deep.equal(['a1', 'c1', 'last']);
    expect(m.messages()).to.deep.equal(['c1', 'last']);
  });

  it('batch_size bounds a batch; the checkpoint lets a restart resume with nothing lost or repeated', async () => {
    writeJournal(dir, 'test', Array.from({ length: 7 }, (_, i) => entry(`m${i}`, 'a.service')));
    const first = start({ current_boot_only: false, batch_size: 3 });
    await until(() => first.events().length >= 7, 20_000, 'seven events');
    expect(first.batches.every((b) => b.length <= 3)).to.equal(true);
    expect(first.batches.some((b) => b.length === 3)).to.equal(true);
    await until(() => /;i=7;/.test(checkpoint()), 5_000, 'the last cursor saved');
    first.stop();
    writeJournal(dir, 'test', [entry('m7', 'a.service'), entry('m8', 'a.service')]);
    const second = start({ current_boot_only: false, batch_size: 3 });
    await until(() => second.events().length >= 2, 20_000, 'the new events');
    expect(second.messages()).to.deep.equal(['m7', 'm8']);
  });

  it('since_now skips the history when there is no checkpoint', async () => {
    writeJournal(dir, 'test', [entry('before', 'a.service')]);
    const r = start({ since_now: true });
    // --since=now compares entry times: stamp the new entry a minute ahead, so no race with the start
    writeJournal(dir, 'test', [entry('after', 'a.service', { __REALTIME_TIMESTAMP: String((Date.now() + 60_000) * 1000) })]);
    await until(() => r.events().length >= 1, 20_000, 'the new entry');
    expect(r.messages()).to.deep.equal(['after']);
  });

  it('remap_priority names the priority (deprecated, with a warning)', async () => {
    writeJournal(dir, 'test', [entry('x', 'a.service', { PRIORITY: '3' })]);
    const r = start({ current_boot_only: false, remap_priority: true });
    await until(() => r.events().length >= 1, 20_000, 'one event');
    expect(r.events()[0]!.fields.PRIORITY).to.equal('ERR');
    expect(r.ctx.lines.some((l) => l.includes('remap_priority is deprecated'))).to.equal(true);
  });

  it('journalctl_path: invalid lines are counted; a journalctl that dies is started again from the last cursor', async () => {
    writeJournal(dir, 'test', [entry('e1', 'a.service'), entry('e2', 'a.service')]);
    const state = join(data, 'runs');
    const script = join(data, 'fake-journalctl');
    // first run: garbage, a null field, one real record, then exit 1; later runs: the real journalctl
    writeFileSync(
      script,
      `#!/bin/sh
if [ "$1" = "--version" ]; then exec journalctl --version; fi
echo "$@" >> ${state}
if [ ! -f ${state}.once ]; then
  touch ${state}.once
  echo 'not json at all'
  echo '{"MESSAGE":null}'
  journalctl "$@" --no-pager | head -n 1
  exit 1
fi
exec journalctl "$@"
`,
    );
    chmodSync(script, 0o755);
    const r = start({ current_boot_only: false, journalctl_path: script });
    await until(() => r.events().length >= 2, 20_000, 'both entries');
    expect(r.messages()).to.deep.equal(['e1', 'e2']);
    expect(r.ctx.metric('invalid_record_total')).to.equal(2);
    expect(r.ctx.metric('component_errors_total', { error_type: 'parser_failed' })).to.equal(2);
    expect(r.ctx.lines.some((l) => l.includes('journalctl stopped; restarting.'))).to.equal(true);
    const runs = readFileSync(state, 'utf8').trim().split('\n');
    expect(runs).to.have.length(2);
    expect(runs[1]).to.match(/--after-cursor=s=[0-9a-f]+;i=1;/);
  });

  it('stops reading while the output gate is closed: journalctl blocks on a full pipe, and goes on when it opens', async () => {
    const pidFile = join(data, 'pid');
    const script = join(data, 'flood-journalctl');
    // 20000 records of ~40 bytes: far more than a pipe and one read hold
    writeFileSync(
      script,
      `#!/bin/sh
if [ "$1" = "--version" ]; then exec journalctl --version; fi
echo $$ > ${pidFile}
i=0
while [ $i -lt 20000 ]; do printf '{"MESSAGE":"m%d","__CURSOR":"c%d"}\\n' $i $i; i=$((i+1)); done
exec sleep 1000
`,
    );
    chmodSync(script, 0o755);
    const ctx = testSourceContext('journal');
    ctx.gate.close();
    const r = start({ journalctl_path: script, batch_size: 100 }, ctx);
    const wchan = () => {
      try {
        return readFileSync(`/proc/${readFileSync(pidFile, 'utf8').trim()}/wchan`, 'utf8');
      } catch {
        return '';
      }
    };
    // node hands a child a unix socket for stdout: a full one blocks the writer in sock_alloc_send_pskb
    await until(() => /pipe_write|sock_alloc_send/.test(wchan()), 20_000, 'journalctl blocked writing to its stdout');
    // how much was read before the pause took hold depends on timing; that it stopped does not
    const held = r.events().length;
    expect(held).to.be.lessThan(20_000);
    ctx.gate.open();
    await until(() => r.events().length === 20_000, 20_000, 'every record once the gate opened');
    expect(r.messages().slice(-1)).to.deep.equal(['m19999']);
  });

  it('acknowledgements.enabled is accepted, deprecated, and warned about', () => {
    const ctx = testSourceContext('journal');
    buildJournalSource(v.parse(JournalSourceConfig, { type: 'journal', acknowledgements: { enabled: true } }), ctx);
    expect(ctx.lines.some((l) => l.includes('acknowledgements.enabled on the journal source is deprecated'))).to.equal(true);
  });

  it('a journalctl that cannot run fails the source', async () => {
    const r = start({ journalctl_path: join(data, 'missing') });
    await until(() => r.batches.length > 0, 10_000, 'the error');
    expect(String((r.batches[0]![0] as unknown as { error: Error }).error.message)).to.match(/--version/);
  });
});
