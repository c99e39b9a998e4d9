/**
 * The live web console (`GET /`): a page, its script and the graph layout library, all served
 * from the package (no CDN: the machine may be offline). Everything it shows comes through the
 * GraphQL API on the same address. Beyond Vector's schema it adds the query `componentLinks` (every
 * edge, named outputs included: Vector's relations only follow default outputs) and the
 * subscription `componentBufferFills`, so the page can draw how full each sink's buffer is.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { FastifyPluginAsync } from 'fastify';
import { type SchedulerLike, defer, map, timer } from 'rxjs';
import type { MetricsRegistry } from '../../telemetry/registry.js';
import { type ApiTopology, recordsOf } from '../component-index.js';
import { toAsyncIterator } from '../async-queue.js';
import { checkInterval } from '../ticks.js';
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
extend type Query {
  "Every edge of the running topology (weir's extension of the schema)."
  componentLinks: [ComponentLink!]!
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

/** Serves the console's page, script and layout library, and adds `componentLinks` and `componentBufferFills` to the schema. */
export const consolePlugin: FastifyPluginAsync<ConsolePluginOptions> = async (app, opts) => {
  const dagre = dagreScript();
  const script = browserScript();
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
