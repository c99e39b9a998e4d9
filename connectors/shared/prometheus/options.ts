/** Options the Prometheus sinks share, with Vector's defaults. */
import { timingSafeEqual } from 'node:crypto';
import * as v from 'valibot';
import { authorizationHeader } from '../../../lib/net/http-client.js';
import { DEFAULT_BUCKETS, DEFAULT_QUANTILES } from './samples.js';

/** `default_namespace`: prefix (with `_`) of metrics that have no namespace. */
export const defaultNamespaceSchema = v.optional(v.pipe(v.string(), v.description('Namespace of metrics that have none; written before the name with `_`.')));

/** `buckets`: upper bounds distributions are counted into when rendered as histograms. */
export const bucketsSchema = v.optional(
  v.pipe(
    v.array(v.pipe(v.number(), v.check((n) => !Number.isNaN(n), 'must be a number'))),
    v.description('Bucket upper bounds of histograms made from distributions.'),
  ),
  () => [...DEFAULT_BUCKETS],
);

/** `quantiles`: each in [0, 1], as Vector's `validate_quantiles` demands. */
export const quantilesSchema = v.optional(
  v.pipe(
    v.array(v.pipe(v.number(), v.minValue(0, 'a quantile must be between 0 and 1'), v.maxValue(1, 'a quantile must be between 0 and 1'))),
    v.description('Quantiles of summaries made from distributions.'),
  ),
  () => [...DEFAULT_QUANTILES],
);

/** `auth` of the Prometheus HTTP endpoints weir serves: the credentials a client must present. */
export const serverAuthSchema = v.optional(
  v.pipe(
    v.variant('strategy', [
      v.strictObject({ strategy: v.literal('basic'), user: v.string(), password: v.string() }),
      v.strictObject({ strategy: v.literal('bearer'), token: v.pipe(v.string(), v.minLength(1, 'must not be empty')) }),
    ]),
    v.description('Credentials a client must send (`basic`: user and password; `bearer`: token); others get 401.'),
  ),
);
export type ServerAuth = NonNullable<v.InferOutput<typeof serverAuthSchema>>;

/** A check of a request's `Authorization` header against `auth` (in constant time); undefined auth lets every request in. */
export function authorizationCheck(auth: ServerAuth | undefined): (header: string | undefined) => boolean {
  if (auth === undefined) return () => true;
  const expected = Buffer.from(authorizationHeader(auth));
  return (header) => {
    if (header === undefined) return false;
    const got = Buffer.from(header);
    return got.length === expected.length && timingSafeEqual(got, expected);
  };
}
