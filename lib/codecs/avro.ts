/**
 * The `avro` serializer (Vector's avro codec): each log event becomes one Avro binary datum
 * written with the configured schema, without a container-file header or a schema id. The schema
 * is checked when the config is validated and compiled once per sink.
 */
import type avro from 'avsc';
import * as v from 'valibot';
import type { Event } from '../event.js';
import { DEFAULT_LOG_SCHEMA, type LogSchemaKeys, createSerializer } from './encoding.js';
import { EncodeError } from './gelf.js';
import type { TimestampFormat } from './json.js';
import { lazyModule } from '../lazy-module.js';

const avsc = lazyModule<typeof avro>('avsc');

/** Parses an Avro schema given as JSON text; throws with the reason. Records only: a log event is an object. */
export function parseAvroSchema(text: string): avro.Type {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`not JSON (${(err as Error).message})`);
  }
  const type = avsc().Type.forSchema(json as avro.Schema);
  if (type.typeName !== 'record') throw new Error(`must be a record schema; got a ${type.typeName} schema`);
  return type;
}

/** `encoding.avro`: the writer schema (JSON text of an Avro record schema). */
export const avroOptionsSchema = v.strictObject({
  schema: v.pipe(
    v.string(),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      try {
        parseAvroSchema(dataset.value);
      } catch (err) {
        addIssue({ message: `not a usable Avro schema: ${(err as Error).message}; expected the JSON of a record schema such as {"type":"record","name":"event","fields":[{"name":"message","type":"string"}]}` });
      }
    }),
  ),
});

/** What the avro serializer reads from an `encoding` group. */
export interface AvroEncoding {
  readonly schema: string;
  readonly only_fields?: readonly string[] | undefined;
  readonly except_fields?: readonly string[] | undefined;
  readonly timestamp_format?: TimestampFormat | undefined;
}

/** Encodes one event to its Avro datum; throws {@link EncodeError} for a metric or a log that does not fit the schema. */
export type AvroSerializer = (e: Event) => Buffer;

type Coerce = (value: unknown) => unknown;

/** Avro's view of a type, as far as coercion walks it (avsc's classes carry these fields). */
interface TypeShape {
  readonly typeName: string;
  readonly fields?: readonly { readonly name: string; readonly type: TypeShape }[];
  readonly itemsType?: TypeShape;
  readonly valuesType?: TypeShape;
  readonly types?: readonly TypeShape[];
}

/**
 * Compiles, once per schema, what makes event values fit it: weir keeps bytes as text, so
 * `bytes` and `fixed` take the text's UTF-8 bytes, inside records, arrays, maps and optional
 * (`["null", …]`) unions. Undefined when the schema needs nothing changed.
 */
function compileCoercion(type: TypeShape): Coerce | undefined {
  switch (type.typeName) {
    case 'bytes':
    case 'fixed':
      return (x) => (typeof x === 'string' ? Buffer.from(x, 'utf8') : x);
    case 'record': {
      const fields = (type.fields ?? []).map((f) => ({ name: f.name, coerce: compileCoercion(f.type) })).filter((f) => f.coerce !== undefined);
      if (fields.length === 0) return undefined;
      return (x) => {
        if (x === null || typeof x !== 'object' || Array.isArray(x)) return x;
        const out: Record<string, unknown> = { ...(x as Record<string, unknown>) };
        for (const f of fields) if (out[f.name] !== undefined) out[f.name] = f.coerce!(out[f.name]);
        return out;
      };
    }
    case 'array': {
      const item = compileCoercion(type.itemsType!);
      return item && ((x) => (Array.isArray(x) ? x.map(item) : x));
    }
    case 'map': {
      const value = compileCoercion(type.valuesType!);
      if (!value) return undefined;
      return (x) => {
        if (x === null || typeof x !== 'object' || Array.isArray(x)) return x;
        const out: Record<string, unknown> = {};
        for (const [k, val] of Object.entries(x)) out[k] = value(val);
        return out;
      };
    }
    case 'union:unwrapped': {
      const branches = type.types ?? [];
      const other = branches.filter((b) => b.typeName !== 'null');
      if (other.length !== 1) return undefined;
      const inner = compileCoercion(other[0]!);
      return inner && ((x) => (x === null || x === undefined ? x : inner(x)));
    }
    default:
      return undefined;
  }
}

/**
 * Compiles the serializer. Fields are selected and timestamps formatted exactly as the json codec
 * does (only_fields, except_fields, timestamp_format), then the schema's record is written; fields
 * the schema does not name are left out, and missing ones take the schema's defaults.
 */
export function createAvroSerializer(encoding: AvroEncoding, logSchema: LogSchemaKeys = DEFAULT_LOG_SCHEMA): AvroSerializer {
  const type = parseAvroSchema(encoding.schema);
  const coerce = compileCoercion(type as unknown as TypeShape);
  // the json codec's projection and timestamp rules, so avro sees the same fields json would
  const json = createSerializer({ codec: 'json', only_fields: encoding.only_fields, except_fields: encoding.except_fields, timestamp_format: encoding.timestamp_format }, logSchema);
  return (e) => {
    if (e.type !== 'log') throw new EncodeError('avro encodes log events only');
    const plain: unknown = JSON.parse(json.serializeText(e));
    try {
      return type.toBuffer(coerce ? coerce(plain) : plain);
    } catch (err) {
      throw new EncodeError(`event does not match the Avro schema: ${(err as Error).message}`);
    }
  };
}
