/** Runs a `socket`-fed configuration with a thread count, as the pipeline-thread specs compare one and two. */
import { expect } from 'chai';
import { connect } from 'node:net';
import { catalog, pipelineWorkerEntry } from '../../connectors/index.js';
import { configFromObject } from '../../lib/config/load.js';
import { LogRoot } from '../../lib/log.js';
import { Topology } from '../../lib/topology/topology.js';
import { freePort } from './free-port.js';
import { until } from './wait.js';

/**
 * Starts `sections(address)` (its `socket` source listening on `address`) with `threads`, checks that
 * one segment runs in workers exactly when there are two threads, writes `lines` to the source in
 * one connection, waits until `done` says so and stops the topology (which flushes its sinks).
 */
export async function runThreaded(
  threads: number,
  sections: (address: string) => Record<string, unknown>,
  lines: readonly string[],
  done: (sum: (metric: string, componentId: string) => number) => boolean,
): Promise<Topology> {
  const port = await freePort();
  const topology = new Topology({ log: new LogRoot('error', { write() {} }), threads, workerEntry: pipelineWorkerEntry });
  await topology.start(configFromObject(sections(`127.0.0.1:${port}`), catalog));
  expect(topology.threadedSegments).to.equal(threads === 2 ? 1 : 0);
  await new Promise<void>((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => s.end(lines.join('\n') + '\n', resolve));
    s.on('error', reject);
  });
  const sum = (metric: string, componentId: string) => topology.registry.sum(metric, { component_id: componentId });
  await until(() => done(sum), 60_000, 'the input through the pipeline');
  await topology.stop(30_000);
  return topology;
}
