/**
 * The `stdin` source: standard input, framed and decoded; `host` is this machine's name. It
 * completes at EOF (and on shutdown). Reading pauses while the output gate is closed.
 */
import { hostname } from 'node:os';
import type { Readable } from 'node:stream';
import type { Observable } from 'rxjs';
import { defaultDecodingFraming, streamDecoderFactory } from '../../../lib/codecs/index.js';
import type { SourceContext } from '../../../lib/component.js';
import type { EventBatch } from '../../../lib/event.js';
import { pauseWhileClosed, runSource } from '../../shared/source/index.js';
import type { StdinSourceConfig } from './config.js';

/** Builds the source over `input` (process.stdin unless a test passes a stream). */
export function buildStdinSource(config: StdinSourceConfig, ctx: SourceContext, input: Readable = process.stdin): Observable<EventBatch> {
  return runSource(ctx, {}, (out) => {
    const decoder = streamDecoderFactory(ctx, {
      framing: config.framing.method === undefined ? { ...config.framing, ...defaultDecodingFraming(config.decoding.codec) } : config.framing,
      decoding: config.decoding,
      sourceType: 'stdin',
      hostKey: config.host_key,
      defaultMaxLength: config.max_length,
    })();
    decoder.stamp.host = hostname();
    const gated = pauseWhileClosed(ctx.out);
    const onData = (chunk: Buffer | string) => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      out.received(buf.length);
      out.emit(decoder.push(buf));
      gated.pauseIfClosed(input);
    };
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      out.emit(decoder.end());
    };
    const onEnd = () => {
      finish();
      out.complete();
    };
    const onError = (err: Error) => out.fail(err);
    input.on('data', onData);
    input.once('end', onEnd);
    input.once('error', onError);
    return {
      drain() {
        input.pause();
        finish();
      },
      close() {
        gated.close();
        input.off('data', onData);
        input.off('end', onEnd);
        input.off('error', onError);
        input.pause();
      },
    };
  });
}
