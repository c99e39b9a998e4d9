/** The nats sink against a real nats-server: subjects, payloads, auth, JetStream acknowledgements and restarts. */
import { expect } from 'chai';
import { connect } from 'nats';
import { Subject, of } from 'rxjs';
import { natsHealthcheck } from '../../../../connectors/sinks/nats/sink.js';
import { logEvent } from '../../../../lib/event.js';
import { freePort } from '../../../helpers/free-port.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { until } from '../../../helpers/wait.js';
import { NATS_TOKEN, NATS_USER, type NatsServer, sharedNatsServer } from '../../../peers/nats-server.js';
import { collect, count, fast, natsSinkConfig, runSink, streamTexts, unique } from './harness.js';

describe('nats sink (real nats-server)', function () {
  this.timeout(60_000);
  let server: NatsServer;
  before(async () => {
    server = await sharedNatsServer('users');
  });

  it('publishes each event to the subject rendered from it, encoded with the codec', async () => {
    const base = unique('sink.subj');
    const sub = await collect(server.url, `${base}.>`);
    try {
      const config = natsSinkConfig(server.url, `${base}.{{ app }}`, { encoding: { codec: 'text' } });
      const ctx = testSinkContext('nats');
      const ds = await runSink(config, of([logEvent({ message: 'one', app: 'a' }), logEvent({ message: 'two', app: 'b' }), logEvent({ message: 'no app' }), logEvent({ message: 'three', app: 'a' })]), ctx);
      expect(count(ds, 'delivered')).to.equal(3);
      // a missing field rejects that event alone
      expect(count(ds, 'rejected')).to.equal(1);
      expect(ctx.metric('component_errors_total', { error_type: 'template_failed' })).to.equal(1);
      await until(() => sub.received.length === 3, 10_000, 'three messages');
      expect(sub.received).to.deep.equal([
        { subject: `${base}.a`, text: 'one' },
        { subject: `${base}.b`, text: 'two' },
        { subject: `${base}.a`, text: 'three' },
      ]);
    } finally {
      await sub.close();
    }
  });

  it('encodes json field by field, and names its connection', async () => {
    const subject = unique('sink.json');
    const sub = await collect(server.url, subject);
    try {
      const name = unique('weir-conn-');
      const input = new Subject<ReturnType<typeof logEvent>[]>();
      const result = runSink(natsSinkConfig(server.url, subject, { connection_name: name }), input);
      input.next([logEvent({ message: 'hi', n: 7 })]);
      await until(() => sub.received.length === 1, 10_000, 'one message');
      expect(JSON.parse(sub.received[0]!.text)).to.deep.equal({ message: 'hi', n: 7 });
      const connz = (await (await fetch(`${server.monitorUrl}/connz`)).json()) as { connections: { name?: string }[] };
      expect(connz.connections.map((c) => c.name)).to.include(name);
      input.complete();
      expect(count(await result, 'delivered')).to.equal(1);
    } finally {
      await sub.close();
    }
  });

  it('rejects a message over the server\'s max_payload alone; the rest of the attempt is delivered', async () => {
    const subject = unique('sink.big');
    const sub = await collect(server.url, subject);
    try {
      const ctx = testSinkContext('nats');
      // the server's default max_payload is 1 MiB
      const big = 'x'.repeat(1024 * 1024 + 1);
      const ds = await runSink(natsSinkConfig(server.url, subject, { encoding: { codec: 'text' } }), of([logEvent({ message: 'small' }), logEvent({ message: big }), logEvent({ message: 'after' })]), ctx);
      expect(count(ds, 'delivered')).to.equal(2);
      expect(count(ds, 'rejected')).to.equal(1);
      await until(() => sub.received.length === 2, 10_000, 'the two small messages');
      expect(sub.received.map((r) => r.text)).to.deep.equal(['small', 'after']);
    } finally {
      await sub.close();
    }
  });

  it('the health check connects once, without retrying, unless healthcheck.enabled is false', async () => {
    const closedPort = `nats://127.0.0.1:${await freePort()}`;
    const err = await natsHealthcheck(natsSinkConfig(closedPort, 'x')).then(() => undefined, (e: unknown) => e as Error);
    expect(err?.message).to.match(/CONNECTION_REFUSED|ECONNREFUSED/);
    await natsHealthcheck(natsSinkConfig(closedPort, 'x', { healthcheck: { enabled: false } }));
    await natsHealthcheck(natsSinkConfig(server.url, 'x'));
  });

  describe('auth', () => {
    it('user_password: the right password publishes, a wrong one fails the health check', async () => {
      const subject = unique('sink.auth');
      const sub = await collect(server.url, subject);
      try {
        const auth = { strategy: 'user_password', user_password: NATS_USER };
        const ds = await runSink(natsSinkConfig(server.url, subject, { auth }), of([logEvent({ message: 'as weir' })]));
        expect(count(ds, 'delivered')).to.equal(1);
        await until(() => sub.received.length === 1, 10_000, 'the message');
        await natsHealthcheck(natsSinkConfig(server.url, subject, { auth }));
        const wrong = { strategy: 'user_password', user_password: { user: NATS_USER.user, password: 'not-it' } };
        const err = await natsHealthcheck(natsSinkConfig(server.url, subject, { auth: wrong })).then(() => undefined, (e: unknown) => e as Error);
        expect(err?.message).to.match(/authorization/i);
      } finally {
        await sub.close();
      }
    });

    it('nkey: the seed signs the server nonce', async () => {
      const subject = unique('sink.nkey');
      const sub = await collect(server.url, subject);
      try {
        const auth = { strategy: 'nkey', nkey: { nkey: server.nkey.publicKey, seed: server.nkey.seed } };
        const ds = await runSink(natsSinkConfig(server.url, subject, { auth }), of([logEvent({ message: 'signed' })]));
        expect(count(ds, 'delivered')).to.equal(1);
        await until(() => sub.received.length === 1, 10_000, 'the message');
      } finally {
        await sub.close();
      }
    });

    it('token: the right token publishes, a wrong one fails the health check', async () => {
      const tokenServer = await sharedNatsServer('token');
      const subject = unique('sink.token');
      const nc = await connect({ servers: tokenServer.url, token: NATS_TOKEN });
      const received: string[] = [];
      nc.subscribe(subject, { callback: (_e, m) => received.push(new TextDecoder().decode(m.data)) });
      await nc.flush();
      try {
        const auth = { strategy: 'token', token: { value: NATS_TOKEN } };
        const ds = await runSink(natsSinkConfig(tokenServer.url, subject, { auth, encoding: { codec: 'text' } }), of([logEvent({ message: 'by token' })]));
        expect(count(ds, 'delivered')).to.equal(1);
        await until(() => received.length === 1, 10_000, 'the message');
        expect(received).to.deep.equal(['by token']);
        const err = await natsHealthcheck(natsSinkConfig(tokenServer.url, subject, { auth: { strategy: 'token', token: { value: 'wrong' } } })).then(
          () => undefined,
          (e: unknown) => e as Error,
        );
        expect(err?.message).to.match(/authorization/i);
        // no auth at all is refused too: the server requires the token
        const none = await natsHealthcheck(natsSinkConfig(tokenServer.url, subject)).then(() => undefined, (e: unknown) => e as Error);
        expect(none).to.be.instanceOf(Error);
      } finally {
        await nc.close();
      }
    });
  });

  it('tls: with the CA and a client certificate it publishes; without either the health check fails', async () => {
    const tlsServer = await sharedNatsServer('tls');
    const certs = tlsServer.certs!;
    const subject = unique('sink.tls');
    const nc = await connect({ servers: tlsServer.url, tls: { caFile: certs.caCrt, certFile: certs.clientCrt, keyFile: certs.clientKey } });
    const received: string[] = [];
    nc.subscribe(subject, { callback: (_e, m) => received.push(new TextDecoder().decode(m.data)) });
    await nc.flush();
    try {
      const tls = { enabled: true, ca_file: certs.caCrt, crt_file: certs.clientCrt, key_file: certs.clientKey };
      const ds = await runSink(natsSinkConfig(tlsServer.url, subject, { tls, encoding: { codec: 'text' } }), of([logEvent({ message: 'over tls' })]));
      expect(count(ds, 'delivered')).to.equal(1);
      await until(() => received.length === 1, 10_000, 'the message');
      expect(received).to.deep.equal(['over tls']);
      const failure = (t: Record<string, unknown>) => natsHealthcheck(natsSinkConfig(tlsServer.url, subject, { tls: t })).then(() => undefined, (e: unknown) => e as Error);
      // the server's certificate is not trusted without the CA
      expect((await failure({ enabled: true, crt_file: certs.clientCrt, key_file: certs.clientKey }))?.message).to.match(/certificate/);
      // the server requires a client certificate
      expect(await failure({ enabled: true, ca_file: certs.caCrt })).to.be.instanceOf(Error);
      // verify_certificate = false trusts the server without the CA
      await natsHealthcheck(natsSinkConfig(tlsServer.url, subject, { tls: { enabled: true, verify_certificate: false, crt_file: certs.clientCrt, key_file: certs.clientKey } }));
    } finally {
      await nc.close();
    }
  });

  describe('jetstream', () => {
    it('a message is delivered once the stream stored it', async () => {
      const stream = unique('SINKJS');
      const subject = `${stream.toLowerCase()}.in`;
      const nc = await connect({ servers: server.url });
      try {
        const jsm = await nc.jetstreamManager();
        await jsm.streams.add({ name: stream, subjects: [`${stream.toLowerCase()}.>`] });
        const events = Array.from({ length: 30 }, (_, i) => logEvent({ message: `m${i}` }));
        const ds = await runSink(natsSinkConfig(server.url, subject, { jetstream: true, encoding: { codec: 'text' } }), of(events));
        expect(count(ds, 'delivered')).to.equal(30);
        expect(await streamTexts(nc, stream)).to.deep.equal(events.map((_, i) => `m${i}`));
      } finally {
        await nc.close();
      }
    });

    it('without a stream for the subject there is no acknowledgement: retried, then errored', async () => {
      const subject = unique('sink.nostream');
      const ctx = testSinkContext('nats');
      const config = fast(natsSinkConfig(server.url, subject, { jetstream: { enabled: true } }), { retry_attempts: 2 });
      const ds = await runSink(config, of([logEvent({ message: 'nowhere' })]), ctx);
      expect(count(ds, 'delivered')).to.equal(0);
      expect(count(ds, 'errored')).to.equal(1);
      // the same subject without JetStream is a plain publish, taken by the server
      const plain = await runSink(natsSinkConfig(server.url, subject), of([logEvent({ message: 'nowhere' })]));
      expect(count(plain, 'delivered')).to.equal(1);
    });

    it('headers.message_id lets the stream drop duplicates', async () => {
      const stream = unique('SINKDEDUP');
      const subject = `${stream.toLowerCase()}.in`;
      const nc = await connect({ servers: server.url });
      try {
        const jsm = await nc.jetstreamManager();
        await jsm.streams.add({ name: stream, subjects: [subject] });
        const config = natsSinkConfig(server.url, subject, { jetstream: { enabled: true, headers: { message_id: '{{ id }}' } }, encoding: { codec: 'text' } });
        const ds = await runSink(config, of([logEvent({ message: 'a', id: '1' }), logEvent({ message: 'a again', id: '1' }), logEvent({ message: 'b', id: '2' })]));
        expect(count(ds, 'delivered')).to.equal(3);
        expect(await streamTexts(nc, stream)).to.deep.equal(['a', 'b']);
      } finally {
        await nc.close();
      }
    });

    it('loses nothing when the server is killed and restarted mid-run', async () => {
      const stream = unique('SINKRESTART');
      const subject = `${stream.toLowerCase()}.in`;
      const admin = await connect({ servers: server.url });
      const jsm = await admin.jetstreamManager();
      await jsm.streams.add({ name: stream, subjects: [subject] });
      await admin.close();
      const input = new Subject<ReturnType<typeof logEvent>[]>();
      const config = fast(natsSinkConfig(server.url, subject, { jetstream: true, encoding: { codec: 'text' } }));
      const deliveries: { status: string; n: number }[] = [];
      const delivered = () => deliveries.filter((d) => d.status === 'delivered').reduce((n, d) => n + d.n, 0);
      const ctx = testSinkContext('nats');
      const { buildNatsSink } = await import('../../../../connectors/sinks/nats/sink.js');
      const done = new Promise<void>((resolve, reject) =>
        input.pipe(buildNatsSink(config, ctx)).subscribe({ next: (d) => deliveries.push({ status: d.status, n: d.events.length }), error: reject, complete: resolve }),
      );
      const batch = (from: number) => Array.from({ length: 20 }, (_, i) => logEvent({ message: `e${from + i}` }));
      input.next(batch(0));
      await until(() => delivered() === 20, 20_000, 'the first 20 delivered');
      await server.kill();
      try {
        input.next(batch(20));
        input.next(batch(40));
        // while the server is down nothing more is delivered, and nothing is given up
        expect(delivered()).to.equal(20);
      } finally {
        await server.start();
      }
      input.complete();
      await done;
      expect(deliveries.every((d) => d.status === 'delivered')).to.equal(true);
      expect(delivered()).to.equal(60);
      const nc = await connect({ servers: server.url });
      try {
        const texts = new Set(await streamTexts(nc, stream));
        // at least once: every event is in the stream (a retried one may be there twice)
        for (let i = 0; i < 60; i++) expect(texts.has(`e${i}`), `e${i}`).to.equal(true);
      } finally {
        await nc.close();
      }
    });
  });
});
