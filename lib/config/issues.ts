/**
 * Turns valibot issues into config problems that name the option path, what was wrong and what
 * is allowed. The allowed option names of an object come from the schema itself.
 */
import type { BaseIssue, GenericSchema } from 'valibot';
import { suggest } from './suggest.js';

type AnyIssue = BaseIssue<unknown>;

type Walkable = { kind?: string; type?: string; wrapped?: unknown; pipe?: Walkable[]; options?: Walkable[]; entries?: Record<string, unknown> };

/**
 * Unwraps optional/nullable/pipe wrappers to reach the schema that describes the data. In a pipe
 * that is the last schema (`pipe(unknown(), rawTransform(…), strictObject(…))` describes an object);
 * in a union, the branch that is a table, since only tables have option names to list.
 */
function unwrap(schema: unknown): unknown {
  let s = schema as Walkable | undefined;
  for (let i = 0; i < 10 && s; i++) {
    if (s.wrapped) s = s.wrapped as Walkable;
    else if (s.pipe && s.pipe.length > 1) {
      const schemas = s.pipe.filter((p) => p.kind === 'schema' && p !== s);
      s = schemas[schemas.length - 1] ?? s.pipe[0];
      if (s === schema) break;
    } else if (s.options) {
      const table = s.options.map((o) => unwrap(o) as Walkable).find((o) => o?.entries);
      if (!table) break;
      s = table;
    } else break;
  }
  return s;
}

/** The schema at a key path, or undefined where it cannot be followed (unions, records). */
function schemaAt(schema: GenericSchema, keys: readonly (string | number)[]): unknown {
  let s = unwrap(schema) as { entries?: Record<string, unknown>; item?: unknown; value?: unknown } | undefined;
  for (const k of keys) {
    if (!s) return undefined;
    if (typeof k === 'number' && s.item) s = unwrap(s.item) as typeof s;
    else if (s.entries && typeof k === 'string') s = unwrap(s.entries[k]) as typeof s;
    else if (s.value) s = unwrap(s.value) as typeof s;
    else return undefined;
  }
  return s;
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return 'an array';
  if (v === null) return 'null';
  if (typeof v === 'object') return 'a table/object';
  return `${typeof v} ${String(v)}`;
}

const KIND_WORDS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  boolean: 'a boolean (true or false)',
  array: 'an array',
  object: 'a table/object',
  strict_object: 'a table/object',
  record: 'a table/object',
};

/** `did you mean "x"?` when one name is clearly meant, else `allowed <what>: a, b, c`. */
export function unknownHint(name: string, known: readonly string[], what: string): string {
  const meant = suggest(name, known);
  return meant === undefined ? `allowed ${what}: ${known.join(', ')}` : `did you mean "${meant}"?`;
}

export interface MappedIssue {
  path: string;
  message: string;
}

/** Maps one valibot issue (recursing into unions) to located, readable messages. */
export function mapIssue(schema: GenericSchema, issue: AnyIssue): MappedIssue[] {
  const keys = (issue.path ?? []).map((p) => (p as { key: string | number }).key);
  const path = keys.map((k) => (typeof k === 'number' ? `[${k}]` : k)).join('.').replace(/\.\[/g, '[');
  const custom = !issue.message.startsWith('Invalid ');
  const received = describe(issue.input);
  switch (issue.type) {
    case 'strict_object':
    case 'object': {
      if (issue.input === undefined && issue.expected && issue.expected !== 'never') {
        return [{ path, message: 'missing required option' }];
      }
      if (issue.expected === 'never') {
        const parent = schemaAt(schema, keys.slice(0, -1)) as { entries?: Record<string, unknown> } | undefined;
        if (!parent?.entries) return [{ path, message: 'unknown option' }];
        const known = Object.keys(parent.entries);
        return [{ path, message: `unknown option; ${unknownHint(String(keys[keys.length - 1]), known, 'options')}` }];
      }
      return [{ path, message: `must be a table/object, got ${received}` }];
    }
    case 'picklist':
    case 'literal': {
      if (custom) return [{ path, message: issue.message }];
      return [{ path, message: `must be one of ${issue.expected?.replace(/[()]/g, '').split(' | ').join(', ')}; got ${received}` }];
    }
    case 'union':
    case 'variant': {
      const sub = (issue.issues ?? []) as AnyIssue[];
      // prefer the branch that got deepest: it is the one the user meant
      const deepest = sub.reduce<AnyIssue | undefined>((best, i) => ((i.path?.length ?? 0) > (best?.path?.length ?? -1) ? i : best), undefined);
      // branch issues carry paths relative to the union's own position
      if (deepest && (deepest.path?.length ?? 0) > 0) return mapIssue(schema, { ...deepest, path: [...(issue.path ?? []), ...(deepest.path ?? [])] } as AnyIssue);
      if (custom) return [{ path, message: `${issue.message}; got ${received}` }];
      return [{ path, message: `must be ${issue.expected ?? 'a different value'}; got ${received}` }];
    }
    case 'min_value':
    case 'gt_value':
    case 'max_value':
    case 'lt_value': {
      if (custom) return [{ path, message: `${issue.message}; got ${received}` }];
      const words: Record<string, string> = { min_value: 'at least', gt_value: 'greater than', max_value: 'at most', lt_value: 'less than' };
      return [{ path, message: `must be ${words[issue.type]} ${String(issue.requirement)}; got ${received}` }];
    }
    case 'integer':
      return [{ path, message: `must be a whole number; got ${received}` }];
    case 'min_length':
      return [{ path, message: custom ? issue.message : `must have at least ${String(issue.requirement)} item(s)` }];
    case 'url':
      return [{ path, message: `${custom ? issue.message : 'must be a URL'}; got ${received}` }];
    default: {
      if (KIND_WORDS[issue.type]) return [{ path, message: `must be ${KIND_WORDS[issue.type]}; got ${received}` }];
      return [{ path, message: custom ? issue.message : issue.message.replace(/^Invalid \w+: /, '') }];
    }
  }
}
