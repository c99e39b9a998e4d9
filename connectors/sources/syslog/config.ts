/** Options of the `syslog` source (Vector's `syslog` source: modes, options and defaults as Vector names them). */
import * as v from 'valibot';
import { pathItem } from '../../../lib/config/options/checks.js';
import { posint } from '../../../lib/config/options/numbers.js';
import { parseSocketAddress } from '../../../lib/net/socket-address.js';
import { connectionLimitSchema, keepaliveSchema, listenerTlsSchema } from '../../shared/listener-config.js';

/** Transports, named as Vector names them (`unix` is a unix stream socket). */
export const SYSLOG_MODES = ['tcp', 'udp', 'unix'] as const;
/** One transport. */
export type SyslogMode = (typeof SYSLOG_MODES)[number];

/** Vector's default `max_length`: 100 KiB per message. */
export const DEFAULT_SYSLOG_MAX_LENGTH = 102_400;

/** The `syslog` source options; mode-specific options are checked against the mode. */
export const SyslogSourceConfig = v.pipe(
  v.strictObject({
    type: v.literal('syslog'),
    mode: v.pipe(v.picklist(SYSLOG_MODES), v.description('Transport: tcp, udp or unix (a unix stream socket).')),
    address: v.optional(v.pipe(v.string(), v.description('Listen address `host:port` (tcp, udp).'))),
    path: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.description('Socket file to listen on (unix).'))),
    max_length: v.optional(
      v.pipe(posint(), v.description('Longest message in bytes on a stream (tcp, unix); longer ones are discarded and counted. Datagrams are read whole.')),
      DEFAULT_SYSLOG_MAX_LENGTH,
    ),
    host_key: v.optional(
      v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.description('Field for the parsed hostname, else the peer address; default the global log_schema.host_key.')),
    ),
    connection_limit: connectionLimitSchema,
    keepalive: keepaliveSchema,
    receive_buffer_bytes: v.optional(
      v.pipe(posint(), v.description('Receive buffer of the socket in bytes (udp); on tcp accepted with a warning: Node.js cannot size accepted sockets.')),
    ),
    tls: listenerTlsSchema,
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const c = dataset.value;
    if (c.mode === 'unix') {
      if (c.path === undefined) addIssue({ message: 'path is required when mode is "unix"', path: [pathItem(c, 'path')] });
      for (const k of ['address', 'receive_buffer_bytes'] as const)
        if (c[k] !== undefined) addIssue({ message: `${k} applies only to tcp and udp (mode is "unix")`, path: [pathItem(c, k)] });
    } else {
      if (c.address === undefined) addIssue({ message: `address is required when mode is "${c.mode}"`, path: [pathItem(c, 'address')] });
      else {
        const a = parseSocketAddress(c.address);
        if (typeof a === 'string') addIssue({ message: a, path: [pathItem(c, 'address')] });
      }
      if (c.path !== undefined) addIssue({ message: `path applies only to unix (mode is "${c.mode}")`, path: [pathItem(c, 'path')] });
    }
    if (c.mode !== 'tcp')
      for (const k of ['connection_limit', 'keepalive', 'tls'] as const)
        if (c[k] !== undefined) addIssue({ message: `${k} applies only to tcp (mode is "${c.mode}")`, path: [pathItem(c, k)] });
  }),
);
/** Validated `syslog` source options. */
export type SyslogSourceConfig = v.InferOutput<typeof SyslogSourceConfig>;
