/** Events to NATS messages: each event is encoded alone into one message payload. */
import { type LogSchemaKeys, createSerializer } from '../../../lib/codecs/encoding.js';
import type { Event } from '../../../lib/event.js';
import { type Template, TemplateError, compileTemplate } from '../../../lib/template.js';
import type { Encoded } from '../../shared/request-sink.js';
import type { NatsSinkConfig } from './config.js';

/** One event as a message; `subject` is filled in by {@link NatsEncoder.renderSubject}. */
export interface NatsMessage extends Encoded {
  readonly payload: Buffer;
  subject: string;
  /** Nats-Msg-Id header (JetStream only); undefined when not configured or its render failed. */
  messageId: string | undefined;
}

/** The sink's encoder, compiled once. */
export interface NatsEncoder {
  /** Encodes one event; throws when the codec refuses it. */
  encode(e: Event): NatsMessage;
  /** Renders the subject (and message id) of one message; throws {@link TemplateError} when the subject cannot render. */
  renderSubject(m: NatsMessage): void;
}

const renderSubject = (t: Template, e: Event): string => {
  const s = t.render(e);
  if (s === undefined) throw new TemplateError(t.text, `missing field(s) ${t.missingFields(e).join(', ')}`);
  if (s === '') throw new TemplateError(t.text, 'rendered to an empty subject');
  return s;
};

/** Compiles the encoder once per sink. */
export function createNatsEncoder(config: Pick<NatsSinkConfig, 'encoding' | 'subject' | 'jetstream'>, logSchema?: LogSchemaKeys): NatsEncoder {
  const serializer = createSerializer(config.encoding, logSchema);
  const subject = compileTemplate(config.subject);
  const idText = config.jetstream.enabled ? config.jetstream.headers.message_id : undefined;
  const messageId = idText === undefined ? undefined : compileTemplate(idText);
  return {
    encode(event) {
      const payload = serializer.serialize(event);
      return { event, size: payload.length, key: undefined, payload, subject: '', messageId: undefined };
    },
    renderSubject(m) {
      m.subject = renderSubject(subject, m.event);
      if (messageId !== undefined) {
        const id = messageId.render(m.event);
        if (id !== undefined && id !== '') m.messageId = id;
      }
    },
  };
}
