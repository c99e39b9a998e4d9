import { expect } from 'chai';
import { gzipSync } from 'node:zlib';
import * as grpc from '@grpc/grpc-js';
import { context, trace, TraceFlags } from '@opentelemetry/api';
import * as v from 'valibot';
import { REQUEST_HOLD_TIMEOUT_MS } from '../../../../connectors/shared/source/index.js';
import { OpentelemetrySourceConfig } from '../../../../connectors/sources/opentelemetry/index.js';
import { otlpLogsProto } from '../../../../connectors/sources/opentelemetry/proto.js';
import { Float, Timestamp } from '../../../../lib/value.js';
import { makeTestCerts, type TestCerts } from '../../../helpers/certs.js';
import { heldClock } from '../../../helpers/held-clock.js';
import { until } from '../../../helpers/wait.js';
import { type ExporterKind, exporterFor, sendLogs } from './exporters.js';
import { type RunningSource, startSource } from './otlp-context.js';

const proto = otlpLogsProto();
const encode = (req: object) => Buffer.from(proto.request.encode(proto.request.fromObject(req)).finish());
const oneRecord = (body: string) => ({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: body }, timeUnixNano: '1700000000000000000' }] }] }] });

interface Reply {
  status: number;
  headers: Headers;
  body: Buffer;
}
async function post(s: RunningSource, path: string, body: Buffer | string, headers: Record<string, string>, method = 'POST'): Promise<Reply> {
  const res = await fetch(`http://127.0.0.1:${s.httpPort}${path}`, { method, headers, ...(method === 'GET' ? {} : { body }) });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}
const PB = { 'content-type': 'application/x-protobuf' };
const JSONH = { 'content-type': 'application/json' };
const statusOf = (r: Reply) => proto.status.toObject(proto.status.decode(r.body)) as { code?: number; message?: string };

/** One unary call on any method path, raw bytes in and out. */
function grpcCall(port: number, path: string, body: Buffer, creds = grpc.credentials.createInsecure()): Promise<{ err: grpc.ServiceError | null; res?: Buffer }> {
  const client = new grpc.Client(`127.0.0.1:${port}`, creds);
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      path,
      (b: Buffer) => b,
      (b: Buffer) => b,
      body,
      (err, res) => {
        client.close();
        resolve({ err, res });
      },
    );
  });
}
const EXPORT = '/opentelemetry.proto.collector.logs.v1.LogsService/Export';

describe('opentelemetry source', function () {
  this.timeout(60_000);
  let s: RunningSource;
  afterEach(async () => {
    await s?.stop();
  });

  describe('with the official exporters', () => {
    for (const kind of ['http-json', 'http-json-gzip', 'http-proto', 'http-proto-gzip', 'grpc', 'grpc-gzip'] as ExporterKind[]) {
      it(`${kind}: every field of a record arrives on the logs output`, async () => {
        s = await startSource();
        const span = trace.setSpanContext(context.active(), { traceId: '5b8efff798038103d269b633813fc60c', spanId: 'eee19b7ec3c1b174', traceFlags: TraceFlags.SAMPLED });
        await sendLogs(
          exporterFor(kind, s),
          [
            {
              body: { text: 'GET /', codes: [200, 404] },
              severityNumber: 17,
              severityText: 'ERROR',
              attributes: { 'http.method': 'GET', n: 3, ratio: 0.5, ok: true },
              timestamp: 1700000000123,
              observedTimestamp: 1700000000456,
              context: span,
            },
          ],
          { scope: 'scope-a', version: '1.0.0' },
        );
        await until(() => s.events().length === 1, 10_000, 'one event');
        expect(s.batches[0]!.output).to.equal('logs');
        const f = s.events()[0]!.fields;
        expect(Object.keys(f)).to.deep.equal([
          'message', 'scope', 'resources', 'attributes', 'trace_id', 'span_id', 'severity_text', 'severity_number', 'flags', 'dropped_attributes_count', 'observed_timestamp', 'timestamp', 'source_type',
        ]);
        expect(f.message).to.deep.equal({ text: 'GET /', codes: [200, 404] });
        expect(f.scope).to.deep.equal({ name: 'scope-a', version: '1.0.0' });
        expect((f.resources as Record<string, unknown>)['service.name']).to.equal('weir-test');
        const attrs = f.attributes as Record<string, unknown>;
        expect(attrs['http.method']).to.equal('GET');
        expect(attrs.n).to.equal(3);
        expect(attrs.ok).to.equal(true);
        expect((attrs.ratio as Float).value).to.equal(0.5);
        expect(f.trace_id).to.equal('5b8efff798038103d269b633813fc60c');
        expect(f.span_id).to.equal('eee19b7ec3c1b174');
        expect(f.severity_text).to.equal('ERROR');
        expect(f.severity_number).to.equal(17);
        expect(f.flags).to.equal(1);
        expect(f.dropped_attributes_count).to.equal(0);
        expect(String(f.timestamp)).to.equal('2023-11-14T22:13:20.123Z');
        expect(String(f.observed_timestamp)).to.equal('2023-11-14T22:13:20.456Z');
        expect(f.source_type).to.equal('opentelemetry');
        const protocol = kind.startsWith('grpc') ? 'grpc' : 'http';
        expect(s.metric('component_received_bytes_total', { protocol })).to.be.greaterThan(50);
        expect(s.metric('source_lag_time_seconds')).to.equal(1);
      });
    }

    it('a batch of 500 records arrives as 500 events, once each', async () => {
      s = await startSource();
      const records = Array.from({ length: 500 }, (_, i) => ({ body: `r${i}` }));
      await sendLogs(exporterFor('http-proto', s), records, { batch: true });
      await sendLogs(exporterFor('grpc', s), records, { batch: true });
      await until(() => s.events().length === 1000, 10_000, '1000 events');
      const bodies = s.events().map((e) => e.fields.message as string);
      expect(new Set(bodies.slice(0, 500)).size).to.equal(500);
      expect(new Set(bodies.slice(500)).size).to.equal(500);
    });
  });

  describe('protocol answers', () => {
    it('200 with an empty ExportLogsServiceResponse, in the request format', async () => {
      s = await startSource();
      const pb = await post(s, '/v1/logs', encode(oneRecord('a')), PB);
      expect(pb.status).to.equal(200);
      expect(pb.headers.get('content-type')).to.equal('application/x-protobuf');
      expect(pb.body.length).to.equal(0);
      const js = await post(s, '/v1/logs', JSON.stringify(oneRecord('b')), { 'content-type': 'application/json; charset=utf-8' });
      expect(js.status).to.equal(200);
      expect(js.headers.get('content-type')).to.equal('application/json');
      expect(JSON.parse(js.body.toString())).to.deep.equal({});
      expect(s.events().map((e) => e.fields.message)).to.deep.equal(['a', 'b']);
    });

    it('partial success: refused records are counted and reported, the rest emitted', async () => {
      s = await startSource();
      const req = { resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: 'good' } }, { traceId: 'abcd' }] }] }] };
      const js = await post(s, '/v1/logs', JSON.stringify(req), JSONH);
      expect(js.status).to.equal(200);
      const body = JSON.parse(js.body.toString());
      expect(body.partialSuccess.rejectedLogRecords).to.equal('1');
      expect(body.partialSuccess.errorMessage).to.match(/trace id/);
      const pbReq = { resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: 'good2' } }, { spanId: Buffer.from('01', 'hex') }, { spanId: Buffer.from('02', 'hex') }] }] }] };
      const pb = await post(s, '/v1/logs', encode(pbReq), PB);
      const decoded = proto.response.toObject(proto.response.decode(pb.body), { longs: Number }) as { partialSuccess: { rejectedLogRecords: number; errorMessage: string } };
      expect(decoded.partialSuccess.rejectedLogRecords).to.equal(2);
      const g = await grpcCall(s.grpcPort, EXPORT, encode(pbReq));
      expect(g.err).to.equal(null);
      expect((proto.response.toObject(proto.response.decode(g.res!), { longs: Number }) as { partialSuccess: { rejectedLogRecords: number } }).partialSuccess.rejectedLogRecords).to.equal(2);
      expect(s.events().map((e) => e.fields.message)).to.deep.equal(['good', 'good2', 'good2']);
      expect(s.metric('component_discarded_events_total')).to.equal(5);
    });

    it('refuses traces and metrics: HTTP 404, gRPC UNIMPLEMENTED; the source goes on', async () => {
      s = await startSource();
      for (const path of ['/v1/traces', '/v1/metrics']) {
        const r = await post(s, path, Buffer.alloc(0), PB);
        expect(r.status).to.equal(404);
        expect(statusOf(r).code).to.equal(12);
        expect(statusOf(r).message).to.match(/logs only/);
      }
      expect((await post(s, '/other', '', PB)).status).to.equal(404);
      for (const path of ['/opentelemetry.proto.collector.trace.v1.TraceService/Export', '/opentelemetry.proto.collector.metrics.v1.MetricsService/Export']) {
        const g = await grpcCall(s.grpcPort, path, Buffer.alloc(0));
        expect(g.err?.code).to.equal(grpc.status.UNIMPLEMENTED);
      }
      expect((await post(s, '/v1/logs', encode(oneRecord('after')), PB)).status).to.equal(200);
      expect((await grpcCall(s.grpcPort, EXPORT, encode(oneRecord('after2')))).err).to.equal(null);
      expect(s.events().map((e) => e.fields.message)).to.deep.equal(['after', 'after2']);
    });

    it('405 for other methods, 415 for other content types and encodings', async () => {
      s = await startSource();
      const get = await post(s, '/v1/logs', '', PB, 'GET');
      expect(get.status).to.equal(405);
      expect(get.headers.get('allow')).to.equal('POST');
      expect((await post(s, '/v1/logs', 'x', { 'content-type': 'text/plain' })).status).to.equal(415);
      expect((await post(s, '/v1/logs', encode(oneRecord('a')), { ...PB, 'content-encoding': 'br' })).status).to.equal(415);
      expect(s.events()).to.have.length(0);
    });
  });

  describe('malformed input is counted, answered and never stops the source', () => {
    it('garbage protobuf, bad JSON, wrong JSON shape, bad gzip: 400 with a Status body', async () => {
      s = await startSource();
      const garbage = Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]);
      const r1 = await post(s, '/v1/logs', garbage, PB);
      expect(r1.status).to.equal(400);
      expect(statusOf(r1).message).to.match(/^Could not decode request/);
      const r2 = await post(s, '/v1/logs', '{"resourceLogs": [', JSONH);
      expect(r2.status).to.equal(400);
      expect(JSON.parse(r2.body.toString()).code).to.equal(3);
      expect((await post(s, '/v1/logs', '{"resourceLogs": 5}', JSONH)).status).to.equal(400);
      expect((await post(s, '/v1/logs', Buffer.from('not gzip at all'), { ...PB, 'content-encoding': 'gzip' })).status).to.equal(400);
      // a truncated gzip member
      expect((await post(s, '/v1/logs', gzipSync(encode(oneRecord('x'))).subarray(0, 12), { ...PB, 'content-encoding': 'gzip' })).status).to.equal(400);
      const g = await grpcCall(s.grpcPort, EXPORT, garbage);
      expect(g.err?.code).to.equal(grpc.status.INVALID_ARGUMENT);
      expect(s.metric('component_errors_total', { error_type: 'parser_failed' })).to.equal(6);
      expect(s.lines.some((l) => l.includes('WARN') && l.includes('could not be decoded'))).to.equal(true);
      expect((await post(s, '/v1/logs', gzipSync(encode(oneRecord('ok'))), { ...PB, 'content-encoding': 'gzip' })).status).to.equal(200);
      expect(s.events().map((e) => e.fields.message)).to.deep.equal(['ok']);
    });

    it('bodies and inflated bodies over max_decompressed_bytes: 413; gRPC messages over it refused', async () => {
      s = await startSource({ globals: { max_decompressed_bytes: 4096 } });
      const big = encode(oneRecord('x'.repeat(5000)));
      expect((await post(s, '/v1/logs', big, PB)).status).to.equal(413);
      // a small gzip body that inflates past the cap
      const bomb = gzipSync(big);
      expect(bomb.length).to.be.lessThan(4096);
      expect((await post(s, '/v1/logs', bomb, { ...PB, 'content-encoding': 'gzip' })).status).to.equal(413);
      const g = await grpcCall(s.grpcPort, EXPORT, big);
      expect(g.err?.code).to.equal(grpc.status.RESOURCE_EXHAUSTED);
      expect(s.metric('component_errors_total', { error_type: 'parser_failed' })).to.equal(2);
      expect((await post(s, '/v1/logs', encode(oneRecord('small')), PB)).status).to.equal(200);
      expect(s.events()).to.have.length(1);
    });
  });

  describe('backpressure: requests are held while the output is full', () => {
    const bytes = (protocol: string) => s.metric('component_received_bytes_total', { protocol });
    const turn = () => new Promise((r) => setImmediate(r));

    it('HTTP and gRPC requests wait unanswered while the gate is closed and are taken, in order, once it opens', async () => {
      const clock = heldClock();
      s = await startSource({ scheduler: clock.scheduler });
      s.gate.close();
      let answered = 0;
      const h = post(s, '/v1/logs', encode(oneRecord('a')), PB).finally(() => answered++);
      await until(() => bytes('http') > 0, 10_000, 'the HTTP body');
      const g = grpcCall(s.grpcPort, EXPORT, encode(oneRecord('b'))).finally(() => answered++);
      await until(() => bytes('grpc') > 0, 10_000, 'the gRPC message');
      clock.runTo(REQUEST_HOLD_TIMEOUT_MS - 1);
      await turn();
      expect(answered).to.equal(0);
      expect(s.events()).to.have.length(0);
      expect(s.lines.some((l) => l.includes('holding the OTLP request'))).to.equal(true);
      s.gate.open();
      expect((await h).status).to.equal(200);
      // one held request per scheduler turn: the next is taken on the following turn
      expect(s.events().map((e) => e.fields.message)).to.deep.equal(['a']);
      expect(answered).to.equal(1);
      clock.runTo(REQUEST_HOLD_TIMEOUT_MS - 1);
      expect((await g).err).to.equal(null);
      expect(s.events().map((e) => e.fields.message)).to.deep.equal(['a', 'b']);
      expect(s.lines.some((l) => l.includes('past the hold timeout'))).to.equal(false);
    });

    it('past the hold timeout: HTTP 503 with Retry-After, gRPC UNAVAILABLE, nothing emitted; the source goes on', async () => {
      const clock = heldClock();
      s = await startSource({ scheduler: clock.scheduler });
      s.gate.close();
      const h = post(s, '/v1/logs', encode(oneRecord('a')), PB);
      const g = grpcCall(s.grpcPort, EXPORT, encode(oneRecord('b')));
      await until(() => bytes('http') > 0 && bytes('grpc') > 0, 10_000, 'both requests');
      clock.runTo(REQUEST_HOLD_TIMEOUT_MS);
      const r = await h;
      expect(r.status).to.equal(503);
      expect(r.headers.get('retry-after')).to.equal('1');
      expect(statusOf(r).code).to.equal(14);
      expect((await g).err?.code).to.equal(grpc.status.UNAVAILABLE);
      expect(s.events()).to.have.length(0);
      s.gate.open();
      await turn();
      expect(s.events()).to.have.length(0);
      expect((await post(s, '/v1/logs', encode(oneRecord('c')), PB)).status).to.equal(200);
      expect(s.events().map((e) => e.fields.message)).to.deep.equal(['c']);
    });

    it('a client that goes away while held (HTTP abort, gRPC deadline) has nothing emitted when the gate opens', async () => {
      s = await startSource();
      s.gate.close();
      const abort = new AbortController();
      const h = fetch(`http://127.0.0.1:${s.httpPort}/v1/logs`, { method: 'POST', headers: PB, body: encode(oneRecord('gone-http')), signal: abort.signal }).catch(() => 'aborted');
      await until(() => bytes('http') > 0, 10_000, 'the HTTP body');
      abort.abort();
      expect(await h).to.equal('aborted');
      const client = new grpc.Client(`127.0.0.1:${s.grpcPort}`, grpc.credentials.createInsecure());
      const g = await new Promise<grpc.ServiceError | null>((resolve) =>
        client.makeUnaryRequest(EXPORT, (b: Buffer) => b, (b: Buffer) => b, encode(oneRecord('gone-grpc')), { deadline: Date.now() + 300 }, (err) => resolve(err)),
      );
      client.close();
      expect(g?.code).to.equal(grpc.status.DEADLINE_EXCEEDED);
      await until(() => s.lines.some((l) => l.includes('went away') && l.includes('protocol=grpc')) && s.lines.some((l) => l.includes('went away') && l.includes('protocol=http')), 10_000, 'both abandoned');
      s.gate.open();
      expect((await post(s, '/v1/logs', encode(oneRecord('after')), PB)).status).to.equal(200);
      expect(s.events().map((e) => e.fields.message)).to.deep.equal(['after']);
    });

    for (const kind of ['http-proto', 'http-json', 'grpc'] as ExporterKind[]) {
      it(`${kind}: the official exporter's request is held while the gate is closed; the record arrives once when it opens`, async () => {
        s = await startSource();
        s.gate.close();
        let done = false;
        const sent = sendLogs(exporterFor(kind, s), [{ body: 'held' }]).then(() => (done = true));
        await until(() => bytes(kind.startsWith('grpc') ? 'grpc' : 'http') > 0, 10_000, 'the request');
        await turn();
        expect(done).to.equal(false);
        s.gate.open();
        await sent;
        expect(s.events().map((e) => e.fields.message)).to.deep.equal(['held']);
      });
    }

    it('http-proto: refused past the hold timeout, the official exporter retries after Retry-After and the record arrives once', async () => {
      const clock = heldClock();
      s = await startSource({ scheduler: clock.scheduler });
      s.gate.close();
      const sent = sendLogs(exporterFor('http-proto', s), [{ body: 'retried' }]);
      await until(() => bytes('http') > 0, 10_000, 'the first request');
      const first = bytes('http');
      clock.runTo(REQUEST_HOLD_TIMEOUT_MS);
      await until(() => s.lines.some((l) => l.includes('past the hold timeout')), 10_000, 'a refused request');
      await until(() => bytes('http') >= 2 * first, 10_000, 'the retry');
      s.gate.open();
      await sent;
      expect(s.events().map((e) => e.fields.message)).to.deep.equal(['retried']);
    });
  });

  describe('end-to-end acknowledgements', () => {
    it('answers only once the events are delivered', async () => {
      s = await startSource({ acknowledgements: true });
      let answered = false;
      const pending = post(s, '/v1/logs', encode(oneRecord('a')), PB).then((r) => ((answered = true), r));
      const g = grpcCall(s.grpcPort, EXPORT, encode(oneRecord('b')));
      await until(() => s.events().length === 2, 10_000, 'two events');
      await new Promise((r) => setImmediate(r));
      expect(answered).to.equal(false);
      s.settle('delivered');
      expect((await pending).status).to.equal(200);
      expect((await g).err).to.equal(null);
    });

    it('failed delivery: HTTP 500, gRPC INTERNAL (errored) or DATA_LOSS (rejected)', async () => {
      s = await startSource({ acknowledgements: true });
      const h = post(s, '/v1/logs', encode(oneRecord('a')), PB);
      const g = grpcCall(s.grpcPort, EXPORT, encode(oneRecord('b')));
      await until(() => s.events().length === 2, 10_000, 'two events');
      s.settle('errored');
      const r = await h;
      expect(r.status).to.equal(500);
      expect(statusOf(r).message).to.match(/Delivery failed/);
      expect((await g).err?.code).to.equal(grpc.status.INTERNAL);
      const g2 = grpcCall(s.grpcPort, EXPORT, encode(oneRecord('c')));
      await until(() => s.events().length === 3, 10_000, 'three events');
      s.settle('rejected');
      expect((await g2).err?.code).to.equal(grpc.status.DATA_LOSS);
      expect(s.metric('component_errors_total', { error_type: 'acknowledgements_failed' })).to.equal(3);
    });

    it('acknowledgements.enabled on the source is accepted with a deprecation warning', async () => {
      s = await startSource({ extra: { acknowledgements: { enabled: true } } });
      expect(s.lines.some((l) => l.includes('WARN') && l.includes('deprecated'))).to.equal(true);
    });
  });

  describe('TLS', () => {
    let certs: TestCerts;
    before(() => (certs = makeTestCerts()));
    after(() => certs.remove());

    it('each listener serves TLS with its own identity; the exporters connect with the CA', async () => {
      const tls = { enabled: true, crt_file: certs.serverCrt, key_file: certs.serverKey };
      s = await startSource({ http: { tls }, grpc: { tls } });
      const ca = certs.read(certs.caCrt);
      await sendLogs(exporterFor('http-proto', s, { ca }), [{ body: 'over https' }]);
      await sendLogs(exporterFor('grpc', s, { ca }), [{ body: 'over grpc tls' }]);
      expect(s.events().map((e) => e.fields.message)).to.deep.equal(['over https', 'over grpc tls']);
      // a plain client cannot talk to either listener
      await fetch(`http://127.0.0.1:${s.httpPort}/v1/logs`, { method: 'POST', headers: PB, body: encode(oneRecord('x')) }).then(
        () => expect.fail('plain HTTP was answered'),
        () => undefined,
      );
      expect((await grpcCall(s.grpcPort, EXPORT, encode(oneRecord('x')))).err?.code).to.equal(grpc.status.UNAVAILABLE);
    });

    it('TLS on one listener only leaves the other plain', async () => {
      s = await startSource({ grpc: { tls: { enabled: true, crt_file: certs.serverCrt, key_file: certs.serverKey } } });
      expect((await post(s, '/v1/logs', encode(oneRecord('plain http')), PB)).status).to.equal(200);
      expect((await grpcCall(s.grpcPort, EXPORT, encode(oneRecord('x')))).err?.code).to.equal(grpc.status.UNAVAILABLE);
    });

    it('verify_certificate requires a client certificate from ca_file on gRPC', async () => {
      s = await startSource({ grpc: { tls: { enabled: true, crt_file: certs.serverCrt, key_file: certs.serverKey, ca_file: certs.caCrt, verify_certificate: true } } });
      const ca = certs.read(certs.caCrt);
      const without = await grpcCall(s.grpcPort, EXPORT, encode(oneRecord('x')), grpc.credentials.createSsl(ca));
      expect(without.err).to.not.equal(null);
      const withCert = await grpcCall(s.grpcPort, EXPORT, encode(oneRecord('mtls')), grpc.credentials.createSsl(ca, certs.read(certs.clientKey), certs.read(certs.clientCrt)));
      expect(withCert.err).to.equal(null);
      expect(s.events().map((e) => e.fields.message)).to.deep.equal(['mtls']);
    });
  });
});

describe('opentelemetry source options', () => {
  const parse = (o: object) => v.safeParse(OpentelemetrySourceConfig, { type: 'opentelemetry', ...o });
  const msgs = (r: ReturnType<typeof parse>) => (r.success ? [] : r.issues.map((i) => `${i.path?.map((p) => p.key).join('.')}: ${i.message}`));

  it('both addresses are required and must include a port', () => {
    expect(parse({ grpc: { address: '0.0.0.0:4317' }, http: { address: '0.0.0.0:4318' } }).success).to.equal(true);
    expect(parse({ grpc: { address: '0.0.0.0:4317' } }).success).to.equal(false);
    expect(msgs(parse({ grpc: { address: '0.0.0.0' }, http: { address: '0.0.0.0:4318' } })).join()).to.match(/grpc\.address/);
  });

  it('tls.enabled needs an identity; client_metadata_key and gRPC alpn_protocols are refused', () => {
    expect(msgs(parse({ grpc: { address: 'a:1' }, http: { address: 'a:2', tls: { enabled: true } } })).join()).to.match(/http\.tls\.enabled: crt_file is required/);
    expect(msgs(parse({ grpc: { address: 'a:1', tls: { client_metadata_key: 'c' } }, http: { address: 'a:2' } })).join()).to.match(/client_metadata_key/);
    expect(msgs(parse({ grpc: { address: 'a:1', tls: { alpn_protocols: ['h2'] } }, http: { address: 'a:2' } })).join()).to.match(/grpc\.tls\.alpn_protocols/);
    expect(parse({ grpc: { address: 'a:1' }, http: { address: 'a:2', tls: { alpn_protocols: ['http/1.1'] } } }).success).to.equal(true);
  });
});
