/**
 * `host:port` socket addresses as written in configs (`0.0.0.0:9000`, `[::1]:514`, `localhost:80`).
 */

/** A parsed address; `host` without IPv6 brackets. */
export interface SocketAddress {
  readonly host: string;
  readonly port: number;
}

/** Parses `host:port`; returns a reason string when malformed. */
export function parseSocketAddress(text: string): SocketAddress | string {
  const colon = text.lastIndexOf(':');
  if (colon <= 0) return `"${text}" is not host:port`;
  let host = text.slice(0, colon);
  const portText = text.slice(colon + 1);
  if (host.startsWith('[')) {
    if (!host.endsWith(']')) return `"${text}": unterminated IPv6 bracket`;
    host = host.slice(1, -1);
  } else if (host.includes(':')) {
    return `"${text}": IPv6 addresses need brackets ([::1]:port)`;
  }
  if (!/^\d+$/.test(portText)) return `"${text}": port must be a number`;
  const port = Number(portText);
  if (port > 65535) return `"${text}": port must be at most 65535`;
  if (host === '') return `"${text}": missing host`;
  return { host, port };
}

/** Renders an address back (`[::1]:514`). */
export function formatSocketAddress(a: SocketAddress): string {
  return a.host.includes(':') ? `[${a.host}]:${a.port}` : `${a.host}:${a.port}`;
}
