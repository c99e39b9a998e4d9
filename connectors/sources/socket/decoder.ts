/**
 * The socket source's framing and codec, in a module of its own: pipeline workers build it
 * (docs/threads.md) without loading the listeners.
 */
import { defaultDecodingFraming } from '../../../lib/codecs/decoding.js';
import type { FramingConfig } from '../../../lib/codecs/index.js';
import { type StreamDecoder, streamDecoderFactory } from '../../../lib/codecs/stream-decoder.js';
import type { ComponentContext, WorkerDecoding } from '../../../lib/component.js';
import type { SocketSourceConfig } from './config.js';

/** Whether the mode is a byte stream (tcp, unix_stream) rather than datagrams. */
export const isStreamMode = (config: SocketSourceConfig): boolean => config.mode === 'tcp' || config.mode === 'unix_stream';

/** The framing in effect: the configured one, else the codec's for streams and one frame per datagram. */
export function socketFraming(config: SocketSourceConfig, stream: boolean): FramingConfig {
  // Vector's defaults: streams take the codec's framing (lines; length-delimited for native)
  return config.framing ?? (stream ? defaultDecodingFraming(config.decoding.codec) : { method: 'bytes' });
}

/** The options a pipeline worker builds this decoder from ({@link decoderFor} reads no others). */
const WORKER_OPTIONS = ['decoding', 'framing', 'host_key', 'port_key', 'max_length'] as const;

/**
 * Whether a pipeline worker can frame and decode this source's connections: streams only, and not
 * with `tls.client_metadata_key` (the client certificate stays on the main thread).
 */
export function socketWorkerDecoding(config: SocketSourceConfig): WorkerDecoding | undefined {
  const stream = isStreamMode(config);
  if (!stream || config.tls?.client_metadata_key !== undefined) return undefined;
  // a framing group without a method takes the codec's
  const configured = socketFraming(config, stream);
  const framing = configured.method ?? defaultDecodingFraming(config.decoding.codec).method ?? 'newline_delimited';
  const maxLength = (configured.method === 'newline_delimited' ? configured.newline_delimited?.max_length : undefined) ?? config.max_length;
  return { framing, options: WORKER_OPTIONS, maxLength, copiesMessage: config.decoding.codec === 'bytes' };
}

/** The decoder factory of a stream (`stream`) or datagram socket. */
export function decoderFor(config: SocketSourceConfig, ctx: ComponentContext, stream: boolean): () => StreamDecoder {
  return streamDecoderFactory(ctx, {
    framing: socketFraming(config, stream),
    decoding: config.decoding,
    sourceType: 'socket',
    hostKey: config.host_key,
    portKey: config.port_key,
    defaultMaxLength: stream ? config.max_length : undefined,
  });
}
