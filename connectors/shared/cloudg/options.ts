/** The credential options every `cloudg_*` sink has, declared once. */
import * as v from 'valibot';

/** An API key is URL-safe base64, as Vector validates (it travels as the `key` query parameter). */
const API_KEY = /^[A-Za-z0-9_-]+={0,2}$/;

/** `credentials_path` and `api_key`, spread into a sink's schema. */
export const cloudgAuthOptions = {
  api_key: v.optional(
    v.pipe(
      v.string(),
      v.minLength(1, 'must not be empty'),
      v.regex(API_KEY, 'must be URL-safe base64 (letters, digits, "-" and "_")'),
      v.description('API key, sent as the `key` query parameter; used when `credentials_path` is unset.'),
    ),
  ),
  credentials_path: v.optional(
    v.pipe(
      v.string(),
      v.minLength(1, 'must not be empty'),
      v.description('Service-account key file (JSON). Unset: api_key, then CLOUDG_APPLICATION_CREDENTIALS, then the instance service account.'),
    ),
  ),
};

/** The validated credential options. */
export interface CloudgAuthConfig {
  readonly api_key?: string | undefined;
  readonly credentials_path?: string | undefined;
}
