/**
 * Option groups of sources that accept stream connections (`socket` in tcp mode, `logfwd`, the
 * listeners of `opentelemetry`): `tls.*` for incoming connections,
 * `connection_limit` and `keepalive.time_secs`.
 */
import type { TlsOptions } from 'node:tls';
import * as v from 'valibot';
import { pathItem } from '../../lib/config/options/checks.js';
import { fieldPathSchema } from '../../lib/config/options/field-path.js';
import { posint } from '../../lib/config/options/numbers.js';
import { tlsListenOptions } from '../../lib/net/tls.js';

/** `tls.*` of a listener: TLS is on only with `enabled = true`, which needs an identity. */
export const listenerTlsSchema = v.optional(
  v.pipe(
    v.strictObject({
      enabled: v.optional(v.pipe(v.boolean(), v.description('Require TLS on incoming connections; needs crt_file.'))),
      alpn_protocols: v.optional(v.pipe(v.array(v.string()), v.description('ALPN protocols offered, in priority order.'))),
      ca_file: v.optional(v.pipe(v.string(), v.description('CA certificate(s) (PEM or DER file, or inline PEM) that client certificates must chain to.'))),
      crt_file: v.optional(v.pipe(v.string(), v.description('Identity certificate (DER, PEM or PKCS#12 file, or inline PEM).'))),
      key_file: v.optional(v.pipe(v.string(), v.description('Private key of the identity (DER or PEM PKCS#8 file, or inline PEM).'))),
      key_pass: v.optional(v.pipe(v.string(), v.description('Passphrase of the key or PKCS#12 file.'))),
      verify_certificate: v.optional(
        v.pipe(v.boolean(), v.description('Require a valid client certificate (chain up to ca_file, or the system roots); off unless set.')),
      ),
      verify_hostname: v.optional(v.pipe(v.boolean(), v.description('Applies to outgoing connections only; accepted and ignored here.'))),
      client_metadata_key: v.optional(fieldPathSchema('Event field that gets `{ subject }` of the client certificate.', { empty: 'must not be empty' })),
    }),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const t = dataset.value;
      if (t.key_file !== undefined && t.crt_file === undefined) addIssue({ message: 'key_file requires crt_file', path: [pathItem(t, 'key_file')] });
      if (t.enabled === true && t.crt_file === undefined)
        addIssue({ message: 'crt_file is required when TLS is enabled on a listener', path: [pathItem(t, 'enabled')] });
    }),
  ),
);
/** Validated listener `tls.*`. */
export type ListenerTlsConfig = NonNullable<v.InferOutput<typeof listenerTlsSchema>>;

/** `auth` of the HTTP listeners (Vector's server auth): basic credentials every request must carry. */
export const listenerBasicAuthSchema = v.optional(
  v.pipe(
    v.strictObject({
      strategy: v.optional(v.pipe(v.literal('basic'), v.description('Only `basic` is supported.')), 'basic'),
      username: v.pipe(v.string(), v.description('Basic authentication user name.')),
      password: v.pipe(v.string(), v.description('Basic authentication password.')),
    }),
    v.description('Require HTTP basic authentication; wrong or missing credentials get 401.'),
  ),
);

/** `connection_limit`: no default (unlimited). */
export const connectionLimitSchema = v.optional(v.pipe(posint(), v.description('Most connections served at once; more wait unread.')));

/** `keepalive.time_secs`: TCP keepalive idle time of accepted sockets. */
export const keepaliveSchema = v.optional(
  v.strictObject({ time_secs: v.optional(v.pipe(posint(), v.description('Idle seconds before TCP keepalive probes start.'))) }),
);

/** Server TLS options when `tls.enabled` is true, else undefined (plain TCP); reads the files now. */
export function listenerTls(tls: ListenerTlsConfig | undefined): TlsOptions | undefined {
  return tls?.enabled === true ? tlsListenOptions(tls) : undefined;
}
