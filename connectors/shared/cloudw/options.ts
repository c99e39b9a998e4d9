/**
 * The options every `cloudw_*` component shares: `region`, `endpoint`, `auth.*` and
 * `tls`. Declared once here; each component spreads {@link cloudwConnectionEntries} into its schema.
 */
import * as v from 'valibot';
import { pathItem } from '../../../lib/config/options/checks.js';
import { httpUrlSchema } from '../../../lib/config/options/endpoint.js';
import { posint, secs } from '../../../lib/config/options/numbers.js';
import { tlsSchema } from '../../../lib/config/options/tls.js';

const nonEmpty = (description: string) => v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.description(description));

/** `auth.imds.*`: the instance metadata service (attempts and timeouts as Vector names them). */
export const cloudwImdsSchema = v.optional(
  v.strictObject({
    max_attempts: v.optional(v.pipe(posint(), v.description('Attempts at the metadata service before it counts as absent.')), 4),
    connect_timeout_seconds: v.optional(v.pipe(secs(), v.description('Time limit for connecting to the metadata service.')), 1),
    read_timeout_seconds: v.optional(v.pipe(secs(), v.description('Time limit for one metadata answer.')), 1),
  }),
  {},
);

/** `auth.*`. Every key is optional; absent keys leave the next source of the chain to look. */
export const cloudwAuthSchema = v.optional(
  v.pipe(
    v.strictObject({
      access_key_id: v.optional(nonEmpty('Access key id; needs secret_access_key.')),
      secret_access_key: v.optional(nonEmpty('Secret access key; needs access_key_id.')),
      session_token: v.optional(nonEmpty('Session token of temporary credentials given by access_key_id/secret_access_key.')),
      assume_role: v.optional(nonEmpty('Role (ARN) to assume at start, with the credentials found by the chain.')),
      external_id: v.optional(nonEmpty('External id passed when assuming assume_role.')),
      session_name: v.optional(nonEmpty('Session name when assuming assume_role (else CLOUDW_ROLE_SESSION_NAME, else generated).')),
      credentials_file: v.optional(nonEmpty('Shared credentials file to read instead of CLOUDW_SHARED_CREDENTIALS_FILE or the per-user one.')),
      // no schema default: CLOUDW_PROFILE applies when the option is absent, and "default" after it
      profile: v.optional(nonEmpty('Profile inside the shared credentials and config files; default CLOUDW_PROFILE, else "default".')),
      load_timeout_secs: v.optional(v.pipe(posint(), v.description('Time limit for loading credentials, assume_role included.')), 5),
      imds: cloudwImdsSchema,
      region: v.optional(nonEmpty('Region used for authentication (the STS endpoint of assume_role).')),
    }),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const a = dataset.value;
      if (a.access_key_id !== undefined && a.secret_access_key === undefined) addIssue({ message: 'access_key_id requires secret_access_key', path: [pathItem(a, 'access_key_id')] });
      if (a.secret_access_key !== undefined && a.access_key_id === undefined) addIssue({ message: 'secret_access_key requires access_key_id', path: [pathItem(a, 'secret_access_key')] });
      if (a.session_token !== undefined && a.access_key_id === undefined) addIssue({ message: 'session_token requires access_key_id and secret_access_key', path: [pathItem(a, 'session_token')] });
      if (a.external_id !== undefined && a.assume_role === undefined) addIssue({ message: 'external_id requires assume_role', path: [pathItem(a, 'external_id')] });
      if (a.session_name !== undefined && a.assume_role === undefined) addIssue({ message: 'session_name requires assume_role', path: [pathItem(a, 'session_name')] });
    }),
  ),
  {},
);
/** Validated `auth.*`. */
export type CloudwAuth = v.InferOutput<typeof cloudwAuthSchema>;

/** `endpoint`: an http(s) URL; it overrides the regional endpoint. */
const endpointSchema = httpUrlSchema('Custom endpoint of a compatible service; overrides the regional endpoint.', { example: 'http://127.0.0.1:4567' });

/** The `{ region, endpoint, auth, tls }` entries to spread into a component's `sinkObject(...)` or source schema. */
export function cloudwConnectionEntries(opts: { regionDescription?: string } = {}) {
  return {
    region: v.optional(nonEmpty(opts.regionDescription ?? 'Target region; with endpoint set it only names the signing region.')),
    endpoint: v.optional(endpointSchema),
    auth: cloudwAuthSchema,
    tls: tlsSchema,
  };
}

/** The validated shared options as client and credential code reads them. */
export interface CloudwConnection {
  readonly region?: string | undefined;
  readonly endpoint?: string | undefined;
  readonly auth: CloudwAuth;
  readonly tls?: v.InferOutput<typeof tlsSchema>;
  readonly proxy?: import('../../../lib/config/options/proxy.js').ProxyConfig | undefined;
}

/**
 * rawCheck for the components that need a region (the stream, queue, log and metrics
 * sinks): reports `region` missing when neither `region` nor `endpoint` is set.
 */
export const requireRegionOrEndpoint = <T extends { region?: string | undefined; endpoint?: string | undefined }>() =>
  v.rawCheck<T>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const c = dataset.value;
    if (c.region === undefined && c.endpoint === undefined) {
      addIssue({ message: 'region is required when endpoint is not set', path: [pathItem(c, 'region')] });
    }
  });
