/**
 * Where a stream listener binds: `host:port`, a unix socket file, or a socket handed over by
 * systemd socket activation (`systemd`, `systemd#N`, as Vector's `address` takes them).
 */
import { parseSocketAddress } from '../../lib/net/socket-address.js';

/** A resolved listen target; `index` of a systemd socket counts from 0. */
export type ListenTarget =
  | { readonly kind: 'tcp'; readonly host: string; readonly port: number }
  | { readonly kind: 'unix'; readonly path: string }
  | { readonly kind: 'systemd'; readonly index: number };

/** systemd passes activated sockets from this descriptor on (sd_listen_fds(3)). */
const SD_LISTEN_FDS_START = 3;

/**
 * Parses `host:port`, or with `systemd` allowed also `systemd` (the first passed socket) and
 * `systemd#N` (the N-th, 1-based: `systemd#0` is an error); returns a reason when malformed.
 */
export function parseListenAddress(text: string, options: { readonly systemd: boolean }): ListenTarget | string {
  if (options.systemd && (text === 'systemd' || text.startsWith('systemd#'))) {
    if (text === 'systemd') return { kind: 'systemd', index: 0 };
    const n = text.slice('systemd#'.length);
    if (!/^\d+$/.test(n) || Number(n) < 1) return `"${text}": the socket number after systemd# counts from 1`;
    return { kind: 'systemd', index: Number(n) - 1 };
  }
  const a = parseSocketAddress(text);
  return typeof a === 'string' ? a : { kind: 'tcp', host: a.host, port: a.port };
}

/**
 * The descriptor of the activated socket at `index`, checked against `LISTEN_FDS` (and
 * `LISTEN_PID` when set: the sockets may have been meant for a parent); a reason otherwise.
 */
export function systemdFd(index: number, env: NodeJS.ProcessEnv = process.env, pid: number = process.pid): number | string {
  const count = Number(env.LISTEN_FDS ?? '0');
  if (env.LISTEN_PID !== undefined && Number(env.LISTEN_PID) !== pid) return `systemd sockets were passed to process ${env.LISTEN_PID}, not to this one (${pid})`;
  if (!Number.isInteger(count) || count <= index) return `systemd socket ${index + 1} was not passed (LISTEN_FDS=${env.LISTEN_FDS ?? 'unset'})`;
  return SD_LISTEN_FDS_START + index;
}
