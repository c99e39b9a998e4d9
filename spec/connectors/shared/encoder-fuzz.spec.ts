/**
 * Random and hostile events into every stream codec and through the http sink's skeleton,
 * in-process: no throw escapes, every event ends delivered or rejected, nothing is held back.
 * Runs in seconds; WEIR_FUZZ_RUNS=20000 and WEIR_FUZZ_SEED=<n> search longer or replay one.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { lastValueFrom, of, toArray } from 'rxjs';
import * as v from 'valibot';
import { createBatchEncoder } from '../../../lib/codecs/batch.js';
import { ENCODING_CODECS } from '../../../lib/codecs/encoding.js';
import { EventMetadata, LogEvent } from '../../../lib/event.js';
import { Float, type ObjectValue, Timestamp, type Value } from '../../../lib/value.js';
import { HttpSinkConfig } from '../../../connectors/sinks/http/config.js';
import { buildHttpSink } from '../../../connectors/sinks/http/sink.js';
import type { HttpService } from '../../../connectors/shared/http/service.js';
import { testSinkContext } from '../../helpers/sink-context.js';

const RUNS = Number(process.env.WEIR_FUZZ_RUNS ?? 60);
const SEED = Number(process.env.WEIR_FUZZ_SEED ?? 20261123);

/** A value nested `depth` levels: hostile depths exhaust recursive encoders. */
const nested = (depth: number, leaf: Value): Value => {
  let x = leaf;
  for (let i = 0; i < depth; i++) x = i % 2 ? [x] : { d: x };
  return x;
};

const scalar: fc.Arbitrary<Value> = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.integer(),
  fc.double().map((d) => new Float(d)),
  fc.boolean(),
  fc.constant(null),
  fc.integer({ min: -1e13, max: 4e12 }).map((ms) => new Timestamp(ms)),
);
const value: fc.Arbitrary<Value> = fc.letrec<{ v: Value }>((tie) => ({
  v: fc.oneof({ depthSize: 'small' }, scalar, fc.array(tie('v'), { maxLength: 4 }), fc.dictionary(fc.string(), tie('v'), { maxKeys: 4 }) as fc.Arbitrary<Value>),
})).v;
const event = fc
  .tuple(fc.dictionary(fc.string(), value, { maxKeys: 6 }), fc.option(fc.integer({ min: 1_000, max: 20_000 }), { freq: 6 }))
  .map(([fields, depth]) => {
    const f: ObjectValue = { ...fields };
    if (depth !== null) f.deep = nested(depth, 'leaf');
    return new LogEvent(f, new EventMetadata('in', 'fuzz'));
  });
const batch = fc.array(event, { minLength: 1, maxLength: 8 });

describe('sink encoders: fuzzed events', () => {
  for (const codec of ENCODING_CODECS) {
    it(`${codec}: the batch encoder never throws; every event is encoded or rejected`, () => {
      const encoder = createBatchEncoder({ codec } as never, {});
      fc.assert(
        fc.property(batch, (events) => {
          const r = encoder.encode(events);
          expect(r.encoded.length + r.failed.length).to.equal(events.length);
        }),
        { numRuns: RUNS, seed: SEED },
      );
    });
  }

  for (const codec of ['json', 'ndjson', 'text'] as const) {
    it(`http (${codec}): every event ends delivered or rejected; the sink never errors`, async () => {
      const ok = { status: 200, body: '', headers: new Headers() };
      const service: HttpService = { send: async () => ok, close: async () => undefined };
      const config = v.parse(HttpSinkConfig, { type: 'http', inputs: ['in'], uri: 'http://127.0.0.1:9/', encoding: { codec }, batch: { max_events: 5, timeout_secs: 0.001 } });
      await fc.assert(
        fc.asyncProperty(batch, async (events) => {
          const ds = await lastValueFrom(of(events).pipe(buildHttpSink(config, testSinkContext('http'), service), toArray()));
          const settled = ds.reduce((n, d) => n + d.events.length, 0);
          expect(settled).to.equal(events.length);
          expect(ds.every((d) => d.status === 'delivered' || d.status === 'rejected')).to.equal(true);
        }),
        { numRuns: Math.ceil(RUNS / 3), seed: SEED },
      );
    });
  }
});
