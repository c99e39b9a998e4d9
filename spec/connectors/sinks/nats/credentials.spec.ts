/**
 * `auth.strategy = "credentials_file"`: the client presents the file's user JWT and signs the
 * server's nonce with its seed. Checked against a loopback server that speaks the start of the
 * NATS protocol (INFO with a nonce, then CONNECT and PING), since a real server needs an operator
 * and account setup to accept JWTs.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, type Socket, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nkeys } from 'nats';
import { natsHealthcheck } from '../../../../connectors/sinks/nats/sink.js';
import { buildNatsSink } from '../../../../connectors/sinks/nats/sink.js';
import { testSinkContext } from '../../../helpers/sink-context.js';
import { natsSinkConfig } from './harness.js';

const NONCE = 'weir-nonce-1234';
/** A user JWT as the server would read it; the client only passes it on. */
const JWT = 'eyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.eyJzdWIiOiJ3ZWlyIn0.c2lnbmF0dXJl';

/** Accepts one CONNECT per connection and records it; answers its PING with PONG. */
async function fakeServer(): Promise<{ server: Server; url: string; connects: Record<string, unknown>[] }> {
  const connects: Record<string, unknown>[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.write(`INFO ${JSON.stringify({ server_id: 'fake', version: '2.9.10', proto: 1, max_payload: 1048576, auth_required: true, nonce: NONCE, headers: true })}\r\n`);
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString();
      let nl: number;
      while ((nl = text.indexOf('\r\n')) >= 0) {
        const line = text.slice(0, nl);
        text = text.slice(nl + 2);
        if (line.startsWith('CONNECT ')) connects.push(JSON.parse(line.slice(8)) as Record<string, unknown>);
        else if (line === 'PING') socket.write('PONG\r\n');
      }
    });
  });
  server.on('close', () => {
    for (const s of sockets) s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `nats://127.0.0.1:${(server.address() as { port: number }).port}`, connects };
}

describe('nats sink: credentials_file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'weir-nats-creds-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('sends the JWT of the file and a signature of the nonce made with its seed', async () => {
    const user = nkeys.createUser();
    const seed = new TextDecoder().decode(user.getSeed());
    const path = join(dir, 'weir.creds');
    writeFileSync(
      path,
      ['-----BEGIN NATS USER JWT-----', JWT, '------END NATS USER JWT------', '', '-----BEGIN USER NKEY SEED-----', seed, '------END USER NKEY SEED------', ''].join('\n'),
    );
    const fake = await fakeServer();
    try {
      await natsHealthcheck(natsSinkConfig(fake.url, 'x', { auth: { strategy: 'credentials_file', credentials_file: { path } }, connection_name: 'weir-creds' }));
      expect(fake.connects).to.have.length(1);
      const c = fake.connects[0]!;
      expect(c.jwt).to.equal(JWT);
      expect(c.name).to.equal('weir-creds');
      const sig = Buffer.from(String(c.sig), 'base64url');
      expect(nkeys.fromPublic(user.getPublicKey()).verify(new TextEncoder().encode(NONCE), sig)).to.equal(true);
      // a signature by another key does not verify: the check above is not vacuous
      expect(nkeys.fromPublic(nkeys.createUser().getPublicKey()).verify(new TextEncoder().encode(NONCE), sig)).to.equal(false);
    } finally {
      fake.server.close();
    }
  });

  it('a missing file fails the build, naming the option', () => {
    const config = natsSinkConfig('nats://127.0.0.1:4222', 'x', { auth: { strategy: 'credentials_file', credentials_file: { path: join(dir, 'absent.creds') } } });
    expect(() => buildNatsSink(config, testSinkContext('nats'))).to.throw(/auth\.credentials_file\.path: cannot read/);
  });
});
