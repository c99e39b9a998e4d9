import { expect } from 'chai';
import { lastValueFrom, toArray, type Observable } from 'rxjs';
import { sources } from '../../../connectors/compose.js';
import type { EventBatch, LogEvent } from '../../../lib/event.js';
import { MetricsRegistry } from '../../../lib/telemetry/registry.js';

const take = async (opts: Record<string, unknown>, globals?: Record<string, unknown>, registry?: MetricsRegistry) =>
  (await lastValueFrom((sources.demo_logs!(opts, { globals, registry }) as Observable<EventBatch>).pipe(toArray()))).flat() as LogEvent[];

const LOG_SCHEMA = { message_key: 'msg', timestamp_key: 'ts', host_key: 'hostname', source_type_key: 'kind', metadata_key: 'metadata' };

describe('demo_logs source: Vector options', () => {
  it('honours the global log_schema, as stdin and socket do', async () => {
    const [e] = await take({ format: 'shuffle', lines: ['hi'], interval: 0, count: 1 }, { log_schema: LOG_SCHEMA });
    expect(Object.keys(e!.fields)).to.deep.equal(['msg', 'ts', 'hostname', 'service', 'kind']);
    expect(e!.fields).to.include({ msg: 'hi', hostname: 'localhost', kind: 'demo_logs' });
  });

  it('decoding.codec = "json" turns json lines into structured events; host and service only where missing', async () => {
    const events = await take({ format: 'json', decoding: { codec: 'json' }, interval: 0, count: 5 });
    expect(events).to.have.length(5);
    for (const e of events) {
      expect(e.fields).to.include.keys('method', 'status', 'bytes', 'timestamp', 'source_type', 'service');
      expect(e.fields.message).to.equal(undefined);
      // the generated line has its own host, which wins over the source's
      expect(e.fields.host).to.be.a('string').and.not.equal('localhost');
    }
  });

  it('framing splits a line into several events; a frame that does not decode is counted and skipped', async () => {
    const registry = new MetricsRegistry();
    const events = await take(
      { format: 'shuffle', lines: ['{"a":1}|not json|{"a":2}'], framing: { method: 'character_delimited', character_delimited: { delimiter: '|' } }, decoding: { codec: 'json' }, interval: 0, count: 2 },
      undefined,
      registry,
    );
    expect(events.map((e) => e.fields.a)).to.deep.equal([1, 2, 1, 2]);
    expect(registry.sum('component_errors_total', { component_id: 'demo_logs', error_code: 'decoder_deserialize' })).to.equal(2);
  });
});
