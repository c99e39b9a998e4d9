/**
 * Events to queue messages: each event is encoded alone into one message
 * body. The size that counts against the 256 KiB limits is the body's UTF-8 length.
 */
import { type LogSchemaKeys, EncodeError, createSerializer } from '../../../lib/codecs/encoding.js';
import type { Event } from '../../../lib/event.js';
import { type Template, TemplateError, compileTemplate } from '../../../lib/template.js';
import type { Encoded } from '../../shared/request-sink.js';
import type { CloudwQueueSinkConfig } from './config.js';

/** The largest message body and the largest SendMessageBatch payload, in bytes. */
export const MAX_MESSAGE_BYTES = 262_144;
/** At most 10 entries per SendMessageBatch call (the SQS API reference). */
export const MAX_BATCH_ENTRIES = 10;

/** The characters the service accepts in a body: tab, LF, CR, U+0020..U+D7FF, U+E000..U+FFFD, U+10000..U+10FFFF. */
const INVALID_CHARACTER = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

/** One event as a message; the ids are filled in by {@link QueueEncoder.renderIds}. */
export interface QueueMessage extends Encoded {
  readonly body: string;
  groupId: string | undefined;
  deduplicationId: string | undefined;
}

/** The sink's encoder, compiled once: bodies, and the FIFO ids where templates are configured. */
export interface QueueEncoder {
  /** Encodes one event; throws for a body the service would refuse (characters it does not allow). */
  encode(e: Event): QueueMessage;
  /**
   * Renders the FIFO ids of one message; throws {@link TemplateError} when a referenced field is
   * missing. Undefined when neither template is configured.
   */
  readonly renderIds: ((m: QueueMessage) => void) | undefined;
}

const render = (t: Template, e: Event): string => {
  const s = t.render(e);
  if (s === undefined) throw new TemplateError(t.text, `missing field(s) ${t.missingFields(e).join(', ')}`);
  if (s === '') throw new TemplateError(t.text, 'rendered to an empty string');
  return s;
};

/** Compiles the encoder once per sink. */
export function createQueueEncoder(config: Pick<CloudwQueueSinkConfig, 'encoding' | 'message_group_id' | 'message_deduplication_id'>, logSchema?: LogSchemaKeys): QueueEncoder {
  const serializer = createSerializer(config.encoding, logSchema);
  const group = config.message_group_id === undefined ? undefined : compileTemplate(config.message_group_id);
  const dedup = config.message_deduplication_id === undefined ? undefined : compileTemplate(config.message_deduplication_id);
  return {
    encode(event) {
      const body = serializer.serializeText(event);
      if (INVALID_CHARACTER.test(body)) throw new EncodeError('message body holds a character the queue service does not accept');
      return { event, size: Buffer.byteLength(body, 'utf8'), key: undefined, body, groupId: undefined, deduplicationId: undefined };
    },
    renderIds:
      group === undefined && dedup === undefined
        ? undefined
        : (m) => {
            if (group) m.groupId = render(group, m.event);
            if (dedup) m.deduplicationId = render(dedup, m.event);
          },
  };
}
