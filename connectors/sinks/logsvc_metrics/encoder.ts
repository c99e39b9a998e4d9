/**
 * Metric events to HEC log envelopes for the service's HEC endpoint (as Vector's `humio_metrics`): the metric
 * becomes a log ({@link metricToLog}); `event` is that log without its timestamp, `time` the
 * timestamp, `host` the log field named `host_key`, `fields` the listed `indexed_fields`, and
 * `sourcetype`, `source`, `index` the rendered `event_type`, `source` and `index`.
 */
import type { ComponentContext } from '../../../lib/component.js';
import { type Event, LogEvent } from '../../../lib/event.js';
import { type Path, getPath, parsePath } from '../../../lib/path.js';
import { type ObjectValue, Timestamp, type Value, isObject, valueToString } from '../../../lib/value.js';
import { hecTime, sortedJson, writeEnvelope } from '../../shared/hec/envelope.js';
import { metadataRenderer } from '../../shared/hec/metadata.js';
import type { EncodedEnvelope } from '../../shared/hec/request.js';
import type { LogsvcMetricsConfig } from './config.js';
import { type ToLogOptions, metricToLog } from './to-log.js';

/** The compiled encoder of one sink. */
export interface LogsvcEncoder {
  /** One envelope; `size` (UTF-8 bytes of the envelope) counts against `batch.max_bytes`. Throws for a log event. */
  encode(e: Event): EncodedEnvelope;
}

/** One `indexed_fields` entry: the name sent, and the paths looked up in order. */
interface IndexedField {
  readonly name: string;
  readonly paths: readonly Path[];
}

/**
 * `#name` is sent as is, so the service makes it a tag; it reads the field `#name` when the log has
 * one, else `name` (a log made from a metric has no `#` fields).
 */
function indexedField(name: string): IndexedField {
  const paths: Path[] = [];
  try {
    paths.push(parsePath(name));
  } catch {
    paths.push([name]);
  }
  if (name.startsWith('#')) paths.push(parsePath(name.slice(1)));
  return { name, paths };
}

/** A field value as HEC `fields` take it: scalars and arrays of scalars; an object goes as its JSON text. */
const flat = (v: Value): Value => (isObject(v) || (Array.isArray(v) && v.some((x) => isObject(x) || Array.isArray(x))) ? sortedJson(v) : v);

/** Compiles the encoder once per sink; `tz` applies to strftime items of the templates. */
export function createLogsvcEncoder(
  config: Pick<LogsvcMetricsConfig, 'event_type' | 'host_key' | 'host_tag' | 'index' | 'indexed_fields' | 'metric_tag_values' | 'source'>,
  logSchema: { readonly host_key: string; readonly timestamp_key: string },
  ctx: Pick<ComponentContext, 'telemetry' | 'log'>,
  tz: string | undefined,
  now: () => number,
): LogsvcEncoder {
  const toLog: ToLogOptions = { hostTag: config.host_tag, tagValues: config.metric_tag_values, hostField: logSchema.host_key, timestampField: logSchema.timestamp_key };
  const render = metadataRenderer({ index: config.index, source: config.source, sourcetype: config.event_type }, tz, ctx);
  const indexed = config.indexed_fields.map(indexedField);
  const hostKey = config.host_key;
  const timestampKey = logSchema.timestamp_key;
  return {
    encode(e) {
      if (e.type !== 'metric') throw new Error('not a metric event: this sink takes metric events only');
      const log = metricToLog(e, toLog, now());
      const fields: ObjectValue = {};
      for (let i = 0; i < indexed.length; i++) {
        const f = indexed[i]!;
        for (const p of f.paths) {
          const v = getPath(log, p);
          if (v === undefined) continue;
          fields[f.name] = flat(v);
          break;
        }
      }
      const host = log[hostKey];
      const ts = log[timestampKey];
      // templates see the log, as the service would: `{{ name }}`, `{{ tags.env }}`, `{{ host }}`
      const meta = render(new LogEvent(log, e.meta));
      const text = writeEnvelope({
        event: sortedJson(log, timestampKey),
        fields: sortedJson(fields),
        time: hecTime(ts instanceof Timestamp ? ts : undefined, now()),
        host: host === undefined || host === null ? undefined : valueToString(host),
        index: meta.index,
        source: meta.source,
        sourcetype: meta.sourcetype,
      });
      return { event: e, size: Buffer.byteLength(text, 'utf8'), key: undefined, text };
    },
  };
}
