/** Options of the `logfwd` source: a fluent forward protocol listener. */
import * as v from 'valibot';
import { pathItem } from '../../../lib/config/options/checks.js';
import { acknowledgementsSchema } from '../../../lib/config/options/envelope.js';
import { posint } from '../../../lib/config/options/numbers.js';
import { parseListenAddress } from '../../shared/listen-address.js';
import { connectionLimitSchema, keepaliveSchema, listenerTlsSchema } from '../../shared/listener-config.js';

/** The `logfwd` source options. */
export const LogfwdSourceConfig = v.pipe(
  v.strictObject({
    type: v.literal('logfwd'),
    address: v.pipe(v.string(), v.description('Listen address `host:port`, or `systemd` / `systemd#N` for the N-th socket passed by socket activation.')),
    connection_limit: connectionLimitSchema,
    keepalive: keepaliveSchema,
    receive_buffer_bytes: v.optional(
      v.pipe(posint(), v.description('Socket receive buffer size; accepted so Vector configurations load, but without effect: Node.js cannot set SO_RCVBUF on accepted TCP sockets (a warning says so at start).')),
    ),
    tls: listenerTlsSchema,
    acknowledgements: acknowledgementsSchema,
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const c = dataset.value;
    const a = parseListenAddress(c.address, { systemd: true });
    if (typeof a === 'string') addIssue({ message: a, path: [pathItem(c, 'address')] });
  }),
);
/** Validated `logfwd` source options. */
export type LogfwdSourceConfig = v.InferOutput<typeof LogfwdSourceConfig>;
