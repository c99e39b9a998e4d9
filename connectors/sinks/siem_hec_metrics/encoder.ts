/**
 * Metric events to HEC metric envelopes (as Vector's `splunk_hec_metrics`): `"event":"metric"`, the tags (single
 * values) plus `metric_name` and `_value` in `fields`, the time in seconds, the host from the tag
 * named `host_key`, and the rendered `index`, `source`, `sourcetype`. Counters and gauges only.
 */
import type { ComponentContext } from '../../../lib/component.js';
import type { Event } from '../../../lib/event.js';
import type { ObjectValue } from '../../../lib/value.js';
import { METRIC_EVENT, hecTime, sortedJson, writeEnvelope } from '../../shared/hec/envelope.js';
import { metadataRenderer, templatedTagKeys } from '../../shared/hec/metadata.js';
import { singleTagValue } from '../../shared/metrics/series.js';
import type { EncodedEnvelope } from '../../shared/hec/request.js';
import type { SiemHecMetricsConfig } from './config.js';

/** The compiled encoder of one sink. */
export interface SiemEncoder {
  /**
   * One envelope; `size` (UTF-8 bytes of the envelope) counts against `batch.max_bytes`. Throws
   * for a log event or a metric type the collector cannot take (that event alone is rejected).
   */
  encode(e: Event): EncodedEnvelope;
}

/** Compiles the encoder once per sink; `now` gives the time of metrics without a timestamp. */
export function createSiemEncoder(
  config: Pick<SiemHecMetricsConfig, 'default_namespace' | 'host_key' | 'index' | 'source' | 'sourcetype'>,
  ctx: Pick<ComponentContext, 'telemetry' | 'log'>,
  tz: string | undefined,
  now: () => number,
): SiemEncoder {
  const render = metadataRenderer(config, tz, ctx);
  // tags that shaped index, source or sourcetype stay out of fields
  const templated = templatedTagKeys(config);
  const hostKey = config.host_key;
  const defaultNamespace = config.default_namespace;
  return {
    encode(e) {
      if (e.type !== 'metric') throw new Error('not a metric event: this sink takes metric events only');
      const value = e.value;
      if (value.type !== 'counter' && value.type !== 'gauge') throw new Error(`invalid metric "${e.name}": the collector takes counters and gauges only, not ${value.type}`);
      const fields: ObjectValue = {};
      const tags = e.tags;
      let host: string | undefined;
      if (tags) {
        for (const k in tags) {
          const single = singleTagValue(tags[k]!);
          if (single === undefined) continue;
          if (k === hostKey) host = single;
          if (!templated.has(k)) fields[k] = single;
        }
      }
      const namespace = e.namespace ?? defaultNamespace;
      // the measurement wins over a tag of the same name
      fields.metric_name = namespace === undefined ? e.name : namespace + '.' + e.name;
      fields._value = value.value;
      const meta = render(e);
      const text = writeEnvelope({
        event: METRIC_EVENT,
        fields: sortedJson(fields),
        time: hecTime(e.timestamp, now()),
        host,
        index: meta.index,
        source: meta.source,
        sourcetype: meta.sourcetype,
      });
      return { event: e, size: Buffer.byteLength(text, 'utf8'), key: undefined, text };
    },
  };
}
