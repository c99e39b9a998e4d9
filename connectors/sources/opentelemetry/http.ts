/**
 * OTLP/HTTP (`POST /v1/logs`) on node:http, or node:https with `http.tls`. node:http rather than
 * fastify: the body is read by hand anyway (a byte cap before buffering, then capped
 * decompression), and holding a request unanswered while the output is full needs no framework.
 * Status codes follow the OTLP/HTTP specification: 200 (with `partialSuccess` when records were
 * refused), 400 undecodable body, 404 traces, metrics and other paths, 405 other methods, 413
 * too large, 415 other content types or encodings, 503 with `Retry-After` when the output stayed
 * full past the hold timeout (until then the request is held unanswered), 500 when delivery
 * failed; error bodies are `google.rpc.Status` in the request's format.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { TlsOptions } from 'node:tls';
import { type CompressionAlgorithm, DecompressLimitError, decompress } from '../../../lib/net/compression.js';
import type { OtlpEvents } from './events.js';
import type { Ingest, Outcome } from './ingest.js';
import { type OtlpLogsProto, encodeResponse, responseJson } from './proto.js';

/** Seconds a client is asked to wait before retrying once a request was held past the timeout. */
export const RETRY_AFTER_SECS = 1;

/** google.rpc.Code values used in error bodies. */
const CODE = { INVALID_ARGUMENT: 3, NOT_FOUND: 5, RESOURCE_EXHAUSTED: 8, UNIMPLEMENTED: 12, INTERNAL: 13, UNAVAILABLE: 14 } as const;

const ENCODINGS: Record<string, CompressionAlgorithm> = { gzip: 'gzip', 'x-gzip': 'gzip', deflate: 'zlib', identity: 'none' };

interface Format {
  readonly json: boolean;
}

/** Creates the server; the caller listens and closes it. */
export function otlpHttpServer(proto: OtlpLogsProto, ingest: Ingest, events: OtlpEvents, maxBytes: number, tls: TlsOptions | undefined): Server {
  const reply = (res: ServerResponse, fmt: Format, status: number, code: number, message: string, headers: Record<string, string> = {}) => {
    const body = fmt.json ? JSON.stringify({ code, message }) : Buffer.from(proto.status.encode(proto.status.create({ code, message })).finish());
    res.writeHead(status, { 'content-type': fmt.json ? 'application/json' : 'application/x-protobuf', ...headers });
    res.end(body);
  };
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    const media = (req.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
    const fmt: Format = { json: media === 'application/json' };
    const peer = req.socket.remoteAddress;
    req.on('error', () => undefined); // a client that goes away mid-body: nothing to answer
    if (path !== '/v1/logs') {
      req.resume();
      if (path === '/v1/traces' || path === '/v1/metrics')
        return reply(res, fmt, 404, CODE.UNIMPLEMENTED, `${path.slice(4)} are not supported: this source accepts logs only (POST /v1/logs)`);
      return reply(res, fmt, 404, CODE.NOT_FOUND, `no such path ${path}; OTLP logs go to POST /v1/logs`);
    }
    if (req.method !== 'POST') {
      req.resume();
      return reply(res, fmt, 405, CODE.INVALID_ARGUMENT, 'only POST is allowed on /v1/logs', { allow: 'POST' });
    }
    if (!fmt.json && media !== 'application/x-protobuf') {
      req.resume();
      return reply(res, fmt, 415, CODE.INVALID_ARGUMENT, `unsupported content type "${media}"; use application/x-protobuf or application/json`);
    }
    const encodings = (req.headers['content-encoding'] ?? '').split(',').map((s) => s.trim().toLowerCase()).filter((s) => s !== '');
    const algorithms: CompressionAlgorithm[] = [];
    for (let i = encodings.length - 1; i >= 0; i--) {
      const a = ENCODINGS[encodings[i]!];
      if (a === undefined) {
        req.resume();
        return reply(res, fmt, 415, CODE.INVALID_ARGUMENT, `unsupported content encoding "${encodings[i]}"; use gzip, deflate or identity`);
      }
      if (a !== 'none') algorithms.push(a);
    }
    const declared = Number(req.headers['content-length'] ?? '0');
    if (declared > maxBytes) {
      req.resume();
      events.requestInvalid('http', `body of ${declared} bytes exceeds the limit of ${maxBytes}`, peer);
      return reply(res, fmt, 413, CODE.RESOURCE_EXHAUSTED, `request body exceeds ${maxBytes} bytes`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      if (tooLarge) return;
      size += chunk.length;
      if (size > maxBytes) {
        tooLarge = true;
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      events.received('http', size);
      if (tooLarge) {
        events.requestInvalid('http', `body exceeds the limit of ${maxBytes} bytes`, peer);
        return reply(res, fmt, 413, CODE.RESOURCE_EXHAUSTED, `request body exceeds ${maxBytes} bytes`);
      }
      // an unexpected failure answers 500 rather than escaping as an unhandled rejection
      finish(res, fmt, Buffer.concat(chunks, size), algorithms, peer).catch((err: unknown) => {
        events.listenerFailed('http', err as Error);
        if (!res.headersSent) reply(res, fmt, 500, CODE.INTERNAL, 'internal error');
      });
    });
  };

  const finish = async (res: ServerResponse, fmt: Format, raw: Buffer, algorithms: readonly CompressionAlgorithm[], peer: string | undefined) => {
    let body = raw;
    try {
      for (const algorithm of algorithms) body = await decompress(body, { algorithm, maxBytes });
    } catch (err) {
      events.requestInvalid('http', (err as Error).message, peer);
      if (err instanceof DecompressLimitError) return reply(res, fmt, 413, CODE.RESOURCE_EXHAUSTED, `decompressed body exceeds ${maxBytes} bytes`);
      return reply(res, fmt, 400, CODE.INVALID_ARGUMENT, `Failed decompressing payload: ${(err as Error).message}`);
    }
    let parsed: Buffer | unknown = body;
    if (fmt.json) {
      try {
        parsed = JSON.parse(body.toString('utf8'));
      } catch (err) {
        events.requestInvalid('http', (err as Error).message, peer);
        return reply(res, fmt, 400, CODE.INVALID_ARGUMENT, `Could not decode request: ${(err as Error).message}`);
      }
    }
    // a client that goes away while its request is held is not waited for
    const gone = new AbortController();
    res.once('close', () => {
      if (!res.writableEnded) gone.abort();
    });
    // gone during decompression: answering would reach nobody, and the client sends it again
    if (res.destroyed) gone.abort();
    const outcome = await ingest.take('http', parsed, fmt.json, gone.signal);
    answer(res, fmt, outcome, peer);
  };

  const answer = (res: ServerResponse, fmt: Format, outcome: Outcome, peer: string | undefined) => {
    switch (outcome.kind) {
      case 'accepted':
        res.writeHead(200, { 'content-type': fmt.json ? 'application/json' : 'application/x-protobuf' });
        res.end(fmt.json ? responseJson(outcome.partial) : encodeResponse(proto, outcome.partial));
        return;
      case 'full':
        reply(res, fmt, 503, CODE.UNAVAILABLE, 'the pipeline is full; retry later', { 'retry-after': String(RETRY_AFTER_SECS) });
        return;
      case 'abandoned':
        return;
      case 'invalid':
        events.requestInvalid('http', outcome.reason, peer);
        reply(res, fmt, 400, CODE.INVALID_ARGUMENT, outcome.reason);
        return;
      case 'undelivered':
        reply(res, fmt, 500, CODE.INTERNAL, `Delivery failed (${outcome.status})`);
    }
  };

  return tls ? createTlsServer(tls, handle) : createServer(handle);
}
