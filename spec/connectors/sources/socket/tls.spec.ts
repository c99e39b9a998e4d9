import { expect } from 'chai';
import { connect } from 'node:net';
import { type ConnectionOptions, connect as tlsConnect } from 'node:tls';
import * as v from 'valibot';
import { SocketSourceConfig, socketSource } from '../../../../connectors/sources/socket/index.js';
import { mapIssue } from '../../../../lib/config/issues.js';
import type { EventBatch, LogEvent } from '../../../../lib/event.js';
import { type TestCerts, makeTestCerts } from '../../../helpers/certs.js';
import { until } from '../../../helpers/wait.js';
import { testSourceContext } from '../source-context.js';

const parse = (x: Record<string, unknown>) => v.parse(SocketSourceConfig, { type: 'socket', mode: 'tcp', address: '127.0.0.1:0', ...x });
const messages = (x: Record<string, unknown>) =>
  (v.safeParse(SocketSourceConfig, { type: 'socket', ...x }).issues ?? []).flatMap((i) => mapIssue(SocketSourceConfig, i)).map((m) => `${m.path}: ${m.message}`);

describe('socket source: tls', () => {
  let certs: TestCerts;
  before(() => {
    certs = makeTestCerts();
  });
  after(() => certs.remove());

  async function run(tls: Record<string, unknown>, identity?: { crt: string; key: string }) {
    const ctx = testSourceContext('socket');
    const batches: EventBatch[] = [];
    const sub = socketSource.build(parse({ tls }), ctx).subscribe((b) => batches.push(b as EventBatch));
    await until(() => ctx.listeningAddress() !== undefined, 5000, 'listening');
    const addr = ctx.listeningAddress()!;
    const port = Number(addr.slice(addr.lastIndexOf(':') + 1));
    const options = {
      port,
      host: '127.0.0.1',
      ca: certs.read(certs.caCrt),
      ...(identity ? { cert: certs.read(identity.crt), key: certs.read(identity.key) } : {}),
    };
    const client = tlsConnect(options as ConnectionOptions);
    client.on('error', () => {});
    return { ctx, client, events: () => batches.flat() as LogEvent[], stop: () => (client.destroy(), sub.unsubscribe()) };
  }

  it('tcp with tls.enabled: reads lines over TLS with the peer as host', async () => {
    const r = await run({ enabled: true, crt_file: certs.serverCrt, key_file: certs.serverKey });
    try {
      await new Promise<void>((res) => r.client.once('secureConnect', () => res()));
      r.client.end('one\ntwo\n');
      await until(() => r.events().length === 2, 5000, 'two events');
      expect(r.events().map((e) => e.fields.message)).to.deep.equal(['one', 'two']);
      expect(r.events()[0]!.fields).to.deep.include({ host: '127.0.0.1', source_type: 'socket' });
    } finally {
      r.stop();
    }
  });

  it('verify_certificate with client_metadata_key: each event carries the client certificate subject', async () => {
    const r = await run(
      { enabled: true, crt_file: certs.serverCrt, key_file: certs.serverKey, ca_file: certs.caCrt, verify_certificate: true, client_metadata_key: 'tls_client' },
      { crt: certs.clientCrt, key: certs.clientKey },
    );
    try {
      r.client.end('a\nb\n');
      await until(() => r.events().length === 2, 5000, 'two events');
      const [a, b] = r.events();
      expect(a!.fields.tls_client).to.deep.equal({ subject: 'CN=weir-client' });
      expect(b!.fields.tls_client).to.deep.equal({ subject: 'CN=weir-client' });
      expect(a!.fields.tls_client, 'one object per event').to.not.equal(b!.fields.tls_client);
    } finally {
      r.stop();
    }
  });

  it('verify_certificate refuses a client without a certificate', async () => {
    const r = await run({ enabled: true, crt_file: certs.serverCrt, key_file: certs.serverKey, ca_file: certs.caCrt, verify_certificate: true });
    try {
      r.client.write('refused\n');
      await until(() => r.ctx.metric('component_errors_total', { error_type: 'connection_failed' }) === 1, 5000, 'refusal counted');
      expect(r.events()).to.have.length(0);
    } finally {
      r.stop();
    }
  });

  it('tls is off unless enabled: with only crt_file a plain TCP peer is read', async () => {
    const ctx = testSourceContext('socket');
    const batches: EventBatch[] = [];
    const sub = socketSource.build(parse({ tls: { crt_file: certs.serverCrt, key_file: certs.serverKey } }), ctx).subscribe((b) => batches.push(b as EventBatch));
    try {
      await until(() => ctx.listeningAddress() !== undefined, 5000, 'listening');
      const addr = ctx.listeningAddress()!;
      const c = connect(Number(addr.slice(addr.lastIndexOf(':') + 1)), '127.0.0.1', () => c.end('plain\n'));
      await until(() => batches.flat().length === 1, 5000, 'plain line');
      expect((batches.flat()[0] as LogEvent).fields.message).to.equal('plain');
    } finally {
      sub.unsubscribe();
    }
  });

  it('an unreadable certificate fails the build', () => {
    const ctx = testSourceContext('socket');
    expect(() => socketSource.build(parse({ tls: { enabled: true, crt_file: `${certs.dir}/missing.crt`, key_file: certs.serverKey } }), ctx)).to.throw(/missing\.crt/);
  });

  describe('config', () => {
    const table: [string, Record<string, unknown>, string][] = [
      ['tls only for tcp', { mode: 'udp', address: '127.0.0.1:1', tls: { enabled: false } }, 'tls: tls applies only to tcp'],
      ['enabled needs crt_file', { mode: 'tcp', address: '127.0.0.1:1', tls: { enabled: true } }, 'tls.enabled: crt_file is required when TLS is enabled on a listener'],
      ['key_file needs crt_file', { mode: 'tcp', address: '127.0.0.1:1', tls: { key_file: 'k.pem' } }, 'tls.key_file: key_file requires crt_file'],
      ['unknown tls option', { mode: 'tcp', address: '127.0.0.1:1', tls: { server_name: 'x' } }, 'tls.server_name'],
      ['bad client_metadata_key', { mode: 'tcp', address: '127.0.0.1:1', tls: { client_metadata_key: 'a..b' } }, 'tls.client_metadata_key:'],
    ];
    for (const [name, opts, expected] of table) {
      it(name, () => {
        expect(messages(opts).join('\n')).to.contain(expected);
      });
    }
  });
});
