/**
 * JSON Schema (draft 2020-12) from valibot schemas, so editors and CI can check a configuration
 * with the very definitions the loader validates against. What JSON Schema cannot say is left
 * out: custom checks (`check`, `rawCheck`) are not described, and a value the loader first
 * converts (`pipe(unknown(), transform, object)`, Vector's shorthand forms such as
 * `healthcheck = false`) is described as its table or any value that is not a table.
 */
import type { GenericSchema } from 'valibot';

export type JsonSchema = { [key: string]: unknown };

/** The parts of a valibot schema or action object this walk reads. */
interface Node {
  readonly kind: 'schema' | 'validation' | 'transformation' | 'metadata';
  readonly type: string;
  readonly pipe?: readonly Node[];
  readonly wrapped?: Node;
  readonly default?: unknown;
  readonly entries?: Readonly<Record<string, Node>>;
  readonly item?: Node;
  readonly items?: readonly Node[];
  readonly key?: Node | string;
  readonly value?: Node;
  readonly options?: readonly (Node | string | number)[];
  readonly literal?: unknown;
  readonly requirement?: unknown;
  readonly description?: string;
  readonly rest?: Node;
}

const isOptional = (n: Node) => n.type === 'optional' || n.type === 'exact_optional' || n.type === 'nullish';

/** A default as JSON, when it is plain data (not a function, not a class instance). */
function jsonDefault(n: Node): unknown {
  const d = n.default;
  if (d === undefined || typeof d === 'function') return undefined;
  try {
    return JSON.parse(JSON.stringify(d)) as unknown;
  } catch {
    return undefined;
  }
}

function objectSchema(n: Node, additional: boolean | JsonSchema): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [k, child] of Object.entries(n.entries ?? {})) {
    properties[k] = toJsonSchema(child as unknown as GenericSchema);
    if (!isOptional(child)) required.push(k);
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: additional };
}

/** Applies a validation action to the schema of the value it checks. */
function applyAction(out: JsonSchema, a: Node): void {
  const req = a.requirement;
  const isArray = out.type === 'array';
  switch (a.type) {
    case 'description':
      if (a.description) out.description = a.description;
      break;
    case 'integer':
      if (out.type === 'number') out.type = 'integer';
      break;
    case 'min_value':
      if (typeof req === 'number') out.minimum = req;
      break;
    case 'max_value':
      if (typeof req === 'number') out.maximum = req;
      break;
    case 'gt_value':
      if (typeof req === 'number') out.exclusiveMinimum = req;
      break;
    case 'lt_value':
      if (typeof req === 'number') out.exclusiveMaximum = req;
      break;
    case 'min_length':
      if (typeof req === 'number') out[isArray ? 'minItems' : 'minLength'] = req;
      break;
    case 'max_length':
      if (typeof req === 'number') out[isArray ? 'maxItems' : 'maxLength'] = req;
      break;
    case 'length':
      if (typeof req === 'number') {
        out[isArray ? 'minItems' : 'minLength'] = req;
        out[isArray ? 'maxItems' : 'maxLength'] = req;
      }
      break;
    case 'non_empty':
      out[isArray ? 'minItems' : 'minLength'] = 1;
      break;
    case 'regex':
      if (req instanceof RegExp && !req.flags.includes('i')) out.pattern = req.source;
      break;
    case 'url':
      out.format = 'uri';
      break;
    default:
    // checks JSON Schema cannot express (`check`, `raw_check`, …) are the loader's alone
  }
}

function pipeSchema(n: Node): JsonSchema {
  const steps = n.pipe!;
  const base = steps[0]!;
  const converts = steps.findIndex((s) => s.kind === 'transformation');
  const laterSchemas = steps.slice(1).filter((s) => s.kind === 'schema');
  if ((base.type === 'unknown' || base.type === 'any') && laterSchemas.length > 0) {
    const described = toJsonSchema(laterSchemas[laterSchemas.length - 1] as unknown as GenericSchema);
    const at = steps.indexOf(laterSchemas[laterSchemas.length - 1]!);
    return converts >= 0 && converts < at ? { anyOf: [described, { not: { type: 'object' } }] } : described;
  }
  const out = toJsonSchema(base as unknown as GenericSchema);
  for (let i = 1; i < steps.length; i++) {
    const s = steps[i]!;
    // a description describes the option wherever it sits; checks after a conversion check
    // the converted value, not what the file holds
    if (s.type === 'description' || ((converts < 0 || i < converts) && s.kind === 'validation')) applyAction(out, s);
  }
  return out;
}

/** The JSON Schema of a valibot schema (the input it accepts). */
export function toJsonSchema(schema: GenericSchema): JsonSchema {
  const n = schema as unknown as Node;
  if (n.pipe && n.pipe.length > 0) return pipeSchema(n);
  switch (n.type) {
    case 'string':
      return { type: 'string' };
    case 'number':
      return { type: 'number' };
    case 'bigint':
      return { type: 'integer' };
    case 'boolean':
      return { type: 'boolean' };
    case 'null':
      return { type: 'null' };
    case 'date':
      return { type: 'string', format: 'date-time' };
    case 'literal':
      return { const: n.literal };
    case 'picklist':
    case 'enum':
      return { enum: [...(n.options ?? [])] };
    case 'optional':
    case 'exact_optional':
    case 'undefinedable': {
      const inner = toJsonSchema(n.wrapped as unknown as GenericSchema);
      const d = jsonDefault(n);
      return d === undefined ? inner : { ...inner, default: d };
    }
    case 'nullable':
    case 'nullish': {
      const d = jsonDefault(n);
      return { anyOf: [toJsonSchema(n.wrapped as unknown as GenericSchema), { type: 'null' }], ...(d === undefined ? {} : { default: d }) };
    }
    case 'non_optional':
    case 'non_nullable':
    case 'non_nullish':
      return toJsonSchema(n.wrapped as unknown as GenericSchema);
    case 'strict_object':
      return objectSchema(n, false);
    case 'object':
    case 'loose_object':
      return objectSchema(n, true);
    case 'object_with_rest':
      return objectSchema(n, toJsonSchema(n.rest as unknown as GenericSchema));
    case 'array':
      return { type: 'array', items: toJsonSchema(n.item as unknown as GenericSchema) };
    case 'tuple':
    case 'strict_tuple':
    case 'loose_tuple':
      return { type: 'array', prefixItems: (n.items ?? []).map((i) => toJsonSchema(i as unknown as GenericSchema)), ...(n.type === 'strict_tuple' ? { items: false } : {}) };
    case 'record': {
      const key = n.key && typeof n.key !== 'string' ? toJsonSchema(n.key as unknown as GenericSchema) : { type: 'string' };
      const names = key.type === 'string' && Object.keys(key).length === 1 ? {} : { propertyNames: key };
      return { type: 'object', additionalProperties: toJsonSchema(n.value as unknown as GenericSchema), ...names };
    }
    case 'union':
    case 'variant':
      return { anyOf: (n.options as Node[]).map((o) => toJsonSchema(o as unknown as GenericSchema)) };
    case 'never':
      return { not: {} };
    default:
      // unknown, any, lazy, custom, instance: anything the loader may still accept
      return {};
  }
}
