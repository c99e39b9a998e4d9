/**
 * The events a unit test feeds its transforms, built as Vector builds them: `raw` is a log with
 * the value as message and a timestamp; `log` starts from an empty message and a timestamp and
 * sets each field by path; `metric` is the JSON form of a metric; `vrl` runs a program on an
 * empty event and takes what it left.
 */
import type { GlobalOptions } from '../../../lib/config/global.js';
import { readNativeJson } from '../../../lib/codecs/native-json.js';
import { type Event, EventMetadata, LogEvent } from '../../../lib/event.js';
import { parsePath, setPath } from '../../../lib/path.js';
import { Float, type ObjectValue, Timestamp, type Value, isObject } from '../../../lib/value.js';
import { CompileError, compile } from '../../../remap/index.js';
import type { TestInput } from './definition.js';

const SOURCE_TYPE = 'unit_test';

/** A config value as an event value: TOML dates become timestamps, fractional numbers floats. */
function valueOf(j: unknown): Value {
  if (j === null || j === undefined) return null;
  if (j instanceof Date) return Timestamp.fromDate(j);
  if (typeof j === 'number') return Number.isInteger(j) ? j : new Float(j);
  if (typeof j === 'string' || typeof j === 'boolean') return j;
  if (Array.isArray(j)) return j.map(valueOf);
  if (typeof j === 'object') {
    const out: ObjectValue = {};
    for (const [k, x] of Object.entries(j)) out[k] = valueOf(x);
    return out;
  }
  return null;
}

/** A log event as a source makes it: message and timestamp under the log schema's keys. */
function legacyLog(message: string, now: Timestamp, globals: GlobalOptions, sourceId: string): LogEvent {
  const fields: ObjectValue = {};
  const { message_key, timestamp_key } = globals.log_schema;
  if (message_key) setPath(fields, parsePath(message_key), message);
  if (timestamp_key) setPath(fields, parsePath(timestamp_key), now);
  return new LogEvent(fields, new EventMetadata(sourceId, SOURCE_TYPE));
}

/** Builds the event of one input; throws with a message in Vector's words when the input is incomplete. */
export function buildInputEvent(input: TestInput, now: Timestamp, globals: GlobalOptions): Event {
  const sourceId = `${input.insert_at}-source`;
  switch (input.type) {
    case 'raw':
      if (input.value === undefined) throw new Error("input type 'raw' requires the field 'value'");
      return legacyLog(input.value, now, globals, sourceId);
    case 'log': {
      if (input.log_fields === undefined) throw new Error("input type 'log' requires the field 'log_fields'");
      const e = legacyLog('', now, globals, sourceId);
      for (const [path, value] of Object.entries(input.log_fields)) {
        if (!setPath(e.fields, parsePath(path), valueOf(value))) throw new Error(`log_fields: cannot set "${path}"`);
      }
      return e;
    }
    case 'metric': {
      if (input.metric === undefined) throw new Error("input type 'metric' requires the field 'metric'");
      const out: Event[] = [];
      try {
        readNativeJson(JSON.stringify({ metric: input.metric }), { sourceId, sourceType: SOURCE_TYPE, messageKey: globals.log_schema.message_key }, out);
      } catch (err) {
        throw new Error(`invalid metric: ${(err as Error).message}`, { cause: err });
      }
      return out[0]!;
    }
    case 'vrl': {
      if (input.source === undefined) throw new Error("input type 'vrl' requires the field 'source'");
      let program;
      try {
        program = compile(input.source, { timezone: globals.timezone });
      } catch (err) {
        if (err instanceof CompileError) throw new Error(err.message, { cause: err });
        throw err;
      }
      const r = program.run({}, {});
      if (!r.ok) throw new Error(r.error);
      if (!isObject(r.target)) throw new Error('the vrl input must leave an object as the event');
      return new LogEvent(r.target, new EventMetadata(sourceId, SOURCE_TYPE, undefined, isObject(r.meta) && Object.keys(r.meta).length > 0 ? r.meta : undefined));
    }
  }
}
