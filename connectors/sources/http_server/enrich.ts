/**
 * The request fields the `http_server` source adds to each log event (Vector's: the path, the
 * peer, selected headers and query parameters), in a module of its own: pipeline workers apply
 * them too (decoder.ts), from what the main thread read of the request.
 */
import type { IncomingMessage } from 'node:http';
import { type Path, getPath, setPath } from '../../../lib/path.js';
import type { ObjectValue } from '../../../lib/value.js';
import { type ParamPattern, selectParams } from './params.js';

/** What a request gives its events: plain data, so it can cross to a pipeline worker. */
export interface RequestFields {
  readonly path: string;
  /** The peer's IP when `host_key` is set. */
  readonly host: string | undefined;
  /** Field name, value pairs flattened: headers first (they never replace a field), then query parameters (they do). */
  readonly pairs: readonly (string | null)[];
  /** Length of the headers' part of {@link pairs}. */
  readonly headerPairs: number;
}

/** Selects the configured headers and query parameters of a request (once per request). */
export function requestFields(
  req: IncomingMessage,
  path: string,
  query: string,
  host: string | undefined,
  headers: readonly ParamPattern[],
  queryParameters: readonly ParamPattern[],
): RequestFields {
  const pairs: (string | null)[] = [];
  if (headers.length > 0) {
    const h = req.headersDistinct;
    selectParams(headers, Object.keys(h), (name) => h[name.toLowerCase()]?.[0], (field, value) => pairs.push(field, value));
  }
  const headerPairs = pairs.length;
  if (queryParameters.length > 0 && query !== '') {
    const params = new Map<string, string>();
    // a repeated parameter keeps its last value
    for (const [k, val] of new URLSearchParams(query)) params.set(k, val);
    selectParams(queryParameters, [...params.keys()], (name) => params.get(name), (field, value) => pairs.push(field, value));
  } else if (queryParameters.length > 0) selectParams(queryParameters, [], () => undefined, (field, value) => pairs.push(field, value));
  return { path, host, pairs, headerPairs };
}

/** Adds a request's fields to one log event's fields. */
export function enrichFields(f: ObjectValue, r: RequestFields, pathKey: Path | undefined, hostKey: Path | undefined): void {
  if (pathKey !== undefined && getPath(f, pathKey) === undefined) setPath(f, pathKey, r.path);
  if (hostKey !== undefined && r.host !== undefined) setPath(f, hostKey, r.host);
  const pairs = r.pairs;
  for (let p = 0; p < r.headerPairs; p += 2) {
    const k = pairs[p] as string;
    if (f[k] === undefined) f[k] = pairs[p + 1]!;
  }
  for (let p = r.headerPairs; p < pairs.length; p += 2) f[pairs[p] as string] = pairs[p + 1]!;
}
