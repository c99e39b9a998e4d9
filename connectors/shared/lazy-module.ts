/**
 * A CommonJS package loaded the first time a component uses it, not when the catalog is read. The
 * cloud SDKs are large (the AWS clients and google-auth-library add about 48 MiB and hundreds of
 * files to a process): a pipeline without cloud components should not pay for them at start.
 * `typeof import('pkg')` keeps the types; the module is the one an `import` would load (these
 * packages resolve to their CommonJS build either way).
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The module `id`, required on the first call and kept. */
export function lazyModule<T>(id: string): () => T {
  let mod: T | undefined;
  return () => (mod ??= require(id) as T);
}
