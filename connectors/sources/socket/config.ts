/** Options of the `socket` source (Vector's `socket` source; modes as Vector names them). */
import * as v from 'valibot';
import { DECODING_CODECS, FRAMING_METHODS, decodingSchema, framingSchema } from '../../../lib/codecs/index.js';
import { pathItem } from '../../../lib/config/options/checks.js';
import { acknowledgementsSchema } from '../../../lib/config/options/envelope.js';
import { posint } from '../../../lib/config/options/numbers.js';
import { parseSocketAddress } from '../../../lib/net/socket-address.js';
import { listenerTlsSchema } from '../../shared/listener-config.js';

/** Transports, named as Vector names them. */
export const SOCKET_MODES = ['tcp', 'udp', 'unix_stream', 'unix_datagram'] as const;
/** One transport. */
export type SocketMode = (typeof SOCKET_MODES)[number];

/** Vector's default `max_length`: 100 KiB per frame (streams) or datagram. */
export const DEFAULT_MAX_LENGTH = 102_400;


/** The `socket` source options; mode-specific options are checked against the mode. */
export const SocketSourceConfig = v.pipe(
  v.strictObject({
    type: v.literal('socket'),
    mode: v.pipe(v.picklist(SOCKET_MODES), v.description('Transport: tcp, udp, unix_stream or unix_datagram.')),
    address: v.optional(v.pipe(v.string(), v.description('Listen address `host:port` (tcp, udp).'))),
    path: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.description('Socket file (unix modes).'))),
    framing: v.optional(framingSchema(FRAMING_METHODS)),
    decoding: decodingSchema(DECODING_CODECS),
    max_length: v.optional(v.pipe(posint(), v.description('Longest frame (streams) or datagram in bytes; longer frames are discarded, datagrams truncated.')), DEFAULT_MAX_LENGTH),
    connection_limit: v.optional(v.pipe(posint(), v.description('Most connections served at once; more wait unread.'))),
    keepalive: v.optional(v.strictObject({ time_secs: v.optional(posint()) })),
    receive_buffer_bytes: v.optional(v.pipe(posint(), v.description('Socket receive buffer size (udp).'))),
    host_key: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'))),
    port_key: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'))),
    shutdown_timeout_secs: v.optional(posint(), 30),
    tls: listenerTlsSchema,
    acknowledgements: acknowledgementsSchema,
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const c = dataset.value;
    const network = c.mode === 'tcp' || c.mode === 'udp';
    const stream = c.mode === 'tcp' || c.mode === 'unix_stream';
    if (c.mode === 'unix_datagram') {
      addIssue({ message: 'mode "unix_datagram" is not supported by this runtime (Node.js has no unix datagram sockets); use unix_stream or udp', path: [pathItem(c, 'mode')] });
      return;
    }
    if (network) {
      if (c.address === undefined) addIssue({ message: `address is required when mode is "${c.mode}"`, path: [pathItem(c, 'address')] });
      else {
        const a = parseSocketAddress(c.address);
        if (typeof a === 'string') addIssue({ message: a, path: [pathItem(c, 'address')] });
      }
      if (c.path !== undefined) addIssue({ message: `path applies only to unix modes (mode is "${c.mode}")`, path: [pathItem(c, 'path')] });
    } else {
      if (c.path === undefined) addIssue({ message: `path is required when mode is "${c.mode}"`, path: [pathItem(c, 'path')] });
      if (c.address !== undefined) addIssue({ message: `address applies only to tcp and udp (mode is "${c.mode}")`, path: [pathItem(c, 'address')] });
      if (c.port_key !== undefined) addIssue({ message: 'port_key applies only to tcp and udp', path: [pathItem(c, 'port_key')] });
    }
    if (!stream) {
      if (c.connection_limit !== undefined) addIssue({ message: 'connection_limit applies only to stream modes (tcp, unix_stream)', path: [pathItem(c, 'connection_limit')] });
    }
    if (c.keepalive !== undefined && c.mode !== 'tcp') addIssue({ message: 'keepalive applies only to tcp', path: [pathItem(c, 'keepalive')] });
    if (c.tls !== undefined && c.mode !== 'tcp') addIssue({ message: 'tls applies only to tcp', path: [pathItem(c, 'tls')] });
    if (c.receive_buffer_bytes !== undefined && c.mode !== 'udp')
      addIssue({ message: 'receive_buffer_bytes is supported only for udp (Node.js cannot size a listening stream socket)', path: [pathItem(c, 'receive_buffer_bytes')] });
  }),
);
/** Validated `socket` source options. */
export type SocketSourceConfig = v.InferOutput<typeof SocketSourceConfig>;
