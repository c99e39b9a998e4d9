/** Options of the `socket` sink. */
import * as v from 'valibot';
import { ENCODING_CODECS, FRAMING_METHODS, encodingSchema, framingSchema } from '../../../lib/codecs/index.js';
import { pathItem } from '../../../lib/config/options/checks.js';
import { sinkObject } from '../../../lib/config/options/envelope.js';
import { posint } from '../../../lib/config/options/numbers.js';
import { parseSocketAddress } from '../../../lib/net/socket-address.js';
import { routingSchema, singleOrRouting } from '../../shared/routing/index.js';


/** The `socket` sink options; address or path as the mode requires. */
export const SocketSinkConfig = v.pipe(
  sinkObject('socket', {
    mode: v.pipe(v.picklist(['tcp', 'udp', 'unix']), v.description('Transport: tcp, udp or unix (stream socket).')),
    address: v.optional(v.pipe(v.string(), v.description('Destination `host:port` (tcp, udp).'))),
    routing: routingSchema(v.pipe(v.string(), v.description('A destination `host:port`.'))),
    path: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.description('Socket file (unix).'))),
    encoding: encodingSchema(ENCODING_CODECS),
    framing: v.optional(framingSchema(FRAMING_METHODS, undefined, 'encode'), {}),
    keepalive: v.optional(v.strictObject({ time_secs: v.optional(posint()) })),
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const c = dataset.value;
    if (c.mode === 'unix') {
      if (c.path === undefined) addIssue({ message: 'path is required when mode is "unix"', path: [pathItem(c, 'path')] });
      if (c.address !== undefined) addIssue({ message: 'address applies only to tcp and udp (mode is "unix")', path: [pathItem(c, 'address')] });
      if (c.routing !== undefined) addIssue({ message: 'routing applies only to mode "tcp" (mode is "unix")', path: [pathItem(c, 'routing')] });
    } else if (c.routing !== undefined) {
      if (c.mode !== 'tcp') addIssue({ message: `routing applies only to mode "tcp" (mode is "${c.mode}")`, path: [pathItem(c, 'routing')] });
      const one = singleOrRouting('address', c.address !== undefined, true);
      if (one) addIssue({ message: one.message, path: [pathItem(c, one.key)] });
      const routing = c.routing;
      const list = routing.endpoints;
      list.forEach((e, i) => {
        const a = parseSocketAddress(e);
        if (typeof a === 'string') addIssue({ message: a, path: [pathItem(c, 'routing'), pathItem(routing, 'endpoints'), { type: 'array', origin: 'value', input: list, key: i, value: e }] });
      });
    } else {
      if (c.address === undefined) addIssue({ message: `address is required when mode is "${c.mode}"${c.mode === 'tcp' ? ' (or routing.endpoints)' : ''}`, path: [pathItem(c, 'address')] });
      else {
        const a = parseSocketAddress(c.address);
        if (typeof a === 'string') addIssue({ message: a, path: [pathItem(c, 'address')] });
      }
      if (c.path !== undefined) addIssue({ message: `path applies only to mode "unix" (mode is "${c.mode}")`, path: [pathItem(c, 'path')] });
    }
    if (c.keepalive !== undefined && c.mode !== 'tcp') addIssue({ message: 'keepalive applies only to tcp', path: [pathItem(c, 'keepalive')] });
  }),
);
/** Validated `socket` sink options. */
export type SocketSinkConfig = v.InferOutput<typeof SocketSinkConfig>;
