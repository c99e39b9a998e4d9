/**
 * The management API (Vector's GraphQL API surface): one Fastify plugin with mercurius serving
 * `GET /health`, `POST /graphql` (always 200, failures under `errors`), subscriptions over a
 * WebSocket at `/graphql` (the legacy `graphql-ws` protocol when the client names none, as
 * Vector's own clients do, or `graphql-transport-ws`), `GET /playground`, and the web console at
 * `GET /` (console/plugin.ts). No authentication: keep the address on loopback.
 */
import Fastify, { type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import mercurius, { type IResolvers } from 'mercurius';
import { type GraphQLSchema, parse, specifiedRules, validate } from 'graphql';
import { ComponentChanges, type ApiDeps, buildResolvers } from './resolvers.js';
import { consolePlugin } from './console/plugin.js';
import { playgroundHtml } from './playground.js';
import { schemaSDL } from './schema.js';

/** The `api` table of the global options. */
export interface ApiOptions {
  readonly address: string;
  readonly playground: boolean;
  readonly graphql: boolean;
}

/** Running → 200 `{"ok":true}`; starting or shutting down → 503 `{"ok":false}`. */
export type ApiState = 'starting' | 'running' | 'stopping';

/** What the plugin needs: the options, the resolvers' inputs and the state /health reports. */
export interface ApiPluginOptions {
  readonly api: ApiOptions;
  readonly deps: ApiDeps;
  readonly state: () => ApiState;
}

/** Seconds between keep-alive messages on subscription sockets. */
const KEEP_ALIVE_MS = 30_000;

/** The API routes on an existing Fastify instance. */
export const apiPlugin: FastifyPluginAsync<ApiPluginOptions> = async (app, opts) => {
  // CORS as Vector answers it: any origin, GET and POST; preflights answered here
  app.addHook('onRequest', async (_req, reply) => {
    reply.header('access-control-allow-origin', '*');
  });
  app.options('*', async (req, reply) =>
    reply
      .header('access-control-allow-methods', 'GET, POST')
      .header('access-control-allow-headers', req.headers['access-control-request-headers'] ?? 'content-type')
      .header('access-control-max-age', '86400')
      .code(204)
      .send(),
  );

  app.all('/health', async (_req, reply) => {
    const ok = opts.state() === 'running';
    return reply.code(ok ? 200 : 503).type('application/json').send({ ok });
  });

  if (!opts.api.graphql) return;

  const changes = new ComponentChanges(opts.deps.topology);
  app.addHook('onClose', async () => changes.close());
  await app.register(mercurius, {
    schema: schemaSDL,
    resolvers: buildResolvers(opts.deps, changes) as unknown as IResolvers,
    path: '/graphql',
    graphiql: false,
    subscription: { wsDefaultSubprotocol: 'graphql-ws', keepAlive: KEEP_ALIVE_MS },
    // 200 for every processed query (as Vector's API answers), failures under `errors`
    errorFormatter: (execution, ctx) => ({ ...mercurius.defaultErrorFormatter(execution, ctx), statusCode: 200 }),
  });
  // subscriptions over the socket skip validation in mercurius; they get the same rules as POST
  app.graphql.addHook('preSubscriptionParsing', async (schema: GraphQLSchema, source: string) => {
    const errors = validate(schema, parse(source), specifiedRules);
    if (errors.length > 0) throw new Error(errors.map((e) => e.message).join('; '));
  });

  if (opts.api.playground) app.get('/playground', async (_req, reply) => reply.type('text/html; charset=utf-8').send(playgroundHtml));
  await app.register(consolePlugin, { topology: opts.deps.topology, scheduler: opts.deps.scheduler, queueCapacity: opts.deps.queueCapacity ?? 10 });
};

/** `host:port`, `[v6]:port`. */
export function parseAddress(address: string): { host: string; port: number } {
  const i = address.lastIndexOf(':');
  const port = Number(address.slice(i + 1));
  const host = address.slice(0, i).replace(/^\[(.*)\]$/, '$1');
  if (i <= 0 || !Number.isInteger(port) || port < 0 || port > 65535 || host === '') throw new Error(`api.address: expected host:port, got "${address}"`);
  return { host, port };
}

/** A listening API server and the switch `/health` reads. */
export class ApiServer {
  private state: ApiState = 'starting';
  private constructor(
    readonly app: FastifyInstance,
    readonly port: number,
  ) {}

  /** Listens on `api.address`; a taken address fails with a message naming it. */
  static async start(api: ApiOptions, deps: ApiDeps): Promise<ApiServer> {
    const { host, port } = parseAddress(api.address);
    const app = Fastify({ logger: false });
    let server: ApiServer | undefined;
    await app.register(apiPlugin, { api, deps, state: () => server?.state ?? 'starting' });
    try {
      await app.listen({ host, port });
    } catch (err) {
      await app.close();
      const e = err as NodeJS.ErrnoException;
      if (e.code === 'EADDRINUSE') throw new Error(`api.address: ${api.address} is already in use; stop the other process or set another api.address`);
      if (e.code === 'EADDRNOTAVAIL' || e.code === 'EACCES') throw new Error(`api.address: cannot listen on ${api.address} (${e.code})`);
      throw err;
    }
    const bound = app.server.address();
    server = new ApiServer(app, typeof bound === 'object' && bound ? bound.port : port);
    return server;
  }

  /** `/health` answers 200 from now on. */
  markRunning(): void {
    if (this.state === 'starting') this.state = 'running';
  }
  /** `/health` answers 503 from now on (spec: once shutdown begins). */
  beginShutdown(): void {
    this.state = 'stopping';
  }
  /** Closes the listener and every subscription socket. */
  async close(): Promise<void> {
    this.state = 'stopping';
    await this.app.close();
  }
}
