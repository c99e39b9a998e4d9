/**
 * lib/heap-growth.ts: with the fixed growth factor, garbage promoted to the old generation is
 * collected at about 1.5 times the live size instead of up to 4 times. Each run is a child process
 * (V8 flags are per process) that keeps a window of 8 arrays alive while it allocates 300, so every
 * array is promoted and then dropped; it prints its peak heap.
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

const peakHeap = (bound: boolean): Promise<number> =>
  new Promise((resolve, reject) =>
    execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', workload(bound)], (err, out) => (err ? reject(err) : resolve(Number(out.trim())))),
  );

describe('lib/heap-growth', () => {
  it('keeps the peak heap of a promoting workload near its live size', async () => {
    const [free, bounded] = await Promise.all([peakHeap(false), peakHeap(true)]);
    // live: 8 arrays of 20,000 small objects, about 16 MiB
    expect(bounded).to.be.below(free * 0.6);
    expect(bounded).to.be.below(96 * 1048576);
  });
});
