/**
 * A CommonJS package loaded on first use. The catalog imports every component, so a package that
 * only some components need (gRPC, protobuf, MessagePack, YAML, LevelDB, Avro) would otherwise sit in
 * every process's heap, and in every pipeline worker that loads the remap language: 1–3 MiB of live
 * heap each. `require` keeps the first use synchronous, so a component still checks its options and
 * builds at config time.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The package's exports on the first call, the same object after (Node's module cache). */
export function lazyModule<T>(specifier: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(specifier) as T);
}
