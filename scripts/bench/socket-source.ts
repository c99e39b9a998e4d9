/**
 * Throughput of the socket source (tcp, newline framing, bytes codec) into a sink that only
 * counts: `npx tsx scripts/bench/socket-source.ts [MiB] [line bytes]`. Prints MiB/s and events/s.
 */
import { connect } from 'node:net';
import * as v from 'valibot';
import { componentContext, sourceContext } from '../../lib/component-context.js';
import { GateController } from '../../lib/gate.js';
import { LogRoot } from '../../lib/log.js';
import { MetricsRegistry } from '../../lib/telemetry/registry.js';
import { SocketSourceConfig, socketSource } from '../../connectors/sources/socket/index.js';

const mib = Number(process.argv[2] ?? 512);
const lineBytes = Number(process.argv[3] ?? 100);
const line = 'x'.repeat(lineBytes - 1) + '\n';
const total = Math.floor((mib * 1024 * 1024) / lineBytes);

let address = '';
const registry = new MetricsRegistry({});
const log = new LogRoot('info', {
  write: (l: string) => {
    const m = /address=(\S+)/.exec(l);
    if (m) address = m[1]!;
  },
}).logger();
const ctx = sourceContext(componentContext({ id: 'bench', kind: 'source', type: 'socket', registry, log }), { out: new GateController(true) });
const config = v.parse(SocketSourceConfig, { type: 'socket', mode: 'tcp', address: '127.0.0.1:0', max_length: 1 << 20 });
let events = 0;
let start = 0n;
const sub = socketSource.build(config, ctx).subscribe((batch) => {
  events += (batch as unknown[]).length;
  if (events >= total) {
    const secs = Number(process.hrtime.bigint() - start) / 1e9;
    console.log(`${mib} MiB, ${total} lines of ${lineBytes} B: ${(mib / secs).toFixed(1)} MiB/s, ${(total / secs / 1e6).toFixed(2)} M events/s`);
    sub.unsubscribe();
    process.exit(0);
  }
});
const wait = setInterval(() => {
  if (!address) return;
  clearInterval(wait);
  const [host, port] = [address.slice(0, address.lastIndexOf(':')), Number(address.slice(address.lastIndexOf(':') + 1))];
  const block = Buffer.from(line.repeat(Math.floor((1 << 20) / lineBytes)));
  const perBlock = Math.floor((1 << 20) / lineBytes);
  let sent = 0;
  const c = connect(port, host, () => {
    start = process.hrtime.bigint();
    const pump = () => {
      while (sent < total) {
        const n = Math.min(perBlock, total - sent);
        const ok = c.write(n === perBlock ? block : block.subarray(0, n * lineBytes));
        sent += n;
        if (!ok) return void c.once('drain', pump);
      }
      c.end();
    };
    pump();
  });
}, 5);
