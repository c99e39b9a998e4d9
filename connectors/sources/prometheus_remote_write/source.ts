/**
 * The `prometheus_remote_write` source: an HTTP(S) listener taking `POST <path>` with a snappy
 * (by default; `Content-Encoding` may name gzip, deflate or identity instead) protobuf
 * `WriteRequest`, as Prometheus sends it. Each request becomes one batch of absolute metrics; the
 * answer is 200 once the batch is taken (or, with acknowledgements, delivered: 500 when delivery
 * errored, 400 when it was rejected). A body that does not decode gets 400, another path 404,
 * another method 405, missing credentials 401. While the output is full a request is held, then
 * refused with 503 and `Retry-After`, which Prometheus retries.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Observable } from 'rxjs';
import type { SourceContext } from '../../../lib/component.js';
import type { EventBatch } from '../../../lib/event.js';
import { type CompressionAlgorithm, DEFAULT_MAX_DECOMPRESSED_BYTES, decompress } from '../../../lib/net/compression.js';
import { snappyUncompress } from '../../../lib/net/snappy.js';
import { type SocketAddress, parseSocketAddress } from '../../../lib/net/socket-address.js';
import { Timestamp } from '../../../lib/value.js';
import { listenerTls } from '../../shared/listener-config.js';
import { listenHttp } from '../../shared/prometheus/http-server.js';
import { groupWriteRequest } from '../../shared/prometheus/remote-write-groups.js';
import { decodeWriteRequest } from '../../shared/prometheus/remote-write-proto.js';
import { ParseError } from '../../shared/prometheus/text-parse.js';
import { familiesToMetrics } from '../../shared/prometheus/to-metrics.js';
import { REQUEST_HOLD_TIMEOUT_MS, holdWhileClosed, runSource } from '../../shared/source/index.js';
import type { PrometheusRemoteWriteSourceConfig } from './config.js';
import { remoteWriteEvents } from './events.js';

/** Seconds a refused client is asked to wait. */
const RETRY_AFTER_SECS = 1;

/** Content-Encoding values and what undoes them; snappy when the header is absent, as Prometheus always compresses. */
const ENCODINGS: Record<string, CompressionAlgorithm> = { snappy: 'snappy', gzip: 'gzip', 'x-gzip': 'gzip', deflate: 'zlib', identity: 'none' };

class Refusal {
  constructor(
    readonly status: number,
    readonly message: string,
    readonly parse = false,
  ) {}
}

export function buildPrometheusRemoteWriteSource(config: PrometheusRemoteWriteSourceConfig, ctx: SourceContext): Observable<EventBatch> {
  const tls = listenerTls(config.tls);
  const address = parseSocketAddress(config.address) as SocketAddress;
  const maxBytes = ctx.globals.max_decompressed_bytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES;
  const expected = config.auth && Buffer.from(`Basic ${Buffer.from(`${config.auth.username}:${config.auth.password}`).toString('base64')}`);
  const origin = { sourceId: ctx.id, sourceType: 'prometheus_remote_write' };
  const events = remoteWriteEvents(ctx);

  return runSource(ctx, { protocol: tls ? 'https' : 'http', acknowledgements: config.acknowledgements.enabled === true }, (out) => {
    const held = holdWhileClosed(ctx.out, ctx.scheduler);
    const answer = (res: ServerResponse, status: number, body = '', headers: Record<string, string> = {}) => {
      events.answered(status);
      res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(body);
    };
    const refuse = (res: ServerResponse, r: Refusal, headers?: Record<string, string>) => {
      events.refused(r.status, r.message, r.parse);
      answer(res, r.status, r.message, headers);
    };

    /** The body's metrics; throws a {@link Refusal}. */
    const decodeBody = async (req: IncomingMessage, raw: Buffer): Promise<EventBatch> => {
      const encoding = (req.headers['content-encoding'] ?? 'snappy').trim().toLowerCase();
      const algorithm = ENCODINGS[encoding];
      if (algorithm === undefined) throw new Refusal(415, `Unsupported Content-Encoding ${JSON.stringify(encoding)}`);
      let body: Buffer;
      try {
        body = algorithm === 'snappy' ? snappyUncompress(raw, maxBytes) : await decompress(raw, { algorithm, maxBytes });
      } catch (err) {
        throw new Refusal(400, `Could not decompress the ${encoding} body: ${(err as Error).message}`, true);
      }
      try {
        const families = groupWriteRequest(decodeWriteRequest(body), config.metadata_conflict_strategy);
        // every remote-write sample has a timestamp; the default is never used
        return familiesToMetrics(families, new Timestamp(Math.floor(ctx.scheduler.now())), origin, config.skip_nan_values);
      } catch (err) {
        const reason = err instanceof ParseError ? err.message : `not a WriteRequest: ${(err as Error).message}`;
        throw new Refusal(400, `Could not decode write request: ${reason}`, true);
      }
    };

    const handle = async (req: IncomingMessage, res: ServerResponse) => {
      const path = (req.url ?? '/').split('?')[0];
      if (path !== config.path) return refuse(res, new Refusal(404, 'Not found'));
      if (req.method !== 'POST') return refuse(res, new Refusal(405, 'Method not allowed'), { allow: 'POST' });
      if (expected !== undefined) {
        const got = Buffer.from(req.headers.authorization ?? '');
        if (got.length !== expected.length || !timingSafeEqual(got, expected)) return refuse(res, new Refusal(401, 'Invalid username/password'), { 'www-authenticate': 'Basic' });
      }
      const raw = await readBody(req, maxBytes);
      if (raw === undefined) return refuse(res, new Refusal(413, `Request body exceeds limit of ${maxBytes} bytes.`), { connection: 'close' });
      out.received(raw.length);
      let batch: EventBatch;
      try {
        batch = await decodeBody(req, raw);
      } catch (err) {
        if (err instanceof Refusal) return refuse(res, err);
        throw err;
      }
      const admitted = held.wait(REQUEST_HOLD_TIMEOUT_MS);
      if (admitted !== true && !(await admitted)) return refuse(res, new Refusal(503, 'The pipeline is full; retry later.'), { 'retry-after': String(RETRY_AFTER_SECS) });
      const status = await out.emitAwait(batch);
      if (status === 'delivered') return answer(res, 200);
      refuse(res, status === 'errored' ? new Refusal(500, 'Error delivering contents to sink') : new Refusal(400, 'Contents failed to deliver to sink'));
    };

    let server: { close(): void } | undefined;
    let closed = false;
    listenHttp(address, tls, (req, res) => {
      handle(req, res).catch((err: unknown) => {
        ctx.log.error('Remote-write request failed.', { error: (err as Error).message });
        if (!res.headersSent) answer(res, 500, 'Internal error');
      });
    }).then(
      (s) => {
        if (closed) return s.close();
        server = s;
        ctx.log.info('Listening.', { protocol: tls ? 'https' : 'http', address: `${address.host}:${s.port}` });
      },
      (err: unknown) => out.fail(err),
    );
    return {
      close() {
        closed = true;
        held.close();
        server?.close();
      },
    };
  });
}

/** The whole body, or undefined once it passes `maxBytes` (the rest is not read). */
function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > maxBytes) {
        req.removeAllListeners('data');
        req.resume();
        resolve(undefined);
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(size > maxBytes ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
