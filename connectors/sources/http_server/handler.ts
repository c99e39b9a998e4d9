/**
 * One request of the `http_server` source, answered as Vector's `http_server` answers it: the
 * configured `response_code` with an empty body on success; a JSON `{ code, message }` body for the
 * source's own errors (401 credentials, 404 outside a strict path, 413 body over the limit, 415
 * unsupported `Content-Encoding`, 422 a body that does not decompress, 400 a body that does not
 * decode, 500 and 400 when delivery errored or was rejected); 405 for another method; `GET /ping`
 * answers `pong`. While the output is full a request is held, then refused with 503 and
 * `Retry-After`.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SourceContext } from '../../../lib/component.js';
import { type Deserializer, type FramingConfig, type Stamp, createDeframer, frameDiscardReporter } from '../../../lib/codecs/index.js';
import type { DeliveryStatus, Event, EventBatch } from '../../../lib/event.js';
import { type CompressionAlgorithm, DecompressLimitError, decompress } from '../../../lib/net/compression.js';
import type { Path } from '../../../lib/path.js';
import { Timestamp } from '../../../lib/value.js';
import type { SourceOutput } from '../../shared/source/index.js';
import type { HttpServerEvents } from './events.js';
import { type HoldWhileClosed, REQUEST_HOLD_TIMEOUT_MS } from '../../shared/source/index.js';

/** Seconds a refused client is asked to wait (`Retry-After`). */
const RETRY_AFTER_SECS = 1;
import type { ThreadedRequest } from './decoder.js';
import { type RequestFields, enrichFields, requestFields } from './enrich.js';
import type { ParamPattern } from './params.js';

/** What the handler needs, compiled once at build time. */
export interface HandlerOptions {
  readonly method: string;
  /** Non-empty segments of the configured `path`. */
  readonly segments: readonly string[];
  readonly strictPath: boolean;
  /** `path_key` parsed; undefined: no path field. */
  readonly pathKey: Path | undefined;
  /** `host_key` parsed; undefined: no host field. */
  readonly hostKey: Path | undefined;
  readonly responseCode: number;
  readonly headers: readonly ParamPattern[];
  readonly queryParameters: readonly ParamPattern[];
  /** `Authorization` header value that `auth` expects; undefined: no authentication. */
  readonly authorization: Buffer | undefined;
  readonly framing: FramingConfig;
  readonly deserializer: Deserializer;
  /** Cap on the raw body and on the decompressed body, in bytes. */
  readonly maxBytes: number;
}

/** Content codings the source decompresses; zstd and snappy are absent (Node 20's zlib has no zstd). */
const ENCODINGS: Readonly<Record<string, CompressionAlgorithm>> = { identity: 'none', gzip: 'gzip', deflate: 'zlib' };

/** A request that ends with one of the source's own error statuses. */
class Refusal {
  constructor(
    readonly status: number,
    readonly message: string,
  ) {}
}

/** Builds the request listener of one running source. */
export function createHandler(
  ctx: SourceContext,
  out: SourceOutput,
  events: HttpServerEvents,
  o: HandlerOptions,
  /** The subscription's queue of requests held while the output is full. */
  held: HoldWhileClosed,
): (req: IncomingMessage, res: ServerResponse) => void {
  const onDiscard = frameDiscardReporter(ctx);

  const { segments, strictPath } = o;

  /** The request path matches the configured one segment by segment; strict: with nothing after it. */
  const routes = (path: string): 'match' | 'tail' | 'miss' => {
    let at = 0;
    const n = path.length;
    for (let s = 0; s < segments.length; s++) {
      while (at < n && path.charCodeAt(at) === 0x2f) at++;
      const seg = segments[s]!;
      if (!path.startsWith(seg, at)) return 'miss';
      at += seg.length;
      if (at < n && path.charCodeAt(at) !== 0x2f) return 'miss';
    }
    if (!strictPath) return 'match';
    while (at < n && path.charCodeAt(at) === 0x2f) at++;
    return at === n ? 'match' : 'tail';
  };

  /** Answers with the JSON error body; `counted`: the request itself was at fault (credentials, body), as Vector counts bad requests. */
  const refuse = (res: ServerResponse, peer: string | undefined, r: Refusal, headers?: Record<string, string>, counted = true) => {
    if (counted) events.badRequest(r.status, r.message, peer);
    const body = JSON.stringify({ code: r.status, message: r.message });
    res.writeHead(r.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
    res.end(body);
  };

  const authorized = (req: IncomingMessage): Refusal | undefined => {
    const expected = o.authorization as Buffer;
    const given = req.headers.authorization;
    if (given === undefined) return new Refusal(401, 'No authorization header');
    const buf = Buffer.from(given);
    if (buf.length !== expected.length || !timingSafeEqual(buf, expected)) return new Refusal(401, 'Invalid username/password');
    return undefined;
  };

  /** Reads the body up to the cap; null when it went over (the rest is read and discarded, so the reply reaches the client). */
  const readBody = (req: IncomingMessage): Promise<Buffer | null> =>
    new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let over = false;
      req.on('data', (chunk: Buffer) => {
        if (over) return;
        size += chunk.length;
        if (size > o.maxBytes) {
          over = true;
          chunks.length = 0;
          return;
        }
        chunks.push(chunk);
      });
      req.on('end', () => resolve(over ? null : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
      req.on('error', reject);
    });

  const decompressBody = async (header: string | undefined, raw: Buffer): Promise<Buffer> => {
    if (header === undefined || header === '') return raw;
    const codings = header.split(',');
    // codings apply in the order listed, so they are undone from the last
    let body = raw;
    for (let i = codings.length - 1; i >= 0; i--) {
      const name = codings[i]!.trim().toLowerCase();
      const algorithm = ENCODINGS[name];
      if (algorithm === undefined) throw new Refusal(415, `Unsupported encoding ${name}`);
      if (algorithm === 'none') continue;
      try {
        body = await decompress(body, { algorithm, maxBytes: o.maxBytes });
      } catch (err) {
        if (err instanceof DecompressLimitError) throw new Refusal(413, `Decompressed ${name} body exceeds limit of ${o.maxBytes} bytes.`);
        throw new Refusal(422, `Failed decompressing payload with ${name} decoder.`);
      }
    }
    return body;
  };

  /** Frames and decodes the whole body; the first frame that does not decode refuses the request. */
  const decodeBody = (body: Buffer, stamp: Stamp): EventBatch => {
    const batch: Event[] = [];
    let failure: string | undefined;
    const deframer = createDeframer(o.framing, { onDiscard, defaultMaxLength: o.maxBytes });
    const frame = (buf: Buffer, start: number, end: number) => {
      if (failure !== undefined) return;
      try {
        o.deserializer.decode(buf, start, end, stamp, batch);
      } catch (err) {
        failure = (err as Error).message;
      }
    };
    deframer.push(body, frame);
    deframer.end(frame);
    if (failure !== undefined) {
      events.decodeFailed(failure);
      throw new Refusal(400, `Failed decoding body: ${failure}`);
    }
    return batch;
  };

  /** Adds Vector's request fields to every log event (metrics pass as decoded). */
  const enrich = (batch: EventBatch, fields: RequestFields) => {
    for (let i = 0; i < batch.length; i++) {
      const e = batch[i]!;
      if (e.type === 'log') enrichFields(e.fields, fields, o.pathKey, o.hostKey);
    }
  };

  const serve = async (req: IncomingMessage, res: ServerResponse, path: string, query: string, peer: string | undefined): Promise<void> => {
    if (o.authorization !== undefined) {
      const r = authorized(req);
      if (r !== undefined) {
        req.resume();
        return refuse(res, peer, r);
      }
    }
    if (!out.isOpen) {
      events.backpressure(false);
      const admitted = held.wait(REQUEST_HOLD_TIMEOUT_MS);
      if (admitted !== true && !(await admitted)) {
        events.backpressure(true);
        // the body stays unread: closing the connection spares reading it
        return refuse(res, peer, new Refusal(503, 'The pipeline is full; retry later.'), { 'retry-after': String(RETRY_AFTER_SECS), connection: 'close' }, false);
      }
    }
    const declared = Number(req.headers['content-length'] ?? '0');
    if (declared > o.maxBytes) return refuse(res, peer, new Refusal(413, `Request body exceeds limit of ${o.maxBytes} bytes.`), { connection: 'close' });
    const raw = await readBody(req);
    if (raw === null) return refuse(res, peer, new Refusal(413, `Request body exceeds limit of ${o.maxBytes} bytes.`));
    let body: Buffer;
    try {
      body = await decompressBody(req.headers['content-encoding'], raw);
    } catch (err) {
      if (err instanceof Refusal) return refuse(res, peer, err);
      throw err;
    }
    events.received(path, body.length);
    const at = Math.floor(ctx.scheduler.now());
    const fields = requestFields(req, path, query, o.hostKey !== undefined ? peer : undefined, o.headers, o.queryParameters);
    let status: DeliveryStatus;
    let count: number;
    if (ctx.threaded) {
      // a pipeline worker decodes the body, whole or not at all (docs/threads.md)
      const meta: ThreadedRequest = { at, fields };
      const outcome = await ctx.threaded.message(body, meta, out.acknowledges);
      if ('refused' in outcome) {
        events.decodeFailed(outcome.refused);
        return refuse(res, peer, new Refusal(400, `Failed decoding body: ${outcome.refused}`));
      }
      ({ status, events: count } = outcome);
    } else {
      let batch: EventBatch;
      try {
        batch = decodeBody(body, { timestamp: new Timestamp(at, 0), host: undefined, port: undefined });
      } catch (err) {
        if (err instanceof Refusal) return refuse(res, peer, err);
        throw err;
      }
      enrich(batch, fields);
      count = batch.length;
      const pending = out.emitAwait(batch);
      status = typeof pending === 'string' ? pending : await pending;
    }
    if (status === 'delivered') {
      res.writeHead(o.responseCode, { 'content-length': 0 });
      res.end();
      return;
    }
    events.deliveryFailed(status, count);
    refuse(res, peer, status === 'errored' ? new Refusal(500, 'Error delivering contents to sink') : new Refusal(400, 'Contents failed to deliver to sink'), undefined, false);
  };

  return (req, res) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const query = q < 0 ? '' : url.slice(q + 1);
    const peer = peerIp(req.socket.remoteAddress);
    req.on('error', () => undefined); // a client that goes away mid-body: nothing to answer
    const route = req.method === o.method ? routes(path) : 'method';
    if (route !== 'match') {
      req.resume();
      if (req.method === 'GET' && path === '/ping') {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 4 });
        return void res.end('pong');
      }
      if (route === 'method') {
        res.writeHead(405, { 'content-type': 'text/plain' });
        return void res.end('HTTP method not allowed');
      }
      if (route === 'tail') return refuse(res, peer, new Refusal(404, 'Not found'), undefined, false);
      res.writeHead(404, { 'content-length': 0 });
      return void res.end();
    }
    serve(req, res, path, query, peer).catch((err: unknown) => {
      // an unexpected failure answers 500 rather than escaping as an unhandled rejection
      events.listenerFailed(err as Error);
      if (!res.headersSent) refuse(res, peer, new Refusal(500, 'Internal error'), undefined, false);
      else res.destroy();
    });
  };
}

/** The peer's IP as Vector writes it: an IPv4 client of a dual-stack listener without its `::ffff:` prefix. */
function peerIp(address: string | undefined): string | undefined {
  return address !== undefined && address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}
