/**
 * A GraphQL subscription client over `ws` for tests, speaking the legacy `graphql-ws` messages with
 * no subprotocol header (what Vector's `top` and `tap` send) or `graphql-transport-ws`.
 */
import WebSocket from 'ws';

export type WsProtocol = 'legacy' | 'graphql-transport-ws';

export interface WsMessage {
  type: string;
  id?: string;
  payload?: { data?: Record<string, unknown>; errors?: { message: string }[] } & Record<string, unknown>;
}

export class GraphQLSocket {
  readonly messages: WsMessage[] = [];
  private waiters: (() => void)[] = [];
  private constructor(
    readonly ws: WebSocket,
    readonly protocol: WsProtocol,
  ) {
    ws.on('message', (raw) => {
      const msg = JSON.parse(raw.toString()) as WsMessage;
      if (msg.type === 'ping') ws.send(JSON.stringify({ type: 'pong' }));
      this.messages.push(msg);
      for (const w of this.waiters.splice(0)) w();
    });
    ws.on('close', () => {
      for (const w of this.waiters.splice(0)) w();
    });
  }

  /** Connects and completes `connection_init` / `connection_ack`. */
  static async open(url: string, protocol: WsProtocol): Promise<GraphQLSocket> {
    const ws = protocol === 'legacy' ? new WebSocket(url) : new WebSocket(url, 'graphql-transport-ws');
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const s = new GraphQLSocket(ws, protocol);
    ws.send(JSON.stringify({ type: 'connection_init', payload: {} }));
    await s.waitFor((m) => m.type === 'connection_ack');
    return s;
  }

  subscribe(id: string, query: string, variables: Record<string, unknown> = {}): void {
    this.ws.send(JSON.stringify({ id, type: this.protocol === 'legacy' ? 'start' : 'subscribe', payload: { query, variables } }));
  }

  stop(id: string): void {
    this.ws.send(JSON.stringify({ id, type: this.protocol === 'legacy' ? 'stop' : 'complete' }));
  }

  /** Data payloads received for one subscription id, in order. */
  data(id: string): Record<string, unknown>[] {
    const type = this.protocol === 'legacy' ? 'data' : 'next';
    return this.messages.filter((m) => m.id === id && m.type === type).map((m) => m.payload!.data!);
  }

  /** Resolves with the first message (already received or coming) that satisfies `pred`. */
  async waitFor(pred: (m: WsMessage) => boolean, timeoutMs = 20_000): Promise<WsMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find(pred);
      if (found) return found;
      if (this.ws.readyState !== WebSocket.OPEN) throw new Error('socket closed while waiting');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out; messages so far: ${JSON.stringify(this.messages).slice(0, 2000)}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Waits until `count` data payloads for `id` satisfy `pred`. */
  async waitForData(id: string, pred: (d: Record<string, unknown>) => boolean, count = 1, timeoutMs = 20_000): Promise<Record<string, unknown>[]> {
    const type = this.protocol === 'legacy' ? 'data' : 'next';
    const matching = () => this.messages.filter((m) => m.id === id && m.type === type && pred(m.payload!.data!));
    await this.waitFor(() => matching().length >= count, timeoutMs);
    return matching().map((m) => m.payload!.data!);
  }

  close(): void {
    this.ws.close();
  }
}
