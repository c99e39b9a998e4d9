/**
 * The `fetch` google-auth-library's token requests go through: weir's HTTP client, so that the
 * exchange at a key file's `token_uri` uses the sink's `tls` (a private CA) and proxy settings like
 * every other request of the sink.
 */
import { type HttpClient, MAX_BODY_TEXT } from '../../../lib/net/http-client.js';

/** Statuses whose response has no body (a Response given one throws). */
const NO_BODY = new Set([101, 204, 205, 304]);

/** A WHATWG `fetch` over `client`; the body is read whole (token answers are small). */
export function clientFetch(client: HttpClient): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    // a Request fills in what fetch would: the form content type of a URLSearchParams body
    const req = new Request(input, init);
    const headers: Record<string, string> = {};
    req.headers.forEach((val, key) => (headers[key] = val));
    const body = req.body ? Buffer.from(await req.arrayBuffer()) : undefined;
    const res = await client.send({ url: req.url, method: req.method, headers, body, signal: init?.signal ?? undefined, maxBodyChars: MAX_BODY_TEXT });
    return new Response(NO_BODY.has(res.status) ? null : res.body, { status: res.status, headers: res.headers });
  }) as typeof fetch;
}
