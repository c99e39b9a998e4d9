/**
 * Health checks of the `cloudw_*` components: credentials are resolved first, so a check without
 * them fails with "no credentials; tried: …" rather than with a signing error.
 */
import type { CloudwCredentialProvider } from './credentials.js';

/** Resolves credentials, then runs `probe` (one SDK call, never retried) within `timeoutMs`. */
export async function cloudwHealthcheck(credentials: CloudwCredentialProvider, probe: (signal: AbortSignal) => Promise<void>, timeoutMs: number): Promise<void> {
  await credentials();
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    await probe(abort.signal);
  } catch (err) {
    if (abort.signal.aborted) throw new Error(`health check timed out after ${timeoutMs} ms`);
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
