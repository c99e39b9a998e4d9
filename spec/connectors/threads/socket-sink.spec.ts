import { expect } from 'chai';
import { type AddressInfo, createServer } from 'node:net';
import { runThreaded } from '../../helpers/threaded-run.js';
import { until } from '../../helpers/wait.js';

/** Plain ASCII lines (copied into records as they are) among lines with quotes and non-ASCII text. */
const LINES = Array.from({ length: 4_000 }, (_, i) => (i % 5 === 2 ? `line ${i} "quoted" h\u00e9llo` : `line ${i} plain`));

/** A TCP receiver: every byte written to it, over any connections, in order; `open` connections not ended yet. */
async function receiver(): Promise<{ address: string; bytes(): Buffer; readonly open: number; close(): Promise<void> }> {
  const chunks: Buffer[] = [];
  let open = 0;
  const server = createServer((s) => {
    open++;
    s.on('data', (c: Buffer) => chunks.push(c));
    s.on('close', () => open--);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    bytes: () => Buffer.concat(chunks),
    get open() {
      return open;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('socket sink in pipeline threads (docs/threads.md)', function () {
  this.timeout(120_000);

  const cases: [string, Record<string, unknown>, Record<string, unknown> | undefined][] = [
    ['json, newline framing, no transform (lines copied as they are)', { encoding: { codec: 'json', except_fields: ['host', 'port', 'timestamp'] } }, undefined],
    ['json through remap, newline framing', { encoding: { codec: 'json', except_fields: ['host', 'port', 'timestamp'] } }, { type: 'remap', source: '.n = length(string!(.message))' }],
    ['text through remap, character_delimited', { encoding: { codec: 'text' }, framing: { method: 'character_delimited', character_delimited: { delimiter: '|' } } }, { type: 'remap', source: '.message = upcase(string!(.message))' }],
    ['json, length_delimited', { encoding: { codec: 'json', except_fields: ['host', 'port', 'timestamp'] }, framing: { method: 'length_delimited' } }, undefined],
  ];
  for (const [name, sinkOptions, transform] of cases)
    it(`socket -> socket(tcp) writes the bytes --threads 1 writes: ${name}`, async () => {
      const written: Buffer[] = [];
      for (const threads of [1, 2]) {
        const rx = await receiver();
        try {
          const topology = await runThreaded(
            threads,
            (address) => ({
              sources: { in: { type: 'socket', mode: 'tcp', address } },
              ...(transform ? { transforms: { t: { ...transform, inputs: ['in'] } } } : {}),
              sinks: { out: { type: 'socket', inputs: [transform ? 't' : 'in'], mode: 'tcp', address: rx.address, ...sinkOptions } },
            }),
            LINES,
            (sum) => sum('component_sent_events_total', 'out') >= LINES.length,
          );
          // the sink ended its connection when it stopped: everything it wrote has arrived once that did
          await until(() => rx.open === 0, 30_000, 'the sink connection closed');
          if (threads === 2) expect(topology.workerPool!.recycled, 'answers given back to the workers').to.be.greaterThan(0);
          written.push(rx.bytes());
        } finally {
          await rx.close();
        }
      }
      expect(written[0]!.length).to.be.greaterThan(LINES.length * 10);
      expect(written[1]!.equals(written[0]!), 'the same bytes').to.equal(true);
    });
});
