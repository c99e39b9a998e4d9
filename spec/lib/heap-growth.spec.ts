/**
 * lib/heap-growth.ts: with the fixed growth factor, garbage promoted to the old generation is
 * collected at about 1.5 times the live size instead of up to 4 times. Each run is a child process
 * (V8 flags are per process) that keeps a window of 8 arrays alive while it allocates 300, so every
 * array is promoted and then dropped; it prints its peak heap. The young generation stops growing at
 * two semi-spaces of SEMI_SPACE_MIB when the module is imported before the work starts; a worker
 * thread's grows as V8 lets it.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const module = fileURLToPath(new URL('../../lib/heap-growth.ts', import.meta.url));
const workload = (bound: boolean) => `
${bound ? `await import(${JSON.stringify(module)});` : ''}
const ring = new Array(8);
let peak = 0;
for (let r = 0; r < 300; r++) {
  const a = new Array(20000);
  for (let i = 0; i < a.length; i++) a[i] = { n: i, s: 'x' + i, t: [i] };
  ring[r % ring.length] = a;
  peak = Math.max(peak, process.memoryUsage().heapUsed);
}
console.log(peak);`;

/** Runs `code` in a child process (V8 flags are per process); resolves with the number it prints. */
const run = (code: string): Promise<number> =>
  new Promise((resolve, reject) =>
    execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], (err, out) => (err ? reject(err) : resolve(Number(out.trim())))),
  );

/**
 * Objects that survive young collections, allocated over many turns of the event loop, each turn
 * (about 1 MiB) shorter than a semi-space's worth, as a daemon's turns are: the module reacts to a
 * collection one turn later, so a single turn allocating more than a semi-space could grow the young
 * generation once more (lib/heap-growth.ts).
 */
const survivors = `
let keep = [];
for (let turn = 0; turn < 200; turn++) {
  await new Promise((resolve) => setImmediate(resolve));
  for (let i = 0; i < 20000; i++) {
    keep.push({ n: i, s: 'x' + i });
    if (keep.length > 150000) keep = [];
  }
}
`;

/**
 * A workload whose objects survive young collections, over many turns of the event loop; prints the
 * young generation's size over the module's cap (two semi-spaces of SEMI_SPACE_MIB).
 */
const youngWorkload = (bound: boolean) => `
const cap = ${bound ? `2 * (await import(${JSON.stringify(module)})).SEMI_SPACE_MIB * 1048576` : '16 * 1048576'};
const v8 = await import('node:v8');
${survivors}console.log(v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / cap);`;

/** The young workload in a worker thread (the child's flags make it a module) started after the module was imported; prints the worker's young generation over 16 MiB. */
const workerWorkload = `
await import(${JSON.stringify(module)});
const { Worker } = await import('node:worker_threads');
const code = ${JSON.stringify(`
const v8 = await import('node:v8');
const { parentPort } = await import('node:worker_threads');
${survivors}parentPort.postMessage(v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / (16 * 1048576));`)};
const worker = new Worker(code, { eval: true });
worker.once('message', (ratio) => { console.log(ratio); worker.terminate(); });`;

describe('lib/heap-growth', () => {
  it('stops the young generation at two semi-spaces of SEMI_SPACE_MIB', async () => {
    const [free, bounded] = await Promise.all([run(youngWorkload(false)), run(youngWorkload(true))]);
    // V8's own maximum (16 MiB per semi-space) is above the module's
    expect(free).to.be.above(1);
    expect(bounded).to.equal(1);
  });

  it('leaves the young generation of worker threads to V8', async () => {
    expect(await run(workerWorkload)).to.be.above(1);
  });

  it('keeps the peak heap of a promoting workload near its live size', async () => {
    const [free, bounded] = await Promise.all([run(workload(false)), run(workload(true))]);
    // live: 8 arrays of 20,000 small objects, about 16 MiB
    expect(bounded).to.be.below(free * 0.6);
    expect(bounded).to.be.below(96 * 1048576);
  });
});
