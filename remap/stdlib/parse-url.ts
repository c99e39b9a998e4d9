/** parse_url and parse_query_string. */
import type { ObjectValue, Value } from '../../lib/value.js';
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { fail } from './errors.js';

function parseQuery(q: string): ObjectValue {
  const out: ObjectValue = {};
  if (q.startsWith('?')) q = q.slice(1);
  if (q === '') return out;
  for (const part of q.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const dec = (x: string): string => {
      try {
        return decodeURIComponent(x.replace(/\+/g, ' '));
      } catch {
        return x;
      }
    };
    const k = dec(eq < 0 ? part : part.slice(0, eq));
    const v = eq < 0 ? '' : dec(part.slice(eq + 1));
    const cur = out[k];
    out[k] = cur === undefined ? v : Array.isArray(cur) ? [...cur, v] : [cur, v];
  }
  return out;
}

const DEFAULT_PORTS: Record<string, number> = { http: 80, https: 443, ws: 80, wss: 443, ftp: 21 };

function parseUrl(s: string, knownPorts: boolean): ObjectValue {
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return fail(`unable to parse url: relative URL without a base`);
  }
  const scheme = u.protocol.replace(/:$/, '');
  let port: Value = u.port === '' ? null : Number(u.port);
  if (port === null && knownPorts) port = DEFAULT_PORTS[scheme] ?? null;
  const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
  return {
    scheme,
    username: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    host: host === '' ? null : host,
    port,
    path: u.pathname,
    query: parseQuery(u.search),
    fragment: u.hash === '' ? null : u.hash.slice(1),
  };
}

/** The functions of this file, for the stdlib list. */
export const urlFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'parse_url',
    description: 'Parses a URL into its parts.',
    fresh: true,
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'default_known_ports', kind: K.BOOLEAN },
    ],
    fallible: true,
    returns: K.K_OBJECT,
    call: ([v, k]) => parseUrl(v as string, k === true),
  }),
  defineFunction({
    name: 'parse_query_string',
    description: 'Parses a URL query string.',
    fresh: true,
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    returns: K.K_OBJECT,
    call: ([v]) => parseQuery(v as string),
  }),
];
