/**
 * Log events to log-stream entries (as Vector's `aws_cloudwatch_logs`), once per event when
 * it enters the sink: the rendered group and stream, the timestamp in epoch ms (the event's, else
 * now), and the message. The timestamp travels beside the message, so it is left out of the JSON
 * (the event itself is not changed). Batch size is the service's measure: message bytes + 26.
 */
import { DEFAULT_LOG_SCHEMA, EncodeError, type LogSchemaKeys, createSerializer } from '../../../lib/codecs/encoding.js';
import type { Event } from '../../../lib/event.js';
import { getPath, parsePath } from '../../../lib/path.js';
import { type Template, TemplateError, compileTemplate } from '../../../lib/template.js';
import { Timestamp } from '../../../lib/value.js';
import type { Encoded } from '../../shared/request-sink.js';
import { type CloudwMonitorLogsConfig, EVENT_OVERHEAD_BYTES } from './config.js';

/** The service's event size limit (256 KiB, the 26 bytes of overhead included). */
export const MAX_EVENT_BYTES = 262_144;

/** One log-stream entry. */
export interface LogEntry extends Encoded {
  /** `group \0 stream`, or why a template did not render (the event is then rejected). */
  readonly target: string | TemplateError;
  /** Epoch ms. */
  readonly timestamp: number;
  readonly message: string;
}

/** The partition key of a group and a stream: no group or stream name holds a NUL. */
export const targetKey = (group: string, stream: string): string => `${group}\u0000${stream}`;
/** The group and stream of a partition key. */
export function splitTarget(key: string): { group: string; stream: string } {
  const i = key.indexOf('\u0000');
  return { group: key.slice(0, i), stream: key.slice(i + 1) };
}

/** Names the service takes (its API reference): groups of `[.-_/#A-Za-z0-9]`, streams without `:` or `*`, both 1-512 characters. */
const GROUP_NAME = /^[.\-_/#A-Za-z0-9]{1,512}$/;
const STREAM_NAME = /^[^:*]{1,512}$/;

const rendered = (t: Template, e: Event, tz: string | undefined, valid: RegExp, what: string): string | TemplateError => {
  const out = t.render(e, tz);
  if (out === undefined) return new TemplateError(t.text, `missing field(s) ${t.missingFields(e).join(', ')}`);
  // a name the service refuses would fail the whole call: only this event is rejected
  if (!valid.test(out)) return new TemplateError(t.text, `rendered ${JSON.stringify(out.slice(0, 600))}, which is not a valid log ${what} name`);
  return out;
};

/** Compiles the encoder once per sink; `now` gives epoch ms for events without a timestamp. */
export function createLogsEncoder(
  config: Pick<CloudwMonitorLogsConfig, 'group_name' | 'stream_name' | 'encoding'>,
  now: () => number,
  logSchema: LogSchemaKeys = DEFAULT_LOG_SCHEMA,
  timezone?: string,
): (e: Event) => LogEntry {
  const group = compileTemplate(config.group_name);
  const stream = compileTemplate(config.stream_name);
  const timestampKey = logSchema.timestamp_key;
  const timestampPath = parsePath(timestampKey);
  const except = config.encoding.codec === 'text' ? config.encoding.except_fields : [...new Set([...(config.encoding.except_fields ?? []), timestampKey])];
  const serializer = createSerializer({ ...config.encoding, except_fields: except }, logSchema);
  return (e) => {
    if (e.type !== 'log') throw new EncodeError('cloudw_monitor_logs sends log events only');
    const message = serializer.serializeText(e);
    // the service refuses an empty message (length ≥ 1) and one over 256 KiB with its overhead
    if (message === '') throw new EncodeError('the event encodes to an empty message, which the service refuses');
    const size = Buffer.byteLength(message, 'utf8') + EVENT_OVERHEAD_BYTES;
    if (size > MAX_EVENT_BYTES) throw new EncodeError(`the event encodes to ${size} bytes with its 26 bytes of overhead; the service takes at most ${MAX_EVENT_BYTES}`);
    const ts = getPath(e.fields, timestampPath);
    const timestamp = ts instanceof Timestamp ? ts.ms : Math.floor(now());
    const g = rendered(group, e, timezone, GROUP_NAME, 'group');
    const s = g instanceof TemplateError ? g : rendered(stream, e, timezone, STREAM_NAME, 'stream');
    const target = g instanceof TemplateError ? g : s instanceof TemplateError ? s : targetKey(g, s);
    return { event: e, size, key: undefined, target, timestamp, message };
  };
}
