/**
 * NATS client options from the shared `nats` options. The client reconnects for ever (a daemon
 * outlives server restarts; the client's default gives up after 10 attempts) and, unless a caller
 * overrides it, keeps trying when the first connection fails, as Vector's sink does (its source
 * fails instead).
 */
import { readFileSync } from 'node:fs';
import type { Authenticator, ConnectionOptions, NatsConnection } from 'nats';
import { lazyModule } from '../../../lib/lazy-module.js';

/** The NATS client, loaded when a nats component first connects (most pipelines have none). */
export const natsClient = lazyModule<typeof import('nats')>('nats');
import { tlsConnectOptions } from '../../../lib/net/tls.js';
import { type NatsAuthConfig, type NatsConnectionConfig, serverAddresses } from './options.js';

/** Wait between reconnection attempts, in milliseconds: a restarted server is found again within a second. */
const RECONNECT_WAIT_MS = 1000;

/** The client's authenticator; reads a credentials file now, so a missing one fails the build. */
export function natsAuthenticator(auth: NatsAuthConfig): Authenticator {
  const bytes = (s: string) => new TextEncoder().encode(s);
  switch (auth.strategy) {
    case 'user_password':
      return natsClient().usernamePasswordAuthenticator(auth.user_password.user, auth.user_password.password);
    case 'token':
      return natsClient().tokenAuthenticator(auth.token.value);
    case 'credentials_file':
      try {
        return natsClient().credsAuthenticator(readFileSync(auth.credentials_file.path));
      } catch (err) {
        throw new Error(`auth.credentials_file.path: cannot read ${auth.credentials_file.path}: ${(err as Error).message}`);
      }
    case 'nkey':
      // the seed signs the server's nonce; the public key is derived from it
      return natsClient().nkeyAuthenticator(bytes(auth.nkey.seed));
  }
}

/** Client options of one component; `overrides` adjusts them (tests). */
export function natsConnectionOptions(config: NatsConnectionConfig, overrides: Partial<ConnectionOptions> = {}): ConnectionOptions {
  const options: ConnectionOptions = {
    servers: serverAddresses(config.url),
    name: config.connection_name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: RECONNECT_WAIT_MS,
    waitOnFirstConnect: true,
  };
  if (config.auth !== undefined) options.authenticator = natsAuthenticator(config.auth);
  // the client hands these to Node's tls.connect as they are
  if (config.tls?.enabled === true) options.tls = tlsConnectOptions(config.tls) as ConnectionOptions['tls'];
  return { ...options, ...overrides };
}

/**
 * One component's connection, made on first use. A connection that failed or closed for good is
 * forgotten, so the next use connects afresh (a refused login, the client giving up).
 */
export class NatsLink {
  private conn: Promise<NatsConnection> | undefined;
  private isClosed = false;

  constructor(private readonly options: ConnectionOptions) {}

  /** The connection; rejects when connecting fails or the link was closed. */
  get(): Promise<NatsConnection> {
    if (this.isClosed) return Promise.reject(new Error('the NATS connection was closed'));
    if (this.conn !== undefined) return this.conn;
    const p = natsClient().connect(this.options);
    this.conn = p;
    const forget = () => {
      if (this.conn === p) this.conn = undefined;
    };
    p.then((nc) => nc.closed().then(forget), forget);
    return p;
  }

  /** Drains and closes the connection (publishes in hand are flushed); a pending connect is closed once made. */
  async close(): Promise<void> {
    this.isClosed = true;
    const p = this.conn;
    this.conn = undefined;
    if (p === undefined) return;
    const nc = await p.catch(() => undefined);
    if (nc !== undefined && !nc.isClosed()) await nc.drain().catch(() => nc.close());
  }
}
