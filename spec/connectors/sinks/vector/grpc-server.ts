/**
 * A strict gRPC endpoint for the `vector` sink specs, on node:http2 rather than a gRPC library, so
 * the tests see the wire: paths, headers, the message frames (compressed flag and bytes), PINGs.
 * It accepts only what a gRPC server accepts (POST, `application/grpc`, `te: trailers`, whole
 * length-prefixed frames) and answers with the status the test scripts.
 */
import { type ServerHttp2Stream, createServer, createSecureServer, type IncomingHttpHeaders } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export interface ReceivedCall {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The frame's compressed flag. */
  readonly compressed: boolean;
  /** The message bytes as sent (compressed when the flag is set). */
  readonly wire: Buffer;
  /** The message bytes, inflated. */
  readonly message: Buffer;
}

/** What the server answers one call with: a gRPC status code, or `stall` (no answer). */
export type Answer = number | 'stall';

export interface GrpcTestServer {
  readonly port: number;
  readonly calls: ReceivedCall[];
  /** PING frames received from clients. */
  pings: number;
  /** Calls answered so far and still open. */
  readonly open: number;
  /** Answers every stalled call OK. */
  release(): void;
  /** Scripts the answer of the n-th call (0-based), default OK. */
  answer: (n: number, call: ReceivedCall) => Answer;
  close(): Promise<void>;
}

/** Starts one; `port` 0 takes a free one (a fixed one brings a closed server back where it was). */
export async function grpcTestServer(tls?: { key: Buffer; cert: Buffer }, port = 0): Promise<GrpcTestServer> {
  const calls: ReceivedCall[] = [];
  const streams = new Set<ServerHttp2Stream>();
  const onStream = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      const trailersOnly = (status: number, message = '') => {
        stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': String(status), 'grpc-message': encodeURIComponent(message) }, { endStream: true });
      };
      if (headers[':method'] !== 'POST' || !String(headers['content-type']).startsWith('application/grpc') || headers.te !== 'trailers') return trailersOnly(13, 'not a gRPC request');
      const body = Buffer.concat(chunks);
      if (body.length < 5 || body.readUInt32BE(1) !== body.length - 5) return trailersOnly(13, 'not exactly one whole frame');
      const compressed = body[0] === 1;
      const wire = body.subarray(5);
      if (compressed && headers['grpc-encoding'] !== 'gzip') return trailersOnly(12, 'compressed without grpc-encoding: gzip');
      const call: ReceivedCall = { path: String(headers[':path']), headers, compressed, wire, message: compressed ? gunzipSync(wire) : wire };
      const n = calls.length;
      calls.push(call);
      const a = server.answer(n, call);
      if (a === 'stall') {
        streams.add(stream);
        stream.on('close', () => streams.delete(stream));
        return;
      }
      if (a !== 0) return trailersOnly(a, `scripted ${a}`);
      ok(stream);
    });
  };
  const ok = (stream: ServerHttp2Stream) => {
    stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
    // an empty PushEventsResponse (and an empty SERVING HealthCheckResponse)
    stream.end(Buffer.from([0, 0, 0, 0, 0]));
  };
  const h2 = tls ? createSecureServer({ key: tls.key, cert: tls.cert, allowHTTP1: false }) : createServer();
  h2.on('stream', onStream);
  const sessions = new Set<import('node:http2').ServerHttp2Session>();
  h2.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
    session.on('ping', () => server.pings++);
  });
  await new Promise<void>((r) => h2.listen(port, '127.0.0.1', r));
  const server: GrpcTestServer = {
    port: (h2.address() as AddressInfo).port,
    calls,
    pings: 0,
    get open() {
      return streams.size;
    },
    answer: () => 0,
    release() {
      for (const st of [...streams]) {
        streams.delete(st);
        ok(st);
      }
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of streams) s.close();
        h2.close(() => r());
        // as a process that dies: the clients' connections go too
        for (const s of sessions) s.destroy();
      }),
  };
  return server;
}

