/**
 * Events to Pub/Sub messages (the Pub/Sub publish API): each event encoded alone, its bytes as the
 * standard base64 `data` of one message, plus the attributes and ordering key when configured.
 */
import { EncodeError, type LogSchemaKeys, createSerializer } from '../../../lib/codecs/encoding.js';
import type { Event } from '../../../lib/event.js';
import { type Template, TemplateError, compileTemplate } from '../../../lib/template.js';
import type { Encoded } from '../../shared/request-sink.js';
import type { CloudgPubsubConfig } from './config.js';

/** One message; `size` is its JSON plus one (the comma), what counts against `batch.max_bytes`. */
export interface EncodedMessage extends Encoded {
  readonly json: string;
}

/** Compiles the serializer and templates once; `encode` throws for an event that cannot be a message. */
export function createPubsubEncoder(config: Pick<CloudgPubsubConfig, 'encoding' | 'attributes' | 'ordering_key'>, logSchema?: LogSchemaKeys) {
  const serializer = createSerializer(config.encoding, logSchema);
  const attributes: [string, Template][] = Object.entries(config.attributes).map(([k, t]) => [k, compileTemplate(t)]);
  const orderingKey = config.ordering_key === undefined ? undefined : compileTemplate(config.ordering_key);
  const render = (t: Template, e: Event, what: string): string => {
    const s = t.render(e);
    if (s === undefined) throw new TemplateError(t.text, `${what}: missing field(s) ${t.missingFields(e).join(', ')}`);
    return s;
  };
  return {
    encode(event: Event): EncodedMessage {
      const data = serializer.serialize(event);
      let json = `{"data":"${data.toString('base64')}"`;
      if (attributes.length > 0) {
        const attrs: Record<string, string> = {};
        for (const [k, t] of attributes) attrs[k] = render(t, event, `attribute ${k}`);
        json += `,"attributes":${JSON.stringify(attrs)}`;
      }
      // the service refuses a message with neither data nor attributes, and with it the whole request
      if (data.length === 0 && attributes.length === 0) throw new EncodeError('the event encodes to an empty message');
      if (orderingKey) json += `,"orderingKey":${JSON.stringify(render(orderingKey, event, 'ordering_key'))}`;
      json += '}';
      return { event, size: json.length + 1, key: undefined, json };
    },
  };
}
