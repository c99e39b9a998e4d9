import { expect } from 'chai';
import { deflateSync, gzipSync } from 'node:zlib';
import { VirtualTimeScheduler } from 'rxjs';
import { Timestamp } from '../../../../lib/value.js';
import { type TestCerts, makeTestCerts } from '../../../helpers/certs.js';
import { until } from '../../../helpers/wait.js';
import { type RunningHttpServer, startHttpServer } from './http-server-context.js';

describe('http_server source', function () {
  this.timeout(30_000);
  let s: RunningHttpServer | undefined;
  afterEach(() => {
    s?.stop();
    s = undefined;
  });

  describe('defaults', () => {
    it('takes POST / bodies line by line as messages with path, timestamp and source_type, answering 200 with no body', async () => {
      s = await startHttpServer();
      const r = await s.send({ body: 'first\nsecond\n' });
      expect(r.status).to.equal(200);
      expect(r.body).to.equal('');
      const logs = s.logs();
      expect(logs.map((e) => e.fields.message)).to.deep.equal(['first', 'second']);
      expect(logs[0]!.fields.path).to.equal('/');
      expect(logs[0]!.fields.source_type).to.equal('http_server');
      expect(logs[0]!.fields.timestamp).to.be.instanceOf(Timestamp);
      expect(logs[0]!.fields).to.not.have.property('host');
      expect(s.metric('component_received_bytes_total', { protocol: 'http', http_path: '/' })).to.equal(13);
    });

    it("counts requests, responses by status and their handling time under Vector's http_server_* names", async () => {
      s = await startHttpServer();
      await s.send({ body: 'a' });
      await s.send({ path: '/nope', body: 'b' });
      await until(() => s!.metric('http_server_responses_sent_total') === 2, 5000, 'responses counted');
      expect(s.metric('http_server_requests_received_total')).to.equal(2);
      expect(s.metric('http_server_responses_sent_total', { status: '200' })).to.equal(1);
      expect(s.metric('http_server_responses_sent_total', { status: '404' })).to.equal(1);
    });

    it('answers an empty body with 200 and emits nothing', async () => {
      s = await startHttpServer();
      expect((await s.send({ body: '' })).status).to.equal(200);
      expect(s.events()).to.have.length(0);
    });

    it('refuses other methods with 405 and answers GET /ping with pong', async () => {
      s = await startHttpServer();
      expect((await s.send({ method: 'PUT', body: 'x' })).status).to.equal(405);
      const ping = await s.send({ method: 'GET', path: '/ping' });
      expect([ping.status, ping.body]).to.deep.equal([200, 'pong']);
      expect(s.events()).to.have.length(0);
    });
  });

  describe('path, strict_path, path_key', () => {
    it('strict: only the exact path; a longer one is 404 with a JSON message', async () => {
      s = await startHttpServer({ path: '/logs' });
      expect((await s.send({ path: '/logs?x=1', body: 'a' })).status).to.equal(200);
      const deeper = await s.send({ path: '/logs/app', body: 'b' });
      expect(deeper.status).to.equal(404);
      expect(JSON.parse(deeper.body)).to.deep.equal({ code: 404, message: 'Not found' });
      expect((await s.send({ path: '/', body: 'c' })).status).to.equal(404);
      expect((await s.send({ path: '/logsx', body: 'd' })).status).to.equal(404);
      expect(s.logs().map((e) => [e.fields.message, e.fields.path])).to.deep.equal([['a', '/logs']]);
    });

    it('strict_path = false accepts every path below, by segment, recording the full path', async () => {
      s = await startHttpServer({ path: '/logs', strict_path: false });
      expect((await s.send({ path: '/logs/app/1', body: 'a' })).status).to.equal(200);
      expect((await s.send({ path: '/logsx', body: 'b' })).status).to.equal(404);
      expect(s.logs().map((e) => e.fields.path)).to.deep.equal(['/logs/app/1']);
    });

    it('path_key names the field; a field the body already has is kept; empty writes none', async () => {
      s = await startHttpServer({ path_key: 'req_path', decoding: { codec: 'json' } });
      await s.send({ body: '{"a":1}\n{"req_path":"mine"}' });
      expect(s.logs().map((e) => e.fields.req_path)).to.deep.equal(['/', 'mine']);
      expect(s.logs()[0]!.fields).to.not.have.property('path');
      s.stop();
      s = await startHttpServer({ path_key: '' });
      await s.send({ body: 'x' });
      expect(s.logs()[0]!.fields).to.not.have.property('path');
    });
  });

  describe('method and response_code', () => {
    it('method = "PUT" takes PUT and refuses POST', async () => {
      s = await startHttpServer({ method: 'PUT' });
      expect((await s.send({ method: 'POST', body: 'a' })).status).to.equal(405);
      expect((await s.send({ method: 'PUT', body: 'b' })).status).to.equal(200);
      expect(s.logs().map((e) => e.fields.message)).to.deep.equal(['b']);
    });

    it('response_code is the success status', async () => {
      s = await startHttpServer({ response_code: 202 });
      expect((await s.send({ body: 'a' })).status).to.equal(202);
    });
  });

  describe('decoding, framing and the deprecated encoding', () => {
    it('json decodes each line (newline framing by default); one bad line refuses the whole body with 400', async () => {
      s = await startHttpServer({ decoding: { codec: 'json' } });
      expect((await s.send({ body: '{"a":1}\n{"a":2}\n' })).status).to.equal(200);
      expect(s.logs().map((e) => e.fields.a)).to.deep.equal([1, 2]);
      const bad = await s.send({ body: '{"a":3}\nnot json\n' });
      expect(bad.status).to.equal(400);
      expect(JSON.parse(bad.body).message).to.match(/^Failed decoding body: /);
      expect(s.logs()).to.have.length(2);
      expect(s.metric('component_errors_total', { error_type: 'parser_failed' })).to.equal(1);
      expect(s.metric('component_errors_total', { error_type: 'request_failed', error_code: 'http_response_400' })).to.equal(1);
    });

    it('framing.method = "bytes" takes a multi-line JSON document whole; an array is one event per element', async () => {
      s = await startHttpServer({ decoding: { codec: 'json' }, framing: { method: 'bytes' } });
      await s.send({ body: '{\n  "a": 1\n}' });
      await s.send({ body: '[{"b":1},{"b":2}]' });
      expect(s.logs().map((e) => e.fields.a ?? e.fields.b)).to.deep.equal([1, 1, 2]);
    });

    const legacy: [string, string, unknown[]][] = [
      ['text', 'x\ny', ['x', 'y']],
      ['binary', 'x\ny', ['x\ny']],
      ['ndjson', '{"m":1}\n{"m":2}', [1, 2]],
      ['json', '{\n"m": 3\n}', [3]],
    ];
    for (const [encoding, body, expected] of legacy) {
      it(`encoding = "${encoding}" frames and decodes as Vector's older option did`, async () => {
        s = await startHttpServer({ encoding });
        expect((await s.send({ body })).status).to.equal(200);
        expect(s.logs().map((e) => e.fields.m ?? e.fields.message)).to.deep.equal(expected);
        expect(s.lines.some((l) => l.includes('deprecated'))).to.equal(true);
      });
    }
  });

  describe('headers, query_parameters, host_key', () => {
    it('headers: exact names (null when absent) and wildcards; a body field of the same name wins', async () => {
      s = await startHttpServer({ headers: ['User-Agent', 'X-*', 'Absent', 'User-Agent'], decoding: { codec: 'json' } });
      await s.send({ body: '{"x-b":"body"}', headers: { 'user-agent': 'curl/8', 'x-a': '1', 'x-b': '2', other: 'no' } });
      const f = s.logs()[0]!.fields;
      expect(f['User-Agent']).to.equal('curl/8');
      expect(f['x-a']).to.equal('1');
      expect(f['x-b']).to.equal('body');
      expect(f.Absent).to.equal(null);
      expect(f).to.not.have.property('other');
      expect(s.lines.some((l) => l.includes('duplicate'))).to.equal(true);
    });

    it('query_parameters: exact and wildcard names overwrite body fields; the last of a repeated one wins', async () => {
      s = await startHttpServer({ query_parameters: ['app', 'p*', 'none'], decoding: { codec: 'json' } });
      await s.send({ path: '/?app=web&p1=a&p2=b&p2=c&q=z', body: '{"app":"body"}' });
      const f = s.logs()[0]!.fields;
      expect([f.app, f.p1, f.p2, f.none]).to.deep.equal(['web', 'a', 'c', null]);
      expect(f).to.not.have.property('q');
    });

    it('host_key gets the peer address, overwriting', async () => {
      s = await startHttpServer({ host_key: 'ip', decoding: { codec: 'json' } });
      await s.send({ body: '{"ip":"spoofed"}' });
      expect(s.logs()[0]!.fields.ip).to.equal('127.0.0.1');
    });
  });

  describe('auth', () => {
    it('basic: missing or wrong credentials get 401 and emit nothing', async () => {
      s = await startHttpServer({ auth: { strategy: 'basic', username: 'u', password: 'p' } });
      const none = await s.send({ body: 'a' });
      expect([none.status, JSON.parse(none.body).message]).to.deep.equal([401, 'No authorization header']);
      const wrong = await s.send({ body: 'a', headers: { authorization: `Basic ${Buffer.from('u:x').toString('base64')}` } });
      expect([wrong.status, JSON.parse(wrong.body).message]).to.deep.equal([401, 'Invalid username/password']);
      expect(s.events()).to.have.length(0);
      expect(s.metric('component_errors_total', { error_type: 'request_failed', error_code: 'http_response_401' })).to.equal(2);
      const right = await s.send({ body: 'ok', headers: { authorization: `Basic ${Buffer.from('u:p').toString('base64')}` } });
      expect(right.status).to.equal(200);
      expect(s.logs().map((e) => e.fields.message)).to.deep.equal(['ok']);
    });
  });

  describe('Content-Encoding and the body limit', () => {
    it('gzip, deflate and stacked codings are undone; bytes counted after decompression', async () => {
      s = await startHttpServer();
      expect((await s.send({ body: gzipSync('g'), headers: { 'content-encoding': 'gzip' } })).status).to.equal(200);
      expect((await s.send({ body: deflateSync('d'), headers: { 'content-encoding': 'deflate' } })).status).to.equal(200);
      expect((await s.send({ body: gzipSync(deflateSync('both')), headers: { 'content-encoding': 'deflate, gzip' } })).status).to.equal(200);
      expect(s.logs().map((e) => e.fields.message)).to.deep.equal(['g', 'd', 'both']);
      expect(s.metric('component_received_bytes_total')).to.equal(6);
    });

    it('zstd (Node 20 has none) and unknown codings are 415; a corrupt gzip body is 422', async () => {
      s = await startHttpServer();
      const zstd = await s.send({ body: 'x', headers: { 'content-encoding': 'zstd' } });
      expect([zstd.status, JSON.parse(zstd.body).message]).to.deep.equal([415, 'Unsupported encoding zstd']);
      expect((await s.send({ body: 'x', headers: { 'content-encoding': 'br' } })).status).to.equal(415);
      expect((await s.send({ body: 'not gzip', headers: { 'content-encoding': 'gzip' } })).status).to.equal(422);
      expect(s.events()).to.have.length(0);
    });

    it('a body over max_decompressed_bytes, raw or inflated, is 413 and emits nothing', async () => {
      s = await startHttpServer({}, { globals: { max_decompressed_bytes: 64 } });
      expect((await s.send({ body: 'x'.repeat(65) })).status).to.equal(413);
      const chunked = await s.send({ body: 'x'.repeat(65), headers: { 'transfer-encoding': 'chunked' } });
      expect(chunked.status).to.equal(413);
      expect((await s.send({ body: gzipSync('y'.repeat(1000)), headers: { 'content-encoding': 'gzip' } })).status).to.equal(413);
      expect((await s.send({ body: 'y'.repeat(64) })).status).to.equal(200);
      expect(s.events()).to.have.length(1);
    });
  });

  describe('tls and keepalive', () => {
    let certs: TestCerts;
    before(() => {
      certs = makeTestCerts();
    });
    after(() => certs.remove());

    it('tls.enabled serves https with the configured identity', async () => {
      s = await startHttpServer({ tls: { enabled: true, crt_file: certs.serverCrt, key_file: certs.serverKey } });
      const r = await s.send({ body: 'secure', ca: certs.read(certs.caCrt) });
      expect(r.status).to.equal(200);
      expect(s.logs().map((e) => e.fields.message)).to.deep.equal(['secure']);
      expect(s.metric('component_received_bytes_total', { protocol: 'https' })).to.equal(6);
    });

    it('keepalive.max_connection_age_secs: a connection past its age is answered with Connection: close', async () => {
      s = await startHttpServer({ keepalive: { max_connection_age_secs: 0 } });
      expect((await s.send({ body: 'a', headers: { connection: 'keep-alive' } })).headers.connection).to.equal('close');
      s.stop();
      s = await startHttpServer();
      expect((await s.send({ body: 'a', headers: { connection: 'keep-alive' } })).headers.connection).to.equal('keep-alive');
    });
  });

  describe('acknowledgements', () => {
    for (const [status, code] of [['delivered', 200], ['errored', 500], ['rejected', 400]] as const) {
      it(`answers once the events settle: ${status} gives ${code}`, async () => {
        s = await startHttpServer({}, { acknowledgements: true });
        let answered = false;
        const reply = s.send({ body: 'a\nb' }).finally(() => (answered = true));
        await until(() => s!.events().length === 2, 5000, 'events');
        await new Promise((r) => setImmediate(r));
        expect(answered).to.equal(false);
        s.settle(status);
        expect((await reply).status).to.equal(code);
        if (status !== 'delivered') expect(s.metric('component_errors_total', { error_type: 'acknowledgements_failed' })).to.equal(1);
        expect(s.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(0);
      });
    }

    it('acknowledgements.enabled on the source waits for delivery even when no sink asks', async () => {
      s = await startHttpServer({ acknowledgements: { enabled: true } });
      const reply = s.send({ body: 'a' });
      await until(() => s!.events().length === 1, 5000, 'events');
      s.settle('errored');
      expect((await reply).status).to.equal(500);
    });
  });

  describe('backpressure', () => {
    it('holds a request while the output is full and takes it once the gate opens', async () => {
      s = await startHttpServer();
      s.gate.close();
      const reply = s.send({ body: 'held' });
      await until(() => s!.lines.some((l) => l.includes('holding a request')), 5000, 'held');
      expect(s.events()).to.have.length(0);
      s.gate.open();
      expect((await reply).status).to.equal(200);
      expect(s.logs().map((e) => e.fields.message)).to.deep.equal(['held']);
    });

    it('refuses with 503 and Retry-After once the hold times out, emitting nothing', async () => {
      const scheduler = new VirtualTimeScheduler();
      s = await startHttpServer({}, { scheduler });
      s.gate.close();
      const reply = s.send({ body: 'late' });
      await until(() => s!.lines.some((l) => l.includes('holding a request')), 5000, 'held');
      scheduler.flush();
      const r = await reply;
      expect(r.status).to.equal(503);
      expect(r.headers['retry-after']).to.equal('1');
      expect(s.metric('component_errors_total', { error_type: 'request_failed' })).to.equal(0);
      s.gate.open();
      expect(s.events()).to.have.length(0);
    });
  });

  describe('shutdown', () => {
    it('answers the request in flight, then completes and takes no new connections', async () => {
      s = await startHttpServer({}, { acknowledgements: true });
      const reply = s.send({ body: 'last' });
      await until(() => s!.events().length === 1, 5000, 'events');
      const drained = s.drain();
      s.settle('delivered');
      expect((await reply).status).to.equal(200);
      await drained;
      let refused = false;
      await s.send({ body: 'late' }).catch(() => (refused = true));
      expect(refused).to.equal(true);
    });
  });
});
