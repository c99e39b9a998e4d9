/**
 * A stream sink's encoder in a pipeline worker (docs/threads.md): each event's text, with the byte
 * the sink's framing writes after every frame put between the records of one answer, so the sink
 * frames a run of them with one copy (lib/codecs/batch.ts).
 */
import type { WorkerSinkEncoder } from '../../lib/component.js';
import { type EncodingConfig, createSerializer } from '../../lib/codecs/encoding.js';
import { type FramingConfig, createFramer } from '../../lib/codecs/framing.js';
import type { GlobalOptions } from '../../lib/config/global.js';

/** The options a stream sink's worker encoder is built from. */
export const STREAM_WORKER_OPTIONS = ['encoding', 'framing'] as const;

/** A text codec's records (the binary `native` codec frames payloads, which workers do not write). */
export const streamWorkerEncoding = (encoding: EncodingConfig) => (encoding.codec === 'native' ? undefined : { options: STREAM_WORKER_OPTIONS, copiesMessage: encoding.codec === 'text' });

export function streamWorkerEncoder(options: { readonly encoding: EncodingConfig; readonly framing?: FramingConfig }, globals: GlobalOptions): WorkerSinkEncoder {
  const serializer = createSerializer(options.encoding, globals.log_schema);
  const suffix = createFramer(options.framing ?? {}, options.encoding.codec).suffix;
  return { writeText: serializer.writeText, separator: suffix === undefined ? undefined : String.fromCharCode(suffix) };
}
