/** Options the `nats` source and sink share: servers, connection name, authentication and TLS (Vector's names). */
import * as v from 'valibot';
import { tlsSchema } from '../../../lib/config/options/tls.js';

/** Schemes a server address may carry; a bare `host:port` means `nats://`. */
const SCHEMES = new Set(['nats:', 'tls:']);

/** Why one server address is unusable, or undefined when it is fine. */
export function serverAddressProblem(address: string): string | undefined {
  if (address === '') return 'an address is empty (check the commas)';
  const withScheme = address.includes('://') ? address : `nats://${address}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return `"${address}" is not a server address (nats://host:port)`;
  }
  if (!SCHEMES.has(url.protocol)) return `"${address}": the scheme must be nats:// or tls://`;
  if (url.hostname === '') return `"${address}" names no host`;
  return undefined;
}

/** The addresses of a comma-separated `url`, trimmed, in their order. */
export const serverAddresses = (url: string): string[] => url.split(',').map((s) => s.trim());

/** `url`: one server address, or several separated by commas (tried in turn, as one cluster). */
export const natsUrlSchema = v.pipe(
  v.string(),
  v.rawCheck<string>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    for (const a of serverAddresses(dataset.value)) {
      const problem = serverAddressProblem(a);
      if (problem !== undefined) addIssue({ message: problem });
    }
  }),
  v.description('NATS server address (nats://host:port); several, comma-separated, for a cluster.'),
);

const nonEmpty = (what: string) => v.pipe(v.string(), v.minLength(1, `${what} must not be empty`));

/** `auth`: one strategy and its own object, as Vector names them. */
export const natsAuthSchema = v.optional(
  v.variant(
    'strategy',
    [
      v.strictObject({
        strategy: v.literal('user_password'),
        user_password: v.strictObject({ user: nonEmpty('user'), password: v.string() }),
      }),
      v.strictObject({ strategy: v.literal('token'), token: v.strictObject({ value: nonEmpty('the token') }) }),
      v.strictObject({ strategy: v.literal('credentials_file'), credentials_file: v.strictObject({ path: nonEmpty('path') }) }),
      v.strictObject({ strategy: v.literal('nkey'), nkey: v.strictObject({ nkey: nonEmpty('nkey'), seed: nonEmpty('seed') }) }),
    ],
    'strategy must be "user_password", "token", "credentials_file" or "nkey"',
  ),
);
/** Validated `auth`. */
export type NatsAuthConfig = NonNullable<v.InferOutput<typeof natsAuthSchema>>;

/** The connection entries both components have; `connection_name` differs (defaulted in the sink, required in the source). */
export const natsConnectionEntries = {
  url: natsUrlSchema,
  auth: natsAuthSchema,
  // TLS applies only with `tls.enabled = true`, as in Vector; otherwise the server's INFO decides
  tls: tlsSchema,
};

/** What connecting needs of either component's options. */
export interface NatsConnectionConfig {
  readonly url: string;
  readonly connection_name: string;
  readonly auth?: NatsAuthConfig | undefined;
  readonly tls?: v.InferOutput<typeof tlsSchema>;
}
