/**
 * The endpoint option of the sinks and sources that speak HTTP: an absolute http or https URL.
 * The scheme decides TLS, so such a component takes its `tls.*` from `urlTlsSchema` in ./tls.ts.
 */
import * as v from 'valibot';

/** How an endpoint option words its problems. */
export interface HttpUrlRules {
  /** A URL shown in the messages as an example of what is expected. */
  readonly example?: string;
}

/** True for a string the WHATWG URL parser accepts with an http or https scheme (any case). */
const isHttpUrl = (u: string): boolean => URL.canParse(u) && /^https?:$/i.test(new URL(u).protocol);

/**
 * An http or https URL option. Text that is no URL gets two issues (`must be a URL`, then the
 * scheme), as the sinks have always reported it; neither check throws on such text.
 */
export function httpUrlSchema(description: string, rules: HttpUrlRules = {}) {
  const eg = rules.example === undefined ? '' : `, e.g. "${rules.example}"`;
  return v.pipe(v.string(), v.url(`must be a URL${eg}`), v.check(isHttpUrl, `must be an http or https URL${eg}`), v.description(description));
}
