/** `tls.*` of outgoing connections: trust, identity and verification (listeners have their own group). */
import * as v from 'valibot';
import { pathItem } from './checks.js';

/** The keys of `tls.*`, each described; `enabled` is the only one a sink's URL scheme may overrule. */
const tlsEntries = {
  enabled: v.optional(v.pipe(v.boolean(), v.description('Use TLS on the connection.'))),
  alpn_protocols: v.optional(v.pipe(v.array(v.string()), v.description('ALPN protocols offered, in priority order.'))),
  ca_file: v.optional(v.pipe(v.string(), v.description('CA certificate(s) (PEM or DER file, or inline PEM) trusted besides the system roots.'))),
  crt_file: v.optional(v.pipe(v.string(), v.description('Client certificate (DER, PEM or PKCS#12 file, or inline PEM).'))),
  key_file: v.optional(v.pipe(v.string(), v.description('Private key of the client certificate (DER or PEM PKCS#8 file, or inline PEM); needs crt_file.'))),
  key_pass: v.optional(v.pipe(v.string(), v.description('Passphrase of the key or PKCS#12 file.'))),
  verify_certificate: v.optional(v.pipe(v.boolean(), v.description('Check that the server certificate chains to a trusted CA; on unless false.'))),
  verify_hostname: v.optional(v.pipe(v.boolean(), v.description('Check that the server certificate names the host; on unless false.'))),
  server_name: v.optional(v.pipe(v.string(), v.description('Server name sent in SNI and checked against the certificate, instead of the host.'))),
};

const tlsObject = v.strictObject(tlsEntries);

/** `key_file` without `crt_file` is a key without a certificate to present it with. */
const keyNeedsCertificate = v.rawCheck<v.InferOutput<typeof tlsObject>>(({ dataset, addIssue }) => {
  if (!dataset.typed) return;
  const t = dataset.value;
  if (t.key_file && !t.crt_file) addIssue({ message: 'key_file requires crt_file', path: [pathItem(t, 'key_file')] });
});

/** `tls.*` for outgoing connections; unset means the defaults (system roots, full verification). */
export const tlsSchema = v.optional(v.pipe(tlsObject, keyNeedsCertificate));
/** Validated `tls.*`. */
export type TlsConfig = NonNullable<v.InferOutput<typeof tlsSchema>>;

/**
 * `tls.*` of a sink whose URL option `urlKey` turns TLS on by its scheme (`https://`): the other
 * keys apply to https connections, and `tls.enabled` is refused, as the scheme already decides.
 */
export function urlTlsSchema(urlKey: string) {
  return v.optional(
    v.pipe(
      tlsObject,
      keyNeedsCertificate,
      v.rawCheck(({ dataset, addIssue }) => {
        if (!dataset.typed || dataset.value.enabled === undefined) return;
        // reported on `tls` itself, where the sinks have always reported it
        addIssue({ message: `tls.enabled does not apply to this sink: the ${urlKey} scheme (https) decides` });
      }),
    ),
  );
}
