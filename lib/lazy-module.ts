/**
 * A CommonJS package loaded the first time a component uses it, not when the catalog is read. The
 * catalog imports every component, so a package only some of them need would otherwise sit in every
 * process: the cloud SDKs (the AWS clients and google-auth-library add about 48 MiB and hundreds of
 * files), and gRPC, protobuf, MessagePack, YAML, LevelDB and Avro (1–3 MiB of live heap each, YAML
 * also in every pipeline worker that loads the remap language). `require` keeps the first use
 * synchronous, so a component still checks its options and builds at config time. `typeof
 * import('pkg')` keeps the types. The module is the one an `import` would load, except for msgpackr,
 * which ships an ES build beside its CommonJS one: weir loads only the CommonJS one.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The module `id`, required on the first call and kept. */
export function lazyModule<T>(id: string): () => T {
  let mod: T | undefined;
  return () => (mod ??= require(id) as T);
}
