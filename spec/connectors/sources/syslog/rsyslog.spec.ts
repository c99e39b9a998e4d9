/**
 * A real rsyslogd (spec/peers/rsyslog.ts) forwards to the syslog source with omfwd over TCP:
 * RFC 5424 (`RSYSLOG_SyslogProtocol23Format`), octet-counted framing. One rsyslogd and one source
 * serve every case here.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { hostname } from 'node:os';
import { promisify } from 'node:util';
import type { Subscription } from 'rxjs';
import * as v from 'valibot';
import { SyslogSourceConfig, syslogSource } from '../../../../connectors/sources/syslog/index.js';
import type { EventBatch, LogEvent } from '../../../../lib/event.js';
import { Timestamp } from '../../../../lib/value.js';
import { type Rsyslog, startRsyslog } from '../../../peers/rsyslog.js';
import { until } from '../../../helpers/wait.js';
import { type TestSourceContext, testSourceContext } from '../source-context.js';

const run = promisify(execFile);

describe('syslog source: rsyslogd forwarding (omfwd, octet-counted RFC 5424)', () => {
  let ctx: TestSourceContext;
  let sub: Subscription;
  let rsyslog: Rsyslog;
  const batches: EventBatch[] = [];
  const events = () => batches.flat() as LogEvent[];
  const withMessage = (m: string) => events().find((e) => e.fields.message === m);

  before(async () => {
    ctx = testSourceContext('syslog');
    sub = syslogSource.build(v.parse(SyslogSourceConfig, { type: 'syslog', mode: 'tcp', address: '127.0.0.1:0' }), ctx).subscribe((b) => batches.push(b as EventBatch));
    await until(() => ctx.listeningAddress() !== undefined, 5000, 'listening');
    const addr = ctx.listeningAddress()!;
    rsyslog = await startRsyslog(Number(addr.slice(addr.lastIndexOf(':') + 1)));
  });
  after(async () => {
    await rsyslog?.stop();
    sub?.unsubscribe();
  });

  /** Hands a message to rsyslogd as a local program would (`logger -u` to its input socket). */
  const send = (args: string[]) => run('logger', ['-u', rsyslog.inputSocket, ...args]);

  it('tag, pid, facility and severity arrive parsed; the two spaces of the template are not in the message', async () => {
    const before = Date.now();
    await send(['-t', 'billing', '--id=4711', '-p', 'local3.err', 'invoice 17 failed']);
    await until(() => withMessage('invoice 17 failed') !== undefined, 10_000, `the forwarded message (rsyslogd: ${rsyslog.output()})`);
    const f = withMessage('invoice 17 failed')!.fields;
    expect(f).to.deep.include({
      appname: 'billing',
      procid: 4711,
      facility: 'local3',
      severity: 'err',
      version: 1,
      hostname: hostname(),
      host: hostname(),
      source_ip: '127.0.0.1',
      source_type: 'syslog',
    });
    expect((f.timestamp as Timestamp).ms).to.be.within(before - 1000, Date.now());
  });

  it('many messages on the one forwarding connection arrive whole and in order', async () => {
    const lines = Array.from({ length: 50 }, (_, i) => `batch line ${i} ${'z'.repeat(i * 7)}`.trim());
    for (const l of lines) await send(['-t', 'bulk', l]);
    await until(() => events().filter((e) => e.fields.appname === 'bulk').length === lines.length, 10_000, 'every forwarded line');
    const got = events().filter((e) => e.fields.appname === 'bulk').map((e) => e.fields.message as string);
    expect(got).to.deep.equal(lines);
    expect(ctx.metric('component_errors_total')).to.equal(0);
  });
});
