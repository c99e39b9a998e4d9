/** The syslog source over TLS: RFC 5425-style octet-counted messages, client certificates. */
import { expect } from 'chai';
import { connect } from 'node:net';
import { type ConnectionOptions, connect as tlsConnect } from 'node:tls';
import * as v from 'valibot';
import { SyslogSourceConfig, syslogSource } from '../../../../connectors/sources/syslog/index.js';
import type { EventBatch, LogEvent } from '../../../../lib/event.js';
import { type TestCerts, makeTestCerts } from '../../../helpers/certs.js';
import { until } from '../../../helpers/wait.js';
import { testSourceContext } from '../source-context.js';

const parse = (x: Record<string, unknown>) => v.parse(SyslogSourceConfig, { type: 'syslog', mode: 'tcp', address: '127.0.0.1:0', ...x });
const counted = (msg: string) => `${Buffer.byteLength(msg)} ${msg}`;

describe('syslog source: tls', () => {
  let certs: TestCerts;
  before(() => {
    certs = makeTestCerts();
  });
  after(() => certs.remove());

  async function listen(tls: Record<string, unknown>) {
    const ctx = testSourceContext('syslog');
    const batches: EventBatch[] = [];
    const sub = syslogSource.build(parse({ tls }), ctx).subscribe((b) => batches.push(b as EventBatch));
    await until(() => ctx.listeningAddress() !== undefined, 5000, 'listening');
    const addr = ctx.listeningAddress()!;
    return { ctx, port: Number(addr.slice(addr.lastIndexOf(':') + 1)), events: () => batches.flat() as LogEvent[], stop: () => sub.unsubscribe() };
  }

  function tlsClient(port: number, identity?: { crt: string; key: string }) {
    const options = {
      port,
      host: '127.0.0.1',
      ca: certs.read(certs.caCrt),
      ...(identity ? { cert: certs.read(identity.crt), key: certs.read(identity.key) } : {}),
    };
    const client = tlsConnect(options as ConnectionOptions);
    client.on('error', () => {});
    return client;
  }

  it('tls.enabled: octet-counted messages over TLS, with the peer as source_ip', async () => {
    const r = await listen({ enabled: true, crt_file: certs.serverCrt, key_file: certs.serverKey });
    const c = tlsClient(r.port);
    try {
      await new Promise<void>((res) => c.once('secureConnect', () => res()));
      c.end(counted('<13>1 2024-05-01T10:00:00Z web app 1 - - over tls') + counted('<13>1 - web app 2 - - second'));
      await until(() => r.events().length === 2, 5000, 'two events');
      expect(r.events().map((e) => e.fields.message)).to.deep.equal(['over tls', 'second']);
      expect(r.events()[0]!.fields).to.deep.include({ host: 'web', source_ip: '127.0.0.1', source_type: 'syslog' });
    } finally {
      c.destroy();
      r.stop();
    }
  });

  it('tls.enabled: a plain TCP sender is not read', async () => {
    const r = await listen({ enabled: true, crt_file: certs.serverCrt, key_file: certs.serverKey });
    try {
      const c = connect(r.port, '127.0.0.1', () => c.end('<13>1 - web app 1 - - plain\n'));
      c.on('error', () => {});
      await until(() => r.ctx.metric('component_errors_total', { error_type: 'connection_failed' }) === 1, 5000, 'handshake failure counted');
      expect(r.events()).to.have.length(0);
    } finally {
      r.stop();
    }
  });

  it('verify_certificate with client_metadata_key: each event carries the client certificate subject', async () => {
    const r = await listen({
      enabled: true,
      crt_file: certs.serverCrt,
      key_file: certs.serverKey,
      ca_file: certs.caCrt,
      verify_certificate: true,
      client_metadata_key: 'tls_client',
    });
    const c = tlsClient(r.port, { crt: certs.clientCrt, key: certs.clientKey });
    try {
      c.end('<13>1 - web app - - - a\n<13>1 - web app - - - b\n');
      await until(() => r.events().length === 2, 5000, 'two events');
      const [a, b] = r.events();
      expect(a!.fields.tls_client).to.deep.equal({ subject: 'CN=weir-client' });
      expect(b!.fields.tls_client, 'one object per event').to.not.equal(a!.fields.tls_client);
    } finally {
      c.destroy();
      r.stop();
    }
  });

  it('verify_certificate refuses a client without a certificate', async () => {
    const r = await listen({ enabled: true, crt_file: certs.serverCrt, key_file: certs.serverKey, ca_file: certs.caCrt, verify_certificate: true });
    const c = tlsClient(r.port);
    try {
      c.write('<13>1 - web app - - - refused\n');
      await until(() => r.ctx.metric('component_errors_total', { error_type: 'connection_failed' }) === 1, 5000, 'refusal counted');
      expect(r.events()).to.have.length(0);
    } finally {
      c.destroy();
      r.stop();
    }
  });
});
