import { expect } from 'chai';
import { lastValueFrom, of, toArray } from 'rxjs';
import { remapTransform, runtimePosition } from '../../../connectors/transforms/remap/index.js';
import { type EventBatch, EventMetadata, LogEvent } from '../../../lib/event.js';
import { componentContext } from '../../../lib/component-context.js';
import type { Logger } from '../../../lib/log.js';
import { MetricsRegistry } from '../../../lib/telemetry/registry.js';
import { parseConfig } from './context.js';

describe('remap transform: where a runtime error is in the program', () => {
  it('turns the error\'s character range into the program\'s line and column', () => {
    const source = '.b = 1\n.c = parse_json!(.a)';
    expect(runtimePosition(source, 'function call error for "parse_json" at (12:27): unable to parse json')).to.equal('line 2, column 6');
    expect(runtimePosition(source, 'function call error for "x" at (0:3): no')).to.equal('line 1, column 1');
    expect(runtimePosition(source, 'stop')).to.equal(undefined);
  });

  it('logs the line and column beside the error of a failed event', async () => {
    const records: Record<string, unknown>[] = [];
    const log: Logger = {
      trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined,
      error: (msg, fields) => records.push({ msg, ...fields }),
      child: () => log,
    };
    const ctx = componentContext({ id: 'fix', kind: 'transform', type: 'remap', registry: new MetricsRegistry({}), log, globals: { timezone: 'UTC' } });
    const op = remapTransform.build(parseConfig(remapTransform, { source: '.b = 1\n.c = parse_json!(.a)' }), ctx);
    const event = new LogEvent({ a: 'not json' }, new EventMetadata('in', 'test'));
    await lastValueFrom(of<EventBatch>([event]).pipe(op, toArray()));
    expect(records).to.have.length(1);
    expect(records[0]).to.include({ msg: 'Mapping failed with event.', program_position: 'line 2, column 6' });
  });
});
