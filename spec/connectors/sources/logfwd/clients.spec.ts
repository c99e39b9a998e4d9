import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { FluentClient, EventTime as OrgEventTime } from '@fluent-org/logger';
import { settleAll } from '../../../../lib/event.js';
import { type TestCerts, makeTestCerts } from '../../../helpers/certs.js';
import { until } from '../../../helpers/wait.js';
import { type RunningSource, startSource } from './harness.js';

// fluent-logger is CommonJS without types
const require = createRequire(import.meta.url);
const fluentLogger = require('fluent-logger') as {
  createFluentSender(tag: string, opts: Record<string, unknown>): {
    emit(label: string, record: object, time?: unknown, cb?: (err?: Error) => void): void;
    end(label?: string, data?: object, cb?: () => void): void;
    on(ev: string, cb: (err: Error) => void): void;
  };
  EventTime: new (s: number, ns: number) => unknown;
};

type Sender = ReturnType<typeof fluentLogger.createFluentSender>;
const emitted = (s: Sender, label: string, rec: object, time?: unknown) =>
  new Promise<void>((res, rej) => s.emit(label, rec, time, (err) => (err ? rej(err) : res())));

const PYTHON = '/usr/bin/python3';

describe('logfwd source: official clients', function () {
  this.timeout(30_000);
  let src: RunningSource;
  let certs: TestCerts;
  before(() => {
    certs = makeTestCerts();
  });
  after(() => certs.remove());
  afterEach(() => src?.stop());

  for (const eventMode of ['Message', 'PackedForward', 'CompressedPackedForward']) {
    it(`fluent-logger ${eventMode}, integer time and EventTime, with requireAckResponse`, async () => {
      src = await startSource();
      const sender = fluentLogger.createFluentSender('app', { host: '127.0.0.1', port: src.port, eventMode, requireAckResponse: true, ackResponseTimeout: 5000, flushInterval: 10 });
      sender.on('error', () => {});
      try {
        await Promise.all([
          emitted(sender, 'web', { message: 'one', n: 1 }, 1714557600),
          emitted(sender, 'web', { message: 'two', n: 2 }, new fluentLogger.EventTime(1714557601, 250_000_000)),
        ]);
      } finally {
        sender.end();
      }
      await until(() => src.events().length === 2, 5000, 'two events');
      expect(src.json()).to.deep.equal([
        { source_type: 'logfwd', timestamp: '2024-05-01T10:00:00Z', tag: 'app.web', message: 'one', n: 1, host: '127.0.0.1' },
        { source_type: 'logfwd', timestamp: '2024-05-01T10:00:01.250Z', tag: 'app.web', message: 'two', n: 2, host: '127.0.0.1' },
      ]);
    });
  }

  it('fluent-logger over TLS', async () => {
    src = await startSource({ tls: { enabled: true, crt_file: certs.serverCrt, key_file: certs.serverKey } });
    const sender = fluentLogger.createFluentSender('tls', {
      host: '127.0.0.1',
      port: src.port,
      tls: true,
      tlsOptions: { ca: certs.read(certs.caCrt), servername: 'localhost' },
      requireAckResponse: true,
    });
    sender.on('error', () => {});
    try {
      await emitted(sender, 'x', { secure: true }, 100);
    } finally {
      sender.end();
    }
    await until(() => src.events().length === 1, 5000, 'one event');
    expect(src.json()[0]).to.deep.equal({ source_type: 'logfwd', timestamp: '1970-01-01T00:01:40Z', tag: 'tls.x', secure: true, host: '127.0.0.1' });
  });

  for (const eventMode of ['Message', 'Forward', 'PackedForward', 'CompressedPackedForward'] as const) {
    it(`@fluent-org/logger ${eventMode} with acks and EventTime`, async () => {
      src = await startSource();
      const client = new FluentClient('org', { socket: { host: '127.0.0.1', port: src.port }, eventMode, ack: { ackTimeout: 5000 } });
      try {
        await Promise.all([client.emit('a', { k: 'v1' }, new OrgEventTime(1714557600, 1)), client.emit('b', { k: 'v2' }, 1714557602_000)]);
      } finally {
        await client.shutdown();
      }
      await until(() => src.events().length === 2, 5000, 'two events');
      expect(src.json()).to.deep.equal([
        { source_type: 'logfwd', timestamp: '2024-05-01T10:00:00.000000001Z', tag: 'org.a', k: 'v1', host: '127.0.0.1' },
        { source_type: 'logfwd', timestamp: '2024-05-01T10:00:02Z', tag: 'org.b', k: 'v2', host: '127.0.0.1' },
      ]);
    });
  }

  it('@fluent-org/logger over TLS with a client certificate: client_metadata_key carries its subject', async () => {
    src = await startSource({
      tls: { enabled: true, crt_file: certs.serverCrt, key_file: certs.serverKey, ca_file: certs.caCrt, verify_certificate: true, client_metadata_key: 'peer' },
    });
    const client = new FluentClient('m', {
      socket: { host: '127.0.0.1', port: src.port, tls: { ca: certs.read(certs.caCrt), cert: certs.read(certs.clientCrt), key: certs.read(certs.clientKey), servername: 'localhost' } },
      ack: { ackTimeout: 5000 },
    });
    try {
      await client.emit('x', { a: 1 }, 5000); // milliseconds for this client
    } finally {
      await client.shutdown();
    }
    await until(() => src.events().length === 1, 5000, 'one event');
    expect(src.json()[0]).to.deep.equal({ source_type: 'logfwd', timestamp: '1970-01-01T00:00:05Z', tag: 'm.x', a: 1, host: '127.0.0.1', peer: { subject: 'CN=weir-client' } });
  });

  it('@fluent-org/logger acks wait for delivery with end-to-end acknowledgements on', async () => {
    src = await startSource({}, { acknowledgements: true });
    const client = new FluentClient('e2e', { socket: { host: '127.0.0.1', port: src.port }, eventMode: 'Forward', ack: { ackTimeout: 20_000 } });
    let acked = false;
    const sent = client.emit('x', { n: 1 }, 1).then(() => {
      acked = true;
    });
    try {
      await until(() => src.events().length === 1, 5000, 'event emitted');
      expect(acked, 'acked before delivery').to.equal(false);
      settleAll(src.events(), 'delivered');
      await sent;
      expect(acked).to.equal(true);
    } finally {
      await client.shutdown();
    }
  });

  it('python3-fluent-logger: Message mode with integer time and with nanosecond EventTime', async () => {
    expect(spawnSync(PYTHON, ['-c', 'import fluent.sender'], { encoding: 'utf8' }).status, 'python3-fluent-logger installed (scripts/test-peers.mjs)').to.equal(0);
    src = await startSource();
    const script = [
      'import sys',
      'from fluent import sender',
      `s = sender.FluentSender('py', host='127.0.0.1', port=${src.port})`,
      "assert s.emit_with_time('int', 1714557600, {'message': 'hello', 'x': [1, 2]}), s.last_error",
      's.close()',
      `n = sender.FluentSender('py', host='127.0.0.1', port=${src.port}, nanosecond_precision=True)`,
      "assert n.emit_with_time('ns', 1714557600.5, {'message': 'nano'}), n.last_error",
      'n.close()',
    ].join('\n');
    const r = spawnSync(PYTHON, ['-c', script], { encoding: 'utf8' });
    expect(r.status, r.stderr).to.equal(0);
    await until(() => src.events().length === 2, 5000, 'two events');
    expect(src.json()).to.deep.equal([
      { source_type: 'logfwd', timestamp: '2024-05-01T10:00:00Z', tag: 'py.int', message: 'hello', x: [1, 2], host: '127.0.0.1' },
      { source_type: 'logfwd', timestamp: '2024-05-01T10:00:00.500Z', tag: 'py.ns', message: 'nano', host: '127.0.0.1' },
    ]);
  });
});
