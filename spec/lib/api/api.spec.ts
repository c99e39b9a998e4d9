/**
 * The management API against a running topology: every Vector client document validates against
 * the served schema (by introspection) and answers with exact values after a known number of
 * events; the HTTP surface (health, errors as 200, playground, CORS, a taken address).
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { type IntrospectionQuery, buildClientSchema, getIntrospectionQuery, parse, specifiedRules, validate } from 'graphql';
import { asyncScheduler } from 'rxjs';
import { ApiServer } from '../../../lib/api/server.js';
import { configFromObject } from '../../../lib/config/load.js';
import { EventMetadata, LogEvent } from '../../../lib/event.js';
import { LogRoot } from '../../../lib/log.js';
import { Topology } from '../../../lib/topology/topology.js';
import { collected, feeds, testCatalog } from '../../helpers/test-components.js';
import { until } from '../../helpers/wait.js';
import { vectorDoc, vectorDocs } from '../../helpers/vector-graphql.js';

const quiet = () => new LogRoot('error', { write() {} });
const count = (id: string) => (collected.get(id) ?? []).reduce((n, b) => n + b.length, 0);
const doc = vectorDoc;
const documents = vectorDocs;

/** The known topology: in -> t -> out, in + idle -> raw. */
const CONFIG = {
  sources: { in: { type: 'test_feed' }, idle: { type: 'test_never' } },
  transforms: { t: { type: 'remap', inputs: ['in'], source: '.tagged = true' } },
  sinks: { out: { type: 'test_collect', inputs: ['t'] }, raw: { type: 'test_collect', inputs: ['in', 'idle'] } },
};

describe('management API (queries and HTTP)', function () {
  this.timeout(60_000);
  let topo: Topology;
  let api: ApiServer;
  let base: string;

  const post = async (query: string, variables: Record<string, unknown> = {}) => {
    const res = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
    return { status: res.status, body: (await res.json()) as { data: any; errors?: { message: string }[] } };
  };

  before(async () => {
    collected.clear();
    feeds.clear();
    topo = new Topology({ log: quiet() });
    api = await ApiServer.start({ address: '127.0.0.1:0', playground: true, graphql: true }, { topology: topo, scheduler: asyncScheduler, startedAt: Date.now(), version: '9.9.9', hostname: 'test-host' });
    base = `http://127.0.0.1:${api.port}`;
    await topo.start(configFromObject(CONFIG, testCatalog));
    api.markRunning();
    feeds.get('in')!.next([1, 2, 3, 4, 5].map((i) => new LogEvent({ message: `m${i}` }, new EventMetadata('in', 'test_feed'))));
    await until(() => count('out') === 5 && count('raw') === 5, 20_000, 'five events at both sinks');
  });
  after(async () => {
    await api.close();
    await topo.stop(1000);
  });

  it('serves a schema every Vector client document validates against (introspection), except the stale one', async () => {
    const { body } = await post(getIntrospectionQuery());
    const schema = buildClientSchema(body.data as IntrospectionQuery);
    const docs = documents();
    expect(docs.size).to.equal(24);
    for (const [rel, text] of docs) {
      const errors = validate(schema, parse(text), specifiedRules).map((e) => e.message);
      if (rel.endsWith('processed_bytes_throughput.graphql')) {
        expect(errors, rel).to.have.length(1);
        expect(errors[0], rel).to.match(/^Cannot query field "processedBytesThroughput" on type "Subscription"\./);
      }
      else expect(errors, rel).to.deep.equal([]);
    }
    expect(schema.getMutationType()).to.equal(null);
    expect(schema.getQueryType()!.getFields().hostMetrics).to.equal(undefined);
  });

  it('answers health and meta (POST and GET)', async () => {
    expect((await post(doc('queries/health.graphql'))).body).to.deep.equal({ data: { health: true } });
    const get = await fetch(`${base}/graphql?query=${encodeURIComponent('{ health }')}`);
    expect([get.status, await get.json()]).to.deep.equal([200, { data: { health: true } }]);
    expect((await post(doc('queries/meta_version_string.graphql'))).body).to.deep.equal({ data: { meta: { versionString: '9.9.9' } } });
    expect((await post('{ meta { hostname } }')).body.data.meta.hostname).to.equal('test-host');
  });

  it('answers the components query of top with exact totals after five events', async () => {
    const { status, body } = await post(doc('queries/components.graphql'), { first: 32767 });
    expect(status).to.equal(200);
    expect(body.errors).to.equal(undefined);
    const byId = Object.fromEntries((body.data.components.edges as { node: { componentId: string } }[]).map((e) => [e.node.componentId, e.node]));
    expect(Object.keys(byId).sort()).to.deep.equal(['idle', 'in', 'out', 'raw', 't']);
    expect(byId.in).to.deep.equal({
      __typename: 'Source',
      componentId: 'in',
      componentType: 'test_feed',
      outputs: [{ outputId: '_default', sentEventsTotal: { sentEventsTotal: 5 } }],
      metrics: { __typename: 'GenericSourceMetrics', receivedBytesTotal: null, receivedEventsTotal: { receivedEventsTotal: 5 }, sentEventsTotal: { sentEventsTotal: 5 } },
    });
    expect(byId.idle).to.deep.include({ __typename: 'Source', componentType: 'test_never' });
    expect((byId.idle as any).metrics.receivedEventsTotal).to.deep.equal({ receivedEventsTotal: 0 });
    expect(byId.t).to.deep.equal({
      __typename: 'Transform',
      componentId: 't',
      componentType: 'remap',
      outputs: [{ outputId: '_default', sentEventsTotal: { sentEventsTotal: 5 } }],
      metrics: { __typename: 'GenericTransformMetrics', receivedEventsTotal: { receivedEventsTotal: 5 }, sentEventsTotal: { sentEventsTotal: 5 } },
    });
    expect(byId.out).to.deep.equal({
      __typename: 'Sink',
      componentId: 'out',
      componentType: 'test_collect',
      metrics: { __typename: 'GenericSinkMetrics', receivedEventsTotal: { receivedEventsTotal: 5 }, sentBytesTotal: { sentBytesTotal: 0 }, sentEventsTotal: { sentEventsTotal: 5 } },
    });
    expect((byId.raw as any).metrics.sentEventsTotal).to.deep.equal({ sentEventsTotal: 5 });
  });

  it('answers componentByComponentKey, null for an unknown id', async () => {
    const q = doc('tests/queries/component_by_component_key.graphql');
    expect((await post(q, { componentId: 't' })).body.data).to.deep.equal({ componentByComponentKey: { __typename: 'Transform', componentId: 't' } });
    expect((await post(q, { componentId: 'nope' })).body.data).to.deep.equal({ componentByComponentKey: null });
  });

  it('answers the component links', async () => {
    const { body } = await post(doc('tests/queries/component_links.graphql'), { first: 100 });
    const ids = (l: { componentId: string }[]) => l.map((c) => c.componentId).sort();
    const nodes = (k: string) => Object.fromEntries((body.data[k].edges as { node: any }[]).map((e) => [e.node.componentId, e.node]));
    const sources = nodes('sources');
    expect(ids(sources.in.transforms)).to.deep.equal(['t']);
    expect(ids(sources.in.sinks)).to.deep.equal(['raw']);
    expect(ids(sources.idle.sinks)).to.deep.equal(['raw']);
    const t = nodes('transforms').t;
    expect([ids(t.sources), ids(t.transforms), ids(t.sinks)]).to.deep.equal([['in'], [], ['out']]);
    const sinks = nodes('sinks');
    expect([ids(sinks.raw.sources), ids(sinks.raw.transforms)]).to.deep.equal([['idle', 'in'], []]);
    expect([ids(sinks.out.sources), ids(sinks.out.transforms)]).to.deep.equal([[], ['t']]);
  });

  it('pages components with cursors, first, last, after and before', async () => {
    const q = doc('tests/queries/components_connection.graphql');
    const page = async (vars: Record<string, unknown>) => (await post(q, vars)).body.data.components;
    const cursor = (i: number) => Buffer.from(`Cursor:${i}`).toString('base64url');
    const first2 = await page({ first: 2 });
    expect(first2.totalCount).to.equal(5);
    expect(first2.edges.map((e: { cursor: string }) => e.cursor)).to.deep.equal([cursor(0), cursor(1)]);
    expect(first2.pageInfo).to.deep.equal({ hasNextPage: true, hasPreviousPage: false, startCursor: cursor(0), endCursor: cursor(1) });
    const next = await page({ first: 2, after: first2.pageInfo.endCursor });
    expect(next.edges.map((e: { cursor: string }) => e.cursor)).to.deep.equal([cursor(2), cursor(3)]);
    expect(next.pageInfo.hasPreviousPage).to.equal(true);
    const last = await page({ last: 2 });
    expect(last.edges.map((e: { cursor: string }) => e.cursor)).to.deep.equal([cursor(3), cursor(4)]);
    expect(last.pageInfo).to.deep.include({ hasNextPage: false, hasPreviousPage: true });
    const before = await page({ last: 1, before: cursor(2) });
    expect(before.edges.map((e: { cursor: string }) => e.cursor)).to.deep.equal([cursor(1)]);
    const all = await page({});
    expect(all.edges).to.have.length(5); // default page size 10
  });

  it('filters and sorts', async () => {
    const { body } = await post(`{
      byKind: components(sort: [{field: COMPONENT_KIND, direction: DESC}, {field: COMPONENT_KEY}]) { nodes { componentId } }
      sinksOnly: components(filter: {componentKind: [{equals: SINK}]}, sort: [{field: COMPONENT_KEY}]) { totalCount nodes { componentId } }
      either: components(filter: {componentId: [{equals: "t"}], or: [{componentId: [{startsWith: "o"}]}]}, sort: [{field: COMPONENT_KEY}]) { nodes { componentId } }
      logSources: sources(filter: {outputType: [{contains: LOG}], componentType: [{notEquals: "test_never"}]}) { nodes { componentId outputTypes } }
      byType: sinks(filter: {componentId: [{endsWith: "w"}]}) { nodes { componentId } }
    }`);
    expect(body.errors).to.equal(undefined);
    expect(body.data.byKind.nodes.map((n: { componentId: string }) => n.componentId)).to.deep.equal(['out', 'raw', 't', 'idle', 'in']);
    expect(body.data.sinksOnly).to.deep.equal({ totalCount: 2, nodes: [{ componentId: 'out' }, { componentId: 'raw' }] });
    expect(body.data.either.nodes).to.deep.equal([{ componentId: 'out' }, { componentId: 't' }]);
    expect(body.data.logSources.nodes).to.deep.equal([{ componentId: 'in', outputTypes: ['LOG'] }]);
    expect(body.data.byType.nodes).to.deep.equal([{ componentId: 'raw' }]);
  });

  it('answers the file source metrics query (no file sources: generic metrics only)', async () => {
    const { body } = await post(doc('tests/queries/file_source_metrics.graphql'), { first: 10 });
    expect(body.errors).to.equal(undefined);
    expect(body.data.sources.__typename).to.equal('SourceConnection');
    expect(body.data.sources.edges.map((e: { node: { metrics: unknown } }) => e.node.metrics)).to.deep.equal([{ __typename: 'GenericSourceMetrics' }, { __typename: 'GenericSourceMetrics' }]);
  });

  it('returns 200 with errors for invalid, unparsable and bad-cursor queries', async () => {
    for (const q of ['{ nope }', '{', '{ components(after: "bad") { totalCount } }']) {
      const { status, body } = await post(q);
      expect(status, q).to.equal(200);
      expect(body.errors, q).to.be.an('array').that.is.not.empty;
    }
    const res = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json' });
    expect(res.status).to.equal(200);
    expect(((await res.json()) as { errors: unknown[] }).errors).to.be.an('array').that.is.not.empty;
  });

  it('serves /health, /playground, the console at GET / and CORS; others are 404', async () => {
    const h = await fetch(`${base}/health`);
    expect(h.status).to.equal(200);
    expect(h.headers.get('content-type')).to.match(/^application\/json/);
    expect(await h.json()).to.deep.equal({ ok: true });
    const p = await fetch(`${base}/playground`);
    expect(p.status).to.equal(200);
    expect(await p.text()).to.include('/graphql');
    expect((await fetch(`${base}/`)).headers.get('content-type')).to.match(/^text\/html/);
    const script = await fetch(`${base}/console/app.js`);
    expect(script.headers.get('content-type')).to.match(/^text\/javascript/);
    expect(await script.text()).to.equal(readFileSync(new URL('../../../lib/api/console/browser/console.js', import.meta.url), 'utf8'));
    expect((await fetch(`${base}/graphiql`)).status).to.equal(404);
    const pre = await fetch(`${base}/graphql`, { method: 'OPTIONS', headers: { origin: 'http://elsewhere', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });
    expect(pre.status).to.equal(204);
    expect(pre.headers.get('access-control-allow-origin')).to.equal('*');
    expect(pre.headers.get('access-control-allow-methods')).to.equal('GET, POST');
    const cors = await fetch(`${base}/graphql`, { method: 'POST', headers: { origin: 'http://elsewhere', 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ health }' }) });
    expect(cors.headers.get('access-control-allow-origin')).to.equal('*');
  });

  it('answers 503 on /health once shutdown begins', async () => {
    const other = await ApiServer.start({ address: '127.0.0.1:0', playground: false, graphql: true }, { topology: topo, scheduler: asyncScheduler, startedAt: Date.now(), version: 'x', hostname: 'h' });
    const url = `http://127.0.0.1:${other.port}`;
    try {
      expect((await fetch(`${url}/health`)).status).to.equal(503); // still starting
      other.markRunning();
      expect((await fetch(`${url}/health`)).status).to.equal(200);
      expect((await fetch(`${url}/playground`)).status).to.equal(404); // playground = false
      other.beginShutdown();
      const r = await fetch(`${url}/health`);
      expect(r.status).to.equal(503);
      expect(await r.json()).to.deep.equal({ ok: false });
    } finally {
      await other.close();
    }
  });

  it('serves neither /graphql nor /playground with graphql = false', async () => {
    const other = await ApiServer.start({ address: '127.0.0.1:0', playground: true, graphql: false }, { topology: topo, scheduler: asyncScheduler, startedAt: Date.now(), version: 'x', hostname: 'h' });
    const url = `http://127.0.0.1:${other.port}`;
    try {
      other.markRunning();
      expect((await fetch(`${url}/health`)).status).to.equal(200);
      expect((await fetch(`${url}/playground`)).status).to.equal(404);
      expect((await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ health }"}' })).status).to.equal(404);
    } finally {
      await other.close();
    }
  });

  it('names api.address when the address is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      let err: Error | undefined;
      try {
        await ApiServer.start({ address: `127.0.0.1:${port}`, playground: true, graphql: true }, { topology: topo, scheduler: asyncScheduler, startedAt: 0, version: 'x', hostname: 'h' });
      } catch (e) {
        err = e as Error;
      }
      expect(err?.message).to.equal(`api.address: 127.0.0.1:${port} is already in use; stop the other process or set another api.address`);
    } finally {
      await new Promise((r) => blocker.close(r));
    }
  });
});
