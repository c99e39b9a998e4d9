/** A downstream address of the `vector` sink, as Vector reads it: a scheme is optional, a port is not. */

/** Where to connect and whether with TLS. */
export interface VectorEndpoint {
  /** `host:port` for grpc-js (IPv6 hosts in brackets). */
  readonly target: string;
  readonly tls: boolean;
  /** As written in the config, for logs and the endpoint tag. */
  readonly address: string;
}

/** Parses `host:port`, `http://host:port` or `https://host:port`; a message when it is none of these. */
export function parseEndpoint(address: string, tlsEnabled: boolean): VectorEndpoint | string {
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(address);
  let url: URL;
  try {
    url = new URL(hasScheme ? address : `${tlsEnabled ? 'https' : 'http'}://${address}`);
  } catch {
    return 'must be host:port or an http(s) URL with a port';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'the scheme must be http or https';
  if (url.pathname !== '/' && url.pathname !== '') return 'must not have a path';
  // URL drops a scheme's default port: read it from the text
  const port = /:(\d+)\/?$/.exec(address)?.[1];
  if (port === undefined) return 'must include a port';
  return { target: `${url.hostname}:${Number(port)}`, tls: url.protocol === 'https:' || tlsEnabled, address };
}
