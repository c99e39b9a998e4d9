/**
 * What a request in flight keeps alive: its events and its bytes, not the encoded form of every
 * event (the encoded items are let go once the request is built). Checked with weak references
 * and a forced full collection while the request waits for its answer.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect } from 'chai';
import { Subject } from 'rxjs';
import { type Encoded, type SinkRequest, requestSink } from '../../../connectors/shared/request-sink.js';
import { type Delivery, type EventBatch, logEvent } from '../../../lib/event.js';
import { testSinkContext } from '../../helpers/sink-context.js';
import { until } from '../../helpers/wait.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

interface Item extends Encoded {
  readonly text: { readonly value: string };
}

describe('connectors/shared/request-sink: memory of a request in flight', () => {
  it('lets the encoded items go once the request is built, keeping the events', async () => {
    const texts: WeakRef<object>[] = [];
    let answer!: () => void;
    const ctx = testSinkContext('fake');
    const sink = requestSink<Item, SinkRequest & { body: string }, string>(
      {
        encode: (event) => {
          const text = { value: JSON.stringify((event as { fields: unknown }).fields) };
          texts.push(new WeakRef(text));
          return { event, size: text.value.length, key: undefined, text };
        },
        build: (items) => ({ events: items.map((i) => i.event), bytes: 0, body: items.map((i) => i.text.value).join('\n') }),
        send: () => new Promise<string>((resolve) => (answer = () => resolve('ok'))),
        classify: () => ({ kind: 'ok' }),
        isRetriableError: () => false,
      },
      {
        limits: { maxEvents: 10, maxBytes: Infinity, timeoutMs: 1000 },
        request: {
          concurrency: 1,
          rate_limit_num: Number.MAX_VALUE,
          rate_limit_duration_secs: 1,
          retry_attempts: 0,
          retry_initial_backoff_secs: 1,
          retry_max_duration_secs: 1,
          retry_jitter_mode: 'none',
          timeout_secs: 60,
          adaptive_concurrency: { decrease_ratio: 0.9, ewma_alpha: 0.4, rtt_deviation_scale: 2.5, initial_concurrency: 1, max_concurrency_limit: 200 },
        },
      },
      ctx,
    );
    const input = new Subject<EventBatch>();
    const deliveries: Delivery[] = [];
    const sub = input.pipe(sink).subscribe((d) => deliveries.push(d));
    input.next(Array.from({ length: 10 }, (_, i) => logEvent({ message: `m${i}` })));
    await until(() => answer !== undefined, 10_000, 'the request to be sent');
    // weak references hold their targets until the current job ends
    await new Promise((r) => setImmediate(r));
    gc();
    expect(texts).to.have.length(10);
    expect(texts.filter((t) => t.deref() !== undefined)).to.have.length(0);
    answer();
    await until(() => deliveries.length === 1, 10_000, 'the delivery');
    expect(deliveries[0]!.status).to.equal('delivered');
    expect(deliveries[0]!.events).to.have.length(10);
    sub.unsubscribe();
  });
});
