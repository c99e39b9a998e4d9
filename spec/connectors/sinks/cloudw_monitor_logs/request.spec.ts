/**
 * The PutLogEvents request builder as a property: for random batches (any messages, timestamps
 * from 20 days back to 5 hours ahead) every call keeps every service limit, and every event is in
 * exactly one call or set aside as out of the service's window.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { createLogsEncoder } from '../../../../connectors/sinks/cloudw_monitor_logs/encoder.js';
import { MAX_AGE_MS, MAX_AHEAD_MS, buildLogsRequest } from '../../../../connectors/sinks/cloudw_monitor_logs/request.js';
import { type Event, EventMetadata, LogEvent } from '../../../../lib/event.js';
import { Timestamp } from '../../../../lib/value.js';

const RUNS = Number(process.env.WEIR_FUZZ_RUNS ?? 60);
const SEED = Number(process.env.WEIR_FUZZ_SEED ?? 20261124);
const NOW = 1_800_000_000_000;
const HOUR = 3_600_000;

const message = fc.oneof(fc.string({ minLength: 1, maxLength: 40 }), fc.string({ unit: 'binary', minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 200_000 }).map((n) => 'x'.repeat(n)));
const event = fc
  .tuple(message, fc.integer({ min: -20 * 24 * HOUR, max: 5 * HOUR }))
  .map(([m, offset]) => new LogEvent({ message: m, timestamp: new Timestamp(NOW + offset) }, new EventMetadata('in', 'fuzz')));

describe('connectors/sinks/cloudw_monitor_logs: the request builder keeps every limit (property)', () => {
  const encode = createLogsEncoder({ group_name: 'g', stream_name: 's', encoding: { codec: 'text', timestamp_format: 'rfc3339' } }, () => NOW);

  it('calls sorted, at most 10,000 events and 1,048,576 bytes (message + 26), under 24 h; every event once', () => {
    fc.assert(
      fc.property(fc.array(event, { minLength: 1, maxLength: 60 }), fc.integer({ min: 1, max: 10_000 }), (events, maxEvents) => {
        const items = events.map(encode);
        const req = buildLogsRequest(items, items[0]!.target as string, NOW, { maxEvents, maxBytes: 1_048_576 });
        const seen = new Set<Event>();
        for (const call of req.calls) {
          expect(call.events.length).to.be.within(1, Math.min(maxEvents, 10_000));
          const bytes = call.logEvents.reduce((n, e) => n + Buffer.byteLength(e.message, 'utf8') + 26, 0);
          expect(bytes).to.be.at.most(1_048_576);
          for (let i = 1; i < call.logEvents.length; i++) expect(call.logEvents[i]!.timestamp).to.be.at.least(call.logEvents[i - 1]!.timestamp);
          expect(call.logEvents.at(-1)!.timestamp - call.logEvents[0]!.timestamp).to.be.below(24 * HOUR);
          for (const e of call.logEvents) expect(e.timestamp).to.be.within(NOW - MAX_AGE_MS, NOW + MAX_AHEAD_MS - 1);
          for (const e of call.events) seen.add(e);
        }
        for (const e of req.outOfRange) seen.add(e);
        expect(seen.size).to.equal(events.length);
        expect(req.events.length + req.outOfRange.length).to.equal(events.length);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});
