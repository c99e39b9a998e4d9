/**
 * The `syslog` source's frame decoder: one syslog message per frame, parsed exactly as Vector's
 * syslog source parses (lib/codecs/syslog.ts `parseSyslogExact`), into Vector's legacy field
 * layout: the parsed fields and structured-data elements (syslogToFields), `source_ip` (the
 * peer), the host key (the parsed hostname, else the peer), `source_type`, and the receive time
 * where the message carries none. A frame that is not syslog throws DecodeError: the stream
 * decoder counts it (`decoder_deserialize`) and drops it, as Vector does.
 */
import { DecodeError, type Deserializer } from '../../../lib/codecs/decoding.js';
import type { LogSchemaKeys } from '../../../lib/codecs/encoding.js';
import { parseSyslogExact, syslogToFields } from '../../../lib/codecs/syslog.js';
import { EventMetadata, LogEvent, eventSize } from '../../../lib/event.js';
import { utf8Slice } from '../../../lib/utf8.js';

/** The `source_type` of every event of this source. */
export const SYSLOG_SOURCE_TYPE = 'syslog';

/** What the decoder needs from the source and the globals. */
export interface SyslogDecoderOptions {
  readonly sourceId: string;
  readonly logSchema: LogSchemaKeys;
  /** Field for the host (source `host_key`, else the log schema's). */
  readonly hostKey: string;
  /** Zone of RFC 3164 timestamps, which carry none (global `timezone`). */
  readonly timezone: string | undefined;
}

/** Compiles the decoder once per source. */
export function syslogDeserializer(opts: SyslogDecoderOptions): Deserializer {
  const { sourceId, hostKey, timezone } = opts;
  const mk = opts.logSchema.message_key;
  const tk = opts.logSchema.timestamp_key;
  const stk = opts.logSchema.source_type_key;
  const parseOptions = { timezone };
  return {
    // the codec name the stream decoder reports; the layout is this source's own
    codec: 'syslog',
    decode(buf, start, end, stamp, out) {
      // invalid UTF-8 becomes U+FFFD (Vector's syslog decoder is lossy by default)
      const msg = parseSyslogExact(utf8Slice(buf, start, end), parseOptions);
      if (msg === undefined) throw new DecodeError('unable to parse input as valid syslog message');
      const f = syslogToFields(msg, mk, tk);
      const peer = stamp.host;
      if (peer !== undefined) f.source_ip = peer;
      const host = msg.hostname ?? peer;
      // Vector overwrites the host key: a structured-data element of that name gives way
      if (host !== undefined) f[hostKey] = host;
      f[stk] = SYSLOG_SOURCE_TYPE;
      if (f[tk] === undefined) f[tk] = stamp.timestamp;
      const e = new LogEvent(f, new EventMetadata(sourceId, SYSLOG_SOURCE_TYPE));
      out.push(e);
      return eventSize(e);
    },
  };
}
