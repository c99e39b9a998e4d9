/**
 * The `stdin` source: standard input, framed and decoded; `host` is this machine's name. It
 * completes at EOF (and on shutdown). Reading pauses while the output gate is closed.
 */
import { hostname } from 'node:os';
import type { Readable } from 'node:stream';
import { Observable } from 'rxjs';
import { defaultDecodingFraming, receivedBytesCounter, streamDecoderFactory } from '../../../lib/codecs/index.js';
import type { SourceContext } from '../../../lib/component.js';
import type { EventBatch } from '../../../lib/event.js';
import { pauseWhileClosed } from '../../shared/pause-while-closed.js';
import type { StdinSourceConfig } from './config.js';

/** Builds the source over `input` (process.stdin unless a test passes a stream). */
export function buildStdinSource(config: StdinSourceConfig, ctx: SourceContext, input: Readable = process.stdin): Observable<EventBatch> {
  return new Observable<EventBatch>((subscriber) => {
    const decoder = streamDecoderFactory(ctx, {
      framing: config.framing.method === undefined ? { ...config.framing, ...defaultDecodingFraming(config.decoding.codec) } : config.framing,
      decoding: config.decoding,
      sourceType: 'stdin',
      hostKey: config.host_key,
      defaultMaxLength: config.max_length,
    })();
    decoder.stamp.host = hostname();
    const receivedBytes = receivedBytesCounter(ctx);
    const emit = (batch: EventBatch) => {
      if (batch.length > 0) subscriber.next(batch);
    };
    const gated = pauseWhileClosed(ctx.out);
    const onData = (chunk: Buffer | string) => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      receivedBytes.add(buf.length);
      emit(decoder.push(buf));
      gated.pauseIfClosed(input);
    };
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      emit(decoder.end());
      subscriber.complete();
    };
    const onError = (err: Error) => subscriber.error(err);
    input.on('data', onData);
    input.once('end', finish);
    input.once('error', onError);
    const shutdownSub = ctx.shutdown$.subscribe(() => {
      input.pause();
      finish();
    });
    return () => {
      shutdownSub.unsubscribe();
      gated.close();
      input.off('data', onData);
      input.off('end', finish);
      input.off('error', onError);
      input.pause();
    };
  });
}
