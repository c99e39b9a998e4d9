/**
 * Object names (as Vector names them): `<key_prefix><time>-<uuid v4>.<extension>`.
 * The prefix is rendered per event from the event's own timestamp and is the partition key of
 * the batch; the time part is the time the object is written.
 */
import { randomUUID } from 'node:crypto';
import type { Event } from '../../../lib/event.js';
import { TemplateError, compileTemplate } from '../../../lib/template.js';
import { compileFormat, resolveTimezone } from '../../../lib/time/strftime.js';
import { Timestamp } from '../../../lib/value.js';
import type { ObjectNamingConfig } from './options.js';

/** Names objects for one sink; compiled once at build time. */
export interface ObjectNamer {
  /** The rendered key prefix of an event; throws {@link TemplateError} when a referenced field is missing. */
  prefixOf(e: Event): string;
  /** The full object name of a batch with prefix `prefix`, written at `nowMs` (epoch ms). */
  keyFor(prefix: string, nowMs: number): string;
}

/**
 * The default extension for a compression's file suffix (`gz` → `log.gz`, '' → `log`);
 * a configured `filename_extension` replaces it whole.
 */
export const defaultExtension = (compressionSuffix: string): string => (compressionSuffix ? `log.${compressionSuffix}` : 'log');

/**
 * Compiles the naming options. `compressionSuffix` is the compressor's extension (`gz`, or ''),
 * `globalTimezone` the global `timezone` (the sink's own `timezone` wins).
 */
export function createObjectNamer(config: ObjectNamingConfig, compressionSuffix: string, globalTimezone?: string, uuid: () => string = randomUUID): ObjectNamer {
  const prefix = compileTemplate(config.key_prefix);
  const constant = prefix.isDynamic ? '' : (prefix.render(undefined as never) ?? '');
  const time = compileFormat(config.filename_time_format);
  const tz = resolveTimezone(config.timezone ?? globalTimezone ?? 'UTC');
  const ext = config.filename_extension ?? defaultExtension(compressionSuffix);
  const suffix = ext === '' ? '' : `.${ext}`;
  // a prefix of strftime items alone depends only on the timestamp, which sources share across a batch
  const timeOnly = prefix.isDynamic && prefix.fields.length === 0;
  let lastTs: Timestamp | undefined;
  let lastPrefix = '';
  return {
    prefixOf(e) {
      if (!prefix.isDynamic) return constant;
      if (timeOnly) {
        const ts = e.type === 'log' ? e.fields.timestamp : e.timestamp;
        if (ts instanceof Timestamp) {
          if (ts !== lastTs) {
            lastPrefix = prefix.render(e, tz)!;
            lastTs = ts;
          }
          return lastPrefix;
        }
      }
      const p = prefix.render(e, tz);
      if (p === undefined) throw new TemplateError(prefix.text, `missing field(s) ${prefix.missingFields(e).join(', ')}`);
      return p;
    },
    keyFor(p, nowMs) {
      const t = time.format(new Timestamp(Math.floor(nowMs), 0), tz);
      return config.filename_append_uuid ? `${p}${t}-${uuid()}${suffix}` : `${p}${t}${suffix}`;
    },
  };
}
