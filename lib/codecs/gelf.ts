/**
 * GELF 1.1 shaping of a log event: `version` defaults to "1.1", `host` and `short_message` are
 * taken from the log schema's host and message fields when absent (both are required),
 * `timestamp` becomes seconds (a float when it has milliseconds), and every other field must be a
 * string or number whose name matches `[\w.-]*`; it gains the `_` prefix of additional fields.
 */
import { Float, type ObjectValue, Timestamp, type Value, kindOf } from '../value.js';

/** Thrown when an event cannot be encoded by the configured codec; the event is dropped. */
export class EncodeError extends Error {
  override name = 'EncodeError';
}

/** The log-schema keys GELF falls back on. */
export interface GelfKeys {
  readonly message_key: string;
  readonly host_key: string;
}

const STRING_FIELDS = new Set(['version', 'host', 'short_message', 'full_message', 'facility', 'file']);
const FIELD_NAME = /^[\w.-]*$/;

/** Returns the GELF object for a log event's fields; throws {@link EncodeError} on a rule violation. */
export function toGelf(fields: ObjectValue, keys: GelfKeys): ObjectValue {
  const out: ObjectValue = {};
  if (!('version' in fields)) out.version = '1.1';
  let hostFrom: string | undefined;
  let messageFrom: string | undefined;
  if (!('host' in fields)) {
    if (fields[keys.host_key] === undefined) throw new EncodeError('GELF requires the field "host"');
    hostFrom = keys.host_key;
  }
  if (!('short_message' in fields)) {
    if (fields[keys.message_key] === undefined) throw new EncodeError('GELF requires the field "short_message" (or the message field)');
    messageFrom = keys.message_key;
  }
  for (const k in fields) {
    const v = fields[k] as Value;
    if (k === hostFrom) {
      out.host = checkString('host', v);
      continue;
    }
    if (k === messageFrom) {
      out.short_message = checkString('short_message', v);
      continue;
    }
    if (STRING_FIELDS.has(k)) {
      out[k] = checkString(k, v);
    } else if (k === 'timestamp') {
      if (v instanceof Timestamp) out.timestamp = v.ms % 1000 !== 0 ? new Float(v.ms / 1000) : Math.floor(v.ms / 1000);
      else if (typeof v === 'number') out.timestamp = v;
      else throw new EncodeError(`GELF field "timestamp" must be a timestamp or an integer, got ${kindOf(v)}`);
    } else if (k === 'level') {
      if (typeof v !== 'number') throw new EncodeError(`GELF field "level" must be an integer, got ${kindOf(v)}`);
      out.level = v;
    } else if (k === 'line') {
      if (typeof v !== 'number' && !(v instanceof Float)) throw new EncodeError(`GELF field "line" must be a number, got ${kindOf(v)}`);
      out.line = v;
    } else {
      if (!FIELD_NAME.test(k)) throw new EncodeError(`GELF field name "${k}" may hold only word characters, "-" and "."`);
      if (typeof v !== 'string' && typeof v !== 'number' && !(v instanceof Float))
        throw new EncodeError(`GELF field "${k}" must be a string or a number, got ${kindOf(v)}`);
      out[k.length > 0 && k[0] !== '_' ? '_' + k : k] = v;
    }
  }
  return out;
}

function checkString(name: string, v: Value): string {
  if (typeof v !== 'string') throw new EncodeError(`GELF field "${name}" must be a string, got ${kindOf(v)}`);
  return v;
}
