import { expect } from 'chai';
import { runThreaded } from '../../helpers/threaded-run.js';

/** Plain lines among lines with quotes and non-ASCII text. */
const LINES = Array.from({ length: 3_000 }, (_, i) => (i % 5 === 2 ? `line ${i} "quoted" h\u00e9llo` : `line ${i} plain`));

/** Runs `body` with standard output's writes taken instead of written; returns what was written. */
async function capturingStdout(body: () => Promise<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const write = process.stdout.write;
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    chunks.push(Buffer.from(chunk));
    const cb = rest.find((x) => typeof x === 'function') as ((err?: Error) => void) | undefined;
    if (cb) process.nextTick(cb);
    return true;
  }) as typeof process.stdout.write;
  try {
    await body();
  } finally {
    process.stdout.write = write;
  }
  return Buffer.concat(chunks);
}

describe('console sink in pipeline threads (docs/threads.md)', function () {
  this.timeout(120_000);

  const cases: [string, Record<string, unknown>][] = [
    ['json, newline framing', { encoding: { codec: 'json', except_fields: ['host', 'port', 'timestamp', 'source_type'] } }],
    ['text, character_delimited', { encoding: { codec: 'text' }, framing: { method: 'character_delimited', character_delimited: { delimiter: '|' } } }],
  ];
  for (const [name, sinkOptions] of cases)
    it(`socket -> remap -> console writes the bytes --threads 1 writes: ${name}`, async () => {
      const written: Buffer[] = [];
      for (const threads of [1, 2])
        written.push(
          await capturingStdout(async () => {
            const topology = await runThreaded(
              threads,
              (address) => ({
                sources: { in: { type: 'socket', mode: 'tcp', address } },
                transforms: { t: { type: 'remap', inputs: ['in'], source: '.message = upcase(string!(.message))' } },
                sinks: { out: { type: 'console', inputs: ['t'], ...sinkOptions } },
              }),
              LINES,
              (sum) => sum('component_sent_events_total', 'out') >= LINES.length,
            );
            if (threads === 2) expect(topology.workerPool!.recycled, 'answers given back to the workers').to.be.greaterThan(0);
          }),
        );
      expect(written[0]!.toString()).to.contain('QUOTED').and.to.contain('HÉLLO');
      expect(written[0]!.length).to.be.greaterThan(LINES.length * 10);
      expect(written[1]!.equals(written[0]!), 'the same bytes').to.equal(true);
    });
});
