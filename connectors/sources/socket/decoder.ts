/**
 * The socket source's framing and codec, in a module of its own: pipeline workers build it
 * (docs/threads.md) without loading the listeners.
 */
import { defaultDecodingFraming } from '../../../lib/codecs/decoding.js';
import { type StreamDecoder, streamDecoderFactory } from '../../../lib/codecs/stream-decoder.js';
import type { ComponentContext } from '../../../lib/component.js';
import type { SocketSourceConfig } from './config.js';

/** The decoder factory of a stream (`stream`) or datagram socket. */
export function decoderFor(config: SocketSourceConfig, ctx: ComponentContext, stream: boolean): () => StreamDecoder {
  return streamDecoderFactory(ctx, {
    // streams default to the codec's framing (lines; length-delimited for native), datagrams to one frame each (Vector's defaults)
    framing: config.framing ?? (stream ? defaultDecodingFraming(config.decoding.codec) : { method: 'bytes' }),
    decoding: config.decoding,
    sourceType: 'socket',
    hostKey: config.host_key,
    portKey: config.port_key,
    defaultMaxLength: stream ? config.max_length : undefined,
  });
}
