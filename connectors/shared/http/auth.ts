/**
 * `auth` of the HTTP sinks (as in Vector): basic or bearer, and the URI
 * credentials that turn into basic auth.
 */
import * as v from 'valibot';
import { authorizationHeader } from '../../../lib/net/http-client.js';

/** `auth.strategy` = `basic` (user, password) or `bearer` (token). */
export const httpAuthSchema = v.variant('strategy', [
  v.strictObject({ strategy: v.literal('basic'), user: v.string(), password: v.optional(v.string(), '') }),
  v.strictObject({ strategy: v.literal('bearer'), token: v.pipe(v.string(), v.minLength(1, 'must not be empty')) }),
]);
export type HttpAuth = v.InferOutput<typeof httpAuthSchema>;

/** The request target with URI credentials removed, and the auth they imply. */
export function targetOf(uri: string, auth: HttpAuth | undefined): { url: string; auth: HttpAuth | undefined } {
  const url = new URL(uri);
  if (!url.username && !url.password) return { url: uri, auth };
  const implied: HttpAuth = { strategy: 'basic', user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) };
  url.username = '';
  url.password = '';
  return { url: url.toString(), auth: implied };
}

/** The `Authorization` header value of `auth`, if any. */
export const authHeader = (auth: HttpAuth | undefined): string | undefined => (auth ? authorizationHeader(auth) : undefined);

/** True when a header map sets `Authorization` in any case. */
export const hasAuthorization = (h: Record<string, string> | undefined): boolean => !!h && Object.keys(h).some((k) => k.toLowerCase() === 'authorization');
