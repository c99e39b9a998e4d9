/**
 * One outgoing stream connection (TCP or unix) that reconnects: `get()` waits until connected,
 * retrying with exponential backoff (0.5 s doubling, at most 60 s, as Vector's socket sink).
 * A connection that errors or is closed by the peer is dropped; the next `get()` reconnects.
 */
import { type NetConnectOpts, type Socket, connect } from 'node:net';
import type { SinkContext } from '../../../lib/component.js';
import { connectFailed, connectionEstablished, connectionLost, connectionShutdown } from './events.js';

/** A TCP host and port, or a unix socket path. */
export type ConnectTarget = { readonly host: string; readonly port: number } | { readonly path: string };

export const INITIAL_BACKOFF_MS = 500;
export const MAX_BACKOFF_MS = 60_000;

/** A reconnecting stream connection; one per sink. */
export class StreamConnection {
  private socket: Socket | undefined;
  private pending: Promise<Socket> | undefined;
  private closed = false;
  private wake: (() => void) | undefined;

  constructor(
    private readonly target: ConnectTarget,
    private readonly ctx: SinkContext,
    private readonly keepaliveSecs: number | undefined,
  ) {}

  /** The open socket, connecting first when there is none; rejects once closed. */
  get(): Promise<Socket> {
    if (this.socket && !this.socket.destroyed) return Promise.resolve(this.socket);
    this.pending ??= this.connectLoop().finally(() => (this.pending = undefined));
    return this.pending;
  }

  /** The open socket, or one connection attempt (no retry: a sink with several endpoints moves on to the next). */
  tryGet(): Promise<Socket> {
    if (this.closed) return Promise.reject(new Error('connection closed'));
    if (this.socket && !this.socket.destroyed) return Promise.resolve(this.socket);
    this.pending ??= this.connectOnce()
      .then((s) => (this.socket = s))
      .finally(() => (this.pending = undefined));
    return this.pending;
  }

  /** Drops the current socket (after a write error). */
  reset(): void {
    this.socket?.destroy();
    this.socket = undefined;
  }

  /** Ends the socket after pending writes; stops reconnecting. */
  async end(): Promise<void> {
    this.closed = true;
    this.wake?.();
    const s = this.socket;
    this.socket = undefined;
    if (!s || s.destroyed) return;
    await new Promise<void>((resolve) => {
      s.once('close', () => resolve());
      s.end();
      setTimeout(() => s.destroy(), 5000).unref();
    });
  }

  /** Stops at once. */
  destroy(): void {
    this.closed = true;
    this.wake?.();
    this.reset();
  }

  private get mode(): 'tcp' | 'unix' {
    return 'path' in this.target ? 'unix' : 'tcp';
  }

  private async connectLoop(): Promise<Socket> {
    let delay = INITIAL_BACKOFF_MS;
    for (;;) {
      if (this.closed) throw new Error('connection closed');
      try {
        const s = await this.connectOnce();
        this.socket = s;
        return s;
      } catch (err) {
        connectFailed(this.ctx, err as Error, delay);
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, delay);
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.wake = undefined;
      delay = Math.min(delay * 2, MAX_BACKOFF_MS);
    }
  }

  private connectOnce(): Promise<Socket> {
    return new Promise<Socket>((resolve, reject) => {
      const s = connect(this.target as NetConnectOpts);
      const onError = (err: Error) => {
        s.destroy();
        reject(err);
      };
      s.once('error', onError);
      s.once('connect', () => {
        s.off('error', onError);
        s.setNoDelay(true);
        if (this.keepaliveSecs !== undefined) s.setKeepAlive(true, this.keepaliveSecs * 1000);
        s.on('error', (err) => {
          connectionLost(this.ctx, err.message);
          if (this.socket === s) this.socket = undefined;
        });
        // the peer is not expected to send; reading detects when it closes
        s.on('data', () => {});
        s.on('end', () => {
          if (this.socket === s) this.socket = undefined;
          s.destroy();
          connectionShutdown(this.ctx, this.mode);
        });
        s.on('close', () => {
          if (this.socket === s) this.socket = undefined;
        });
        connectionEstablished(this.ctx, this.mode);
        resolve(s);
      });
    });
  }
}
