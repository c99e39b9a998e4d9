/**
 * Writing one object over the XML API: a single `PUT /<bucket>/<key>`, or for large bodies a
 * resumable upload: `POST` with `x-goog-resumable: start` opens a session (201, its URL in
 * `Location`), then `PUT`s of whole 256 KiB multiples with `Content-Range`, each answered 308
 * with the `Range` stored so far, the last one 200. Each attempt starts a new session.
 */
import type { HttpResponse } from '../../../lib/net/http-client.js';
import type { HttpService } from '../../shared/http/service.js';
import { objectUrl } from './headers.js';
import type { ObjectRequest } from './request.js';

export interface UploadOptions {
  readonly endpoint: string;
  readonly bucket: string;
  /** Object headers (content type and encoding, ACL, storage class, metadata). */
  readonly headers: Record<string, string>;
  readonly thresholdBytes: number;
  readonly chunkBytes: number;
  /** The URL as the credentials want it (`key=` with an API key). */
  readonly authUrl: (url: string) => string;
}

/** Writes one object; resolves with the answer that decides the attempt (the first one that is not a step forward). */
export function createObjectUploader(http: HttpService, opts: UploadOptions): (req: ObjectRequest, signal: AbortSignal) => Promise<HttpResponse> {
  const simple = (req: ObjectRequest, signal: AbortSignal) =>
    http.send({ method: 'PUT', url: opts.authUrl(objectUrl(opts.endpoint, opts.bucket, req.key)), body: req.body, headers: opts.headers }, signal);

  const resumable = async (req: ObjectRequest, signal: AbortSignal): Promise<HttpResponse> => {
    const start = await http.send(
      { method: 'POST', url: opts.authUrl(objectUrl(opts.endpoint, opts.bucket, req.key)), body: Buffer.alloc(0), headers: { ...opts.headers, 'x-goog-resumable': 'start' } },
      signal,
    );
    if (start.status !== 201) return start;
    const location = start.headers.get('location');
    if (!location) return { status: 502, headers: start.headers, body: 'resumable upload start answered 201 without a Location' };
    const session = new URL(location, opts.endpoint).toString();
    const total = req.body.length;
    let offset = 0;
    for (;;) {
      const end = Math.min(offset + opts.chunkBytes, total);
      const isLast = end === total;
      const res = await http.send(
        { method: 'PUT', url: session, body: req.body.subarray(offset, end), headers: { 'content-range': `bytes ${offset}-${end - 1}/${isLast ? total : '*'}` } },
        signal,
      );
      if (res.status !== 308) return res;
      // the service says how much it has: go on from there (it may have kept less than was sent)
      const stored = /^bytes=0-(\d+)$/.exec(res.headers.get('range') ?? '');
      const next = stored ? Number(stored[1]) + 1 : 0;
      if (next >= total) return { status: 502, headers: res.headers, body: 'resumable upload: every byte stored but no final answer' };
      // no progress at all: give the attempt up (retried from a new session) rather than loop
      if (next <= offset) return { status: 503, headers: res.headers, body: `resumable upload: nothing stored past byte ${offset}` };
      offset = next;
    }
  };

  return (req, signal) => (req.body.length >= opts.thresholdBytes ? resumable(req, signal) : simple(req, signal));
}
