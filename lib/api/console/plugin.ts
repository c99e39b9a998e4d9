/**
 * The live web console (`GET /`): a page, its script and the graph layout library, all served
 * from the package (no CDN: the machine may be offline). Everything it shows comes through the
 * GraphQL API on the same address. Beyond Vector's schema it adds the query `componentLinks` (every
 * edge, named outputs included: Vector's relations only follow default outputs) and the
 * subscription `componentBufferFills`, so the page can draw how full each sink's buffer is, and the
 * query `consoleHistory`: the last 15 minutes of rates, so the page draws its charts and labels on
 * first paint. The charts are drawn by uPlot, whose browser build is served from the package too.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { FastifyPluginAsync } from 'fastify';
import { type SchedulerLike, defer, map, timer } from 'rxjs';
import type { MetricsRegistry } from '../../telemetry/registry.js';
import { type ApiTopology, recordsOf } from '../component-index.js';
import { toAsyncIterator } from '../async-queue.js';
import { checkInterval } from '../ticks.js';
import { HISTORY_STEP_MS, RateHistory } from './history.js';
import { consoleHtml } from './page.js';

/** What the console plugin reads: the running topology, its clock and the subscription queue bound. */
export interface ConsolePluginOptions {
  readonly topology: ApiTopology;
  readonly scheduler: SchedulerLike;
  /** Values a slow subscriber may have waiting before newer ones are dropped. */
  readonly queueCapacity: number;
}

const BUFFER_SDL = `
"""How full one sink's buffer is: events or bytes held against the configured limit."""
type ComponentBufferFill {
  componentId: String!
  events: Float!
  byteSize: Float!
  maxEvents: Float
  maxByteSize: Float
  "Held / limit, 0..1, of whichever limit the buffer has."
  fill: Float!
}
"""One edge of the topology: an output of one component feeding another."""
type ComponentLink {
  fromComponentId: String!
  "The output's id: the component id, or id.name for a named output."
  outputId: String!
  toComponentId: String!
}
"""One output's events per second over the history."""
type ConsoleOutputSeries {
  "The output's name; _default for the default output."
  outputId: String!
  sent: [Float]!
}
"""One component's rates over the history, one value per timestamp (null before it existed)."""
type ConsoleComponentSeries {
  componentId: String!
  "Events per second received."
  received: [Float]!
  "Events per second sent."
  sent: [Float]!
  "Errors per second."
  errors: [Float]!
  "Buffer fill 0..1 (null for a component without a buffer)."
  fill: [Float]!
  outputs: [ConsoleOutputSeries!]!
  "The totals at the last sample."
  receivedTotal: Float!
  sentTotal: Float!
  errorsTotal: Float!
}
"""The last 15 minutes of rates, one sample a second."""
type ConsoleHistory {
  "Seconds since the epoch of each sample, oldest first."
  timestamps: [Float!]!
  components: [ConsoleComponentSeries!]!
}
extend type Query {
  "Every edge of the running topology (weir's extension of the schema)."
  componentLinks: [ComponentLink!]!
  "The web console's rate history (weir's extension of the schema)."
  consoleHistory: ConsoleHistory!
}
extend type Subscription {
  "Every sink's buffer fill, each interval (weir's extension of the schema)."
  componentBufferFills(interval: Int! = 1000): [ComponentBufferFill!]!
}
`;

interface BufferFill {
  componentId: string;
  events: number;
  byteSize: number;
  maxEvents: number | null;
  maxByteSize: number | null;
  fill: number;
}

/** The buffer gauges of every sink in one sample. */
function bufferFills(registry: MetricsRegistry): BufferFill[] {
  const by = new Map<string, BufferFill>();
  for (const s of registry.all()) {
    if (!s.name.startsWith('buffer_')) continue;
    const id = s.tags.component_id;
    if (!id) continue;
    let f = by.get(id);
    if (!f) by.set(id, (f = { componentId: id, events: 0, byteSize: 0, maxEvents: null, maxByteSize: null, fill: 0 }));
    // a chained buffer reports one series per stage: the sink's buffer holds their sum
    if (s.name === 'buffer_events') f.events += s.value;
    else if (s.name === 'buffer_byte_size') f.byteSize += s.value;
    else if (s.name === 'buffer_max_event_size') f.maxEvents = (f.maxEvents ?? 0) + s.value;
    else if (s.name === 'buffer_max_byte_size') f.maxByteSize = (f.maxByteSize ?? 0) + s.value;
  }
  const out = [...by.values()];
  for (const f of out) f.fill = f.maxEvents ? Math.min(1, f.events / f.maxEvents) : f.maxByteSize ? Math.min(1, f.byteSize / f.maxByteSize) : 0;
  return out;
}

/**
 * The browser script (browser/console.js, type-checked and copied beside this module by the build).
 * From a dist/ that the main tsconfig alone built, the copy is missing: the source tree's is read.
 */
function browserScript(): string {
  const candidates = ['./browser/console.js', '../../../../lib/api/console/browser/console.js'];
  for (const rel of candidates) {
    const url = new URL(rel, import.meta.url);
    if (existsSync(url)) return readFileSync(url, 'utf8');
  }
  throw new Error(`the web console's script is missing (looked for ${candidates.join(' and ')} from ${import.meta.url})`);
}

/** dagre's browser build, read once from the installed package. */
function dagreScript(): string {
  const require = createRequire(import.meta.url);
  const main = require.resolve('@dagrejs/dagre');
  return readFileSync(main.replace(/dagre\.cjs$/, 'dagre.min.js'), 'utf8');
}

/** uPlot's browser build and its style sheet, read once from the installed package. */
function uplotFiles(): { script: string; css: string } {
  const require = createRequire(import.meta.url);
  const main = require.resolve('uplot');
  return { script: readFileSync(main.replace(/uPlot\.cjs\.js$/, 'uPlot.iife.min.js'), 'utf8'), css: readFileSync(main.replace(/uPlot\.cjs\.js$/, 'uPlot.min.css'), 'utf8') };
}

/** Serves the console's page, script, layout and chart libraries, and adds `componentLinks`, `componentBufferFills` and `consoleHistory` to the schema. */
export const consolePlugin: FastifyPluginAsync<ConsolePluginOptions> = async (app, opts) => {
  const dagre = dagreScript();
  const script = browserScript();
  const uplot = uplotFiles();
  const history = new RateHistory();
  const sampling = timer(0, HISTORY_STEP_MS, opts.scheduler).subscribe(() => {
    const registry = opts.topology.registry;
    history.record(registry, opts.scheduler.now(), new Map(bufferFills(registry).map((f) => [f.componentId, f.fill])));
  });
  app.addHook('onClose', async () => sampling.unsubscribe());
  app.get('/console/uplot.js', async (_req, reply) => reply.type('text/javascript; charset=utf-8').send(uplot.script));
  app.get('/console/uplot.css', async (_req, reply) => reply.type('text/css; charset=utf-8').send(uplot.css));
  app.get('/', async (_req, reply) => reply.type('text/html; charset=utf-8').send(consoleHtml));
  app.get('/console/app.js', async (_req, reply) => reply.type('text/javascript; charset=utf-8').send(script));
  app.get('/favicon.ico', async (_req, reply) => reply.code(204).send());
  app.get('/console/dagre.js', async (_req, reply) => reply.type('text/javascript; charset=utf-8').send(dagre));
  app.graphql.extendSchema(BUFFER_SDL);
  app.graphql.defineResolvers({
    Query: {
      componentLinks: () => {
        const links: { fromComponentId: string; outputId: string; toComponentId: string }[] = [];
        for (const c of recordsOf(opts.topology.currentGraph).values()) for (const i of c.inputs) links.push({ fromComponentId: i.component, outputId: i.id, toComponentId: c.id });
        return links;
      },
      consoleHistory: () => history.read(),
    },
    Subscription: {
      componentBufferFills: {
        subscribe: (_root: unknown, args: { interval: number }) =>
          toAsyncIterator(
            defer(() => {
              checkInterval(args.interval);
              return timer(0, args.interval, opts.scheduler);
            }).pipe(map(() => ({ componentBufferFills: bufferFills(opts.topology.registry) }))),
            opts.queueCapacity,
          ),
      },
    },
  });
};
