/**
 * bin/startup/heap-growth.ts: with the fixed growth factor, garbage promoted to the old generation is
 * collected at about 1.5 times the live size instead of up to 4 times. Each run is a child process
 * (V8 flags are per process) that keeps a window of 8 arrays alive while it allocates 300, so every
 * array is promoted and then dropped; it prints its peak heap. The young generation stops growing at
 * the bound of bin/startup/young-generation.ts when the module is imported before the work starts, also
 * after a worker thread started (V8 resets the growth factor when it sets up an isolate).
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { youngGenerationTarget } from '../../../bin/startup/young-generation.js';
import { repoRoot } from '../../helpers/weir-process.js';

const module = fileURLToPath(new URL('../../../bin/startup/heap-growth.ts', import.meta.url));
const young = fileURLToPath(new URL('../../../bin/startup/young-generation.ts', import.meta.url));
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

/** Runs `code` in a child process (V8 flags are per process) with `flags`; resolves with the lines it prints. */
const runLines = (code: string, flags: string[] = []): Promise<string[]> =>
  new Promise((resolve, reject) =>
    execFile(process.execPath, [...flags, '--import', 'tsx', '--input-type=module', '-e', code], (err, out) => (err ? reject(err) : resolve(out.trim().split('\n')))),
  );

/** Runs `code` in a child process; resolves with the number it prints. */
const run = async (code: string): Promise<number> => Number((await runLines(code))[0]);

/**
 * Objects that survive young collections, allocated over many turns of the event loop, each turn
 * (about 1 MiB) shorter than a semi-space's worth, as a daemon's turns are: the module reacts to a
 * collection one turn later, so a single turn allocating more than a semi-space could grow the young
 * generation once more (bin/startup/heap-growth.ts).
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
 * young generation's size over the bound (`threadedSegments` as the CLI passes it, after `before`;
 * `work` in place of the survivors).
 */
const youngWorkload = (bound: boolean, threadedSegments = 1, before = '', work = survivors) => `
${bound ? `await import(${JSON.stringify(module)});` : ''}
const { sizeYoungGeneration, youngGenerationTarget } = await import(${JSON.stringify(young)});
sizeYoungGeneration(${threadedSegments});
const cap = ${bound ? 'youngGenerationTarget()' : '16 * 1048576'};
const v8 = await import('node:v8');
{
${before}
}
${work}console.log(v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / cap);`;

/**
 * About three times as many bytes as the young generation at its bound holds (two semi-spaces of 8
 * MiB: a million small objects and their strings, about 45 MiB), all kept, in a single turn of the
 * event loop: enough survivors for V8 to grow the young generation by whatever factor is set when
 * the turn starts.
 */
const oneTurnSurvivors = `
await new Promise((resolve) => setImmediate(resolve));
const held = [];
for (let i = 0; i < 1000000; i++) held.push({ n: i, s: 'x' + i });
`;

/**
 * Starts a worker thread as the pool does in the built daemon (bounded, no preloads: a preload such
 * as tsx starts one more thread of its own), and waits until it is online (its isolate set up). A
 * full collection first empties the young generation, so the main thread does not collect while the
 * worker starts: a collection between V8's reset and `online` would grow it by the factor 2, a window
 * bin/startup/heap-growth.ts cannot close (the isolate is set up on the worker's thread).
 */
const workerOnline = `
const { Worker } = await import('node:worker_threads');
gc();
// the module hears of that collection a turn later: before the worker starts, not after V8's reset
for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
const worker = new Worker('setInterval(() => {}, 1000)', { eval: true, execArgv: [], resourceLimits: { maxYoungGenerationSizeMb: 8 } });
await new Promise((resolve) => worker.once('online', resolve));
worker.unref();`;

describe('bin/startup/heap-growth', () => {
  it('stops the young generation at its bound: smaller while pipeline workers run', async () => {
    // one at a time: each decides about growth from how much survives its young collections
    const free = await run(youngWorkload(false));
    const threaded = await run(youngWorkload(true, 1));
    const mainOnly = await run(youngWorkload(true, 0));
    // V8's own maximum (16 MiB per semi-space) is above the module's
    expect(free).to.be.above(1);
    expect(threaded).to.equal(1);
    expect(mainOnly).to.equal(1);
  });

  it('keeps the young generation where it was after a worker thread started (V8 sets the growth factor back to 2 for a new isolate)', async () => {
    // the main thread grows to its bound first (prints that), then a worker starts, then one turn
    // keeps about three times what the young generation holds: its collections in that turn grow
    // it unless the factor is 1 again when the turn starts (no callback runs within a turn)
    const young = "v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / cap";
    const before = `${survivors}keep = null;console.log(${young});${workerOnline}`;
    const [grown, after] = (await runLines(youngWorkload(true, 0, before, oneTurnSurvivors), ['--expose-gc'])).map(Number);
    expect(grown).to.be.at.least(1);
    expect(after).to.equal(grown);
  });

  it('bounds the young generation of the CLI from its first module on (bin/weir loads the module before the CLI graph)', async () => {
    // parsing the CLI's module graph happens before any of its modules runs: a probe loaded first records the largest young generation
    if (!existsSync(join(repoRoot, 'dist/bin/weir.js'))) throw new Error('dist/bin/weir.js is missing: run npm run build');
    const probe = `
import { getHeapSpaceStatistics } from 'node:v8';
import { PerformanceObserver } from 'node:perf_hooks';
const young = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
let most = 0;
new PerformanceObserver(() => (most = Math.max(most, young()))).observe({ entryTypes: ['gc'] });
process.on('exit', () => process.stderr.write('young ' + Math.max(most, young()) + '\\n'));`;
    const stderr = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(probe)}`, join(repoRoot, 'bin/weir'), 'validate', '--config', join(repoRoot, 'config/default.toml')], (err, _out, errOut) =>
        err ? reject(err) : resolve(errOut),
      ),
    );
    const most = Number(/young (\d+)/.exec(stderr)?.[1]);
    // validate runs no pipeline: the bound is the one the process starts with
    expect(most).to.be.above(0).and.at.most(youngGenerationTarget());
  });

  it('keeps the peak heap of a promoting workload near its live size', async () => {
    const [free, bounded] = await Promise.all([run(workload(false)), run(workload(true))]);
    // live: 8 arrays of 20,000 small objects, about 16 MiB
    expect(bounded).to.be.below(free * 0.6);
    expect(bounded).to.be.below(96 * 1048576);
  });
});
