/**
 * A client of weir's management API (GraphQL), as `weir top` and `weir tap` use it: queries over
 * HTTP POST, subscriptions over one WebSocket speaking the `graphql-ws` protocol (the one Vector's
 * own tools speak), so both commands work against any weir, local or remote.
 */
import { randomUUID } from 'node:crypto';
import { Observable } from 'rxjs';
import WebSocket from 'ws';

/** A GraphQL error list or a transport failure, with the text the server gave. */
export class ApiError extends Error {}

/** POSTs one query document; resolves with its `data`, rejects with the server's errors or the transport's. */
export async function query<T>(url: string, document: string, variables: Record<string, unknown> = {}, timeoutMs = 5000): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query: document, variables }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    throw new ApiError(`cannot reach the API at ${url}: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}`);
  }
  const text = await res.text();
  let body: { data?: T; errors?: { message: string }[] };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    throw new ApiError(`the API at ${url} answered ${res.status} with no GraphQL response`);
  }
  if (body.errors?.length) throw new ApiError(body.errors.map((e) => e.message).join('; '));
  if (body.data === undefined) throw new ApiError(`the API at ${url} answered ${res.status} without data`);
  return body.data;
}

/** Whether the API answers its `health` query (the first thing Vector's tools ask). */
export async function healthy(url: string): Promise<boolean> {
  try {
    const d = await query<{ health: boolean }>(url, 'query HealthQuery { health }');
    return d.health === true;
  } catch {
    return false;
  }
}

/** The WebSocket address of a GraphQL URL: http → ws, https → wss. */
export function webSocketUrl(url: string): string {
  const u = new URL(url);
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  return u.toString();
}

/** One subscription of a shared connection. */
export interface Subscription {
  readonly document: string;
  readonly variables?: Record<string, unknown>;
}

/** A message of a subscription: which one (index into the list given) and its data. */
export interface SubscriptionData {
  readonly index: number;
  readonly data: Record<string, unknown>;
}

/**
 * Opens one WebSocket, starts every subscription on it and emits their data; completes when the
 * server closes the socket, errors on a protocol error (callers retry to reconnect).
 */
export function subscribeAll(url: string, subscriptions: readonly Subscription[]): Observable<SubscriptionData> {
  return new Observable<SubscriptionData>((out) => {
    const ws = new WebSocket(webSocketUrl(url), 'graphql-ws');
    const ids: string[] = subscriptions.map(() => randomUUID());
    const send = (m: unknown) => ws.readyState === WebSocket.OPEN && ws.send(JSON.stringify(m));
    ws.on('open', () => send({ type: 'connection_init', payload: {} }));
    ws.on('message', (raw) => {
      let m: { type: string; id?: string; payload?: { data?: Record<string, unknown>; errors?: { message: string }[]; message?: string } };
      try {
        m = JSON.parse(String(raw)) as typeof m;
      } catch {
        return;
      }
      switch (m.type) {
        case 'connection_ack':
          subscriptions.forEach((s, i) => send({ id: ids[i], type: 'start', payload: { query: s.document, variables: s.variables ?? {} } }));
          return;
        case 'data': {
          const index = ids.indexOf(m.id ?? '');
          if (m.payload?.errors?.length) return out.error(new ApiError(m.payload.errors.map((e) => e.message).join('; ')));
          if (index >= 0 && m.payload?.data) out.next({ index, data: m.payload.data });
          return;
        }
        case 'error':
        case 'connection_error':
          return out.error(new ApiError(m.payload?.message ?? JSON.stringify(m.payload)));
      }
    });
    ws.on('error', (err) => out.error(new ApiError(`cannot reach the API at ${url}: ${err.message}`)));
    ws.on('close', () => out.complete());
    return () => {
      for (const id of ids) send({ id, type: 'stop' });
      ws.terminate();
    };
  });
}
