/**
 * Loading a configuration: files (TOML, YAML, JSON; same keys in each) -> environment
 * interpolation -> parse -> merge -> valibot per component. Every problem is collected and
 * reported together, each with its file, component and option path.
 */
import { readFileSync } from 'node:fs';
import { parse as parseToml } from 'smol-toml';
import * as v from 'valibot';
import { yaml } from '../yaml.js';
import type { ComponentDef, ComponentKind, SinkDef, SourceDef, TransformDef } from '../component.js';
import type { SinkEnvelope } from './options/envelope.js';
import { ConfigError, type ConfigProblem } from '../errors.js';
import { GlobalOptionsSchema, type GlobalOptions, defaultGlobals } from './global.js';
import { interpolate } from './interpolate.js';
import { sourceLogNamespaceProblem, withoutLogNamespace } from './log-namespace.js';
import { mapIssue, unknownHint } from './issues.js';
import { type ConfigSource, formatOf, itemName } from './paths.js';
import { type ConfigFormat, describeSyntaxError } from './syntax-error.js';
import { validateOptions } from './validate-options.js';

export { formatOf } from './paths.js';

export const SECTION: Record<ComponentKind, 'sources' | 'transforms' | 'sinks'> = {
  source: 'sources',
  transform: 'transforms',
  sink: 'sinks',
};

interface Configured<K extends ComponentKind, D extends ComponentDef, O> {
  readonly id: string;
  readonly kind: K;
  readonly def: D;
  /** Options after validation, defaults applied. */
  readonly options: Record<string, unknown> & O;
  /** The options as written (after interpolation), for change detection on reload. */
  readonly raw: unknown;
  readonly file: string | undefined;
}
/** A validated component: definition, parsed options, where it was written; `kind` tells which. */
export type ComponentConfig =
  | Configured<'source', SourceDef, object>
  | Configured<'transform', TransformDef, { inputs?: string[] }>
  | Configured<'sink', SinkDef, SinkEnvelope>;

export interface Config {
  readonly globals: GlobalOptions;
  readonly components: ReadonlyMap<string, ComponentConfig>;
  readonly files: readonly string[];
  /** Unit tests declared in the files (`[[tests]]`), kept as written. */
  readonly tests: readonly unknown[];
}

/** Lookup of definitions by kind and type token. */
export interface Catalog {
  find(kind: ComponentKind, type: string): ComponentDef | undefined;
  types(kind: ComponentKind): string[];
}

/** A parsed file before validation. */
export interface RawConfigFile {
  readonly file: string | undefined;
  readonly data: Record<string, unknown>;
}

type Format = ConfigFormat;

/**
 * TOML integers past 2^53 arrive as BigInt (smol-toml's `asNeeded`) and become the nearest
 * number, as the same value written in YAML or JSON does.
 */
function numbersFromBigInts(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = numbersFromBigInts(v[i]);
  } else if (v !== null && typeof v === 'object' && (Object.getPrototypeOf(v) === null || Object.getPrototypeOf(v) === Object.prototype)) {
    const o = v as Record<string, unknown>;
    for (const k in o) o[k] = numbersFromBigInts(o[k]);
  }
  return v;
}

/** Parses config text of a format; syntax errors become problems with line and column. */
export function parseConfigText(text: string, format: Format, file: string | undefined, env: NodeJS.ProcessEnv, problems: ConfigProblem[]): RawConfigFile | undefined {
  const interp = interpolate(text, env);
  for (const e of interp.errors) problems.push({ code: 'WEIR_ERR_CONFIG_ENV', file, message: e });
  try {
    let data: unknown;
    if (format === 'toml') data = numbersFromBigInts(parseToml(interp.text, { integersAsBigInt: 'asNeeded' }));
    else if (format === 'yaml') data = yaml().parse(interp.text) ?? {};
    else data = JSON.parse(interp.text);
    if (typeof data !== 'object' || data === null || Array.isArray(data)) {
      problems.push({ code: 'WEIR_ERR_CONFIG_SYNTAX', file, message: 'the file must hold a table/object at the top level' });
      return undefined;
    }
    if (deeperThan(data, MAX_CONFIG_DEPTH)) {
      problems.push({ code: 'WEIR_ERR_CONFIG_SYNTAX', file, message: tooDeep(format) });
      return undefined;
    }
    return { file, data: data as Record<string, unknown> };
  } catch (err) {
    // positions are in the interpolated text: its lines are the file's unless a variable's value
    // holds a newline, its columns shift only where a variable on that line changed length
    const fault = describeSyntaxError(err, format, interp.text);
    // a parser that recurses per level runs out of stack far past MAX_CONFIG_DEPTH: say so, where
    const overflow = err instanceof RangeError || /Maximum call stack size exceeded/.test(fault.message);
    problems.push({ code: 'WEIR_ERR_CONFIG_SYNTAX', file, ...fault, ...(overflow ? { message: tooDeep(format) } : {}) });
    return undefined;
  }
}

/** Deepest nesting of tables and lists a configuration file may have (docs/limits.md). */
const MAX_CONFIG_DEPTH = 256;
const tooDeep = (format: Format): string => `invalid ${format.toUpperCase()}: nested deeper than ${MAX_CONFIG_DEPTH} levels`;

/** Whether parsed data nests objects or arrays deeper than `max` (walked without recursion). */
function deeperThan(data: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[data, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > max) return true;
    for (const x of Array.isArray(v) ? v : Object.values(v)) if (x !== null && typeof x === 'object') stack.push([x, depth + 1]);
  }
  return false;
}

/**
 * Reads and parses files; problems collected. A file of a config folder's section (`sinks/out.yaml`)
 * holds one item: it is read as `{ sinks: { out: … } }`, or for tests as one test named by the file.
 */
export function readConfigFiles(files: readonly (string | ConfigSource)[], env: NodeJS.ProcessEnv, problems: ConfigProblem[]): RawConfigFile[] {
  const out: RawConfigFile[] = [];
  for (const entry of files) {
    const { path: file, format: hint, section } = typeof entry === 'string' ? { path: entry, format: undefined, section: undefined } : entry;
    const format = hint ?? formatOf(file);
    if (!format) {
      problems.push({ code: 'WEIR_ERR_CONFIG_FILE', file, message: 'unknown file format; use .toml, .yaml, .yml or .json' });
      continue;
    }
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      problems.push({ code: 'WEIR_ERR_CONFIG_FILE', file, message: `cannot read file: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` });
      continue;
    }
    const parsed = parseConfigText(text, format, file, env, problems);
    if (!parsed) continue;
    if (section === undefined) out.push(parsed);
    else if (section === 'tests') out.push({ file, data: { tests: [{ name: itemName(file), ...parsed.data }] } });
    else out.push({ file, data: { [section]: { [itemName(file)]: parsed.data } } });
  }
  return out;
}

const SECTIONS = ['sources', 'transforms', 'sinks'] as const;
/** Vector's top-level tables weir does not implement: each named in its own message. */
const UNSUPPORTED_TABLES: Readonly<Record<string, string>> = {
  secret: 'secret backends (SECRET[backend.key] placeholders) are not supported by weir yet',
};

/** The outcome of merging and validating files. */
export interface BuiltConfig {
  /** Set when there are no problems. */
  readonly config?: Config;
  readonly problems: ConfigProblem[];
  /**
   * Set when there are problems: the components that still validate once their options with
   * problems are set aside, so the graph and build checks can report their problems in the same run;
   * `failed` holds the ids (and kinds) of the components that could not be validated at all.
   */
  readonly partial?: {
    readonly config: Config;
    readonly failed: ReadonlyMap<string, ComponentKind>;
    /**
     * The failed components whose type is known, with their options as written: enough for the
     * graph check to report their inputs and list their outputs, never to build them.
     */
    readonly stubs: ReadonlyMap<string, ComponentConfig>;
  };
}

/** Merges files and validates every component against its definition's schema. */
export function buildConfig(files: readonly RawConfigFile[], catalog: Catalog): BuiltConfig {
  const problems: ConfigProblem[] = [];
  const globalsRaw: Record<string, unknown> = {};
  const globalsFrom: Record<string, string | undefined> = {};
  const raws = new Map<string, { kind: ComponentKind; raw: unknown; file: string | undefined }>();
  const tests: unknown[] = [];

  for (const { file, data } of files) {
    for (const [key, value] of Object.entries(data)) {
      if ((SECTIONS as readonly string[]).includes(key)) {
        const kind = (Object.keys(SECTION) as ComponentKind[]).find((k) => SECTION[k] === key)!;
        if (typeof value !== 'object' || value === null || Array.isArray(value)) {
          problems.push({ code: 'WEIR_ERR_CONFIG_SYNTAX', file, component: key, message: 'must be a table of components keyed by id' });
          continue;
        }
        for (const [id, raw] of Object.entries(value)) {
          const prev = raws.get(id);
          if (prev) {
            problems.push({
              code: 'WEIR_ERR_CONFIG_DUPLICATE_ID',
              file,
              component: `${key}.${id}`,
              message: `duplicate component id "${id}" (already defined as a ${prev.kind}${prev.file && prev.file !== file ? ` in ${prev.file}` : ''}); ids must be unique across sources, transforms and sinks`,
            });
            continue;
          }
          raws.set(id, { kind, raw, file });
        }
      } else if (key === 'tests') {
        if (Array.isArray(value)) tests.push(...value);
      } else if (UNSUPPORTED_TABLES[key] !== undefined) {
        problems.push({ code: 'WEIR_ERR_CONFIG_UNSUPPORTED', file, path: key, message: UNSUPPORTED_TABLES[key] });
      } else {
        if (key in globalsRaw && JSON.stringify(globalsRaw[key]) !== JSON.stringify(value)) {
          if (key === 'api') {
            globalsRaw[key] = mergeApi(globalsRaw[key], value, file, problems);
          } else if (key === 'healthchecks' || key === 'log_schema' || key === 'schema' || key === 'telemetry' || key === 'enrichment_tables') {
            globalsRaw[key] = mergeTables(globalsRaw[key], value, key, file, problems);
          } else {
            problems.push({ code: 'WEIR_ERR_CONFIG_GLOBAL', file, path: key, message: `conflicting values for "${key}" found (also set in ${globalsFrom[key] ?? 'another file'})` });
          }
          continue;
        }
        globalsRaw[key] = value;
        globalsFrom[key] = file;
      }
    }
  }

  let globals: GlobalOptions | undefined;
  const g = v.safeParse(GlobalOptionsSchema, globalsRaw);
  if (g.success) globals = g.output;
  else
    for (const issue of g.issues) {
      for (const m of mapIssue(GlobalOptionsSchema, issue)) {
        const top = m.path.split('.')[0]!;
        problems.push({ code: 'WEIR_ERR_CONFIG_GLOBAL', file: globalsFrom[top], path: m.path, message: m.message });
      }
    }

  const components = new Map<string, ComponentConfig>();
  const partial = new Map<string, ComponentConfig>();
  const failed = new Map<string, ComponentKind>();
  const stubs = new Map<string, ComponentConfig>();
  for (const [id, { kind, raw, file }] of raws) {
    failed.set(id, kind); // until it validates
    const where = `${SECTION[kind]}.${id}`;
    if (id.includes('.')) {
      problems.push({ code: 'WEIR_ERR_CONFIG_ID', file, component: where, message: 'component id must not contain "." (dots address named outputs, like route.errors)' });
      continue;
    }
    if (id === '' || /\s/.test(id)) {
      problems.push({ code: 'WEIR_ERR_CONFIG_ID', file, component: where, message: 'component id must be non-empty and contain no white space' });
      continue;
    }
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      problems.push({ code: 'WEIR_ERR_CONFIG_OPTION', file, component: where, message: 'must be a table/object of options' });
      continue;
    }
    const type = (raw as Record<string, unknown>).type;
    if (typeof type !== 'string') {
      problems.push({ code: 'WEIR_ERR_CONFIG_UNKNOWN_TYPE', file, component: where, path: 'type', message: `missing required option "type"; allowed ${SECTION[kind]} types: ${catalog.types(kind).join(', ')}` });
      continue;
    }
    const def = catalog.find(kind, type);
    if (!def) {
      const other = (['source', 'transform', 'sink'] as const).filter((k) => k !== kind && catalog.find(k, type));
      const hint = other.length
        ? ` ("${type}" is a ${other.join('/')} type); allowed ${SECTION[kind]} types: ${catalog.types(kind).join(', ')}`
        : `; ${unknownHint(type, catalog.types(kind), `${SECTION[kind]} types`)}`;
      problems.push({
        code: 'WEIR_ERR_CONFIG_UNKNOWN_TYPE',
        file,
        component: where,
        path: 'type',
        message: `unknown ${kind} type "${type}"${hint}`,
      });
      continue;
    }
    // an alias (Vector's type name) validates as the component's own type
    let input = def.type === type ? (raw as Record<string, unknown>) : { ...(raw as Record<string, unknown>), type: def.type };
    if (kind === 'source' && Object.hasOwn(input, 'log_namespace')) {
      // Vector's per-source log namespacing: false is what weir does, true is refused by name
      const refused = sourceLogNamespaceProblem(input.log_namespace);
      if (refused !== undefined) problems.push({ code: input.log_namespace === true ? 'WEIR_ERR_CONFIG_UNSUPPORTED' : 'WEIR_ERR_CONFIG_OPTION', file, component: where, path: 'log_namespace', message: refused });
      input = withoutLogNamespace(input);
    }
    const r = validateOptions(def.schema, input, kind, def.vectorOptions ?? []);
    for (const m of r.problems) {
      const code = m.message.startsWith('not supported by weir yet') ? 'WEIR_ERR_CONFIG_UNSUPPORTED' : 'WEIR_ERR_CONFIG_OPTION';
      problems.push({ code, file, component: where, path: m.path || undefined, message: m.message });
    }
    const options = r.output ?? r.partial;
    if (options === undefined) {
      stubs.set(id, { id, kind, def, options: input, raw, file } as ComponentConfig);
      continue;
    }
    failed.delete(id);
    // the schema's output is the def's options
    (r.output !== undefined ? components : partial).set(id, { id, kind, def, options, raw, file } as ComponentConfig);
  }

  const fileNames = files.map((f) => f.file ?? '<inline>');
  if (problems.length > 0 || !globals) {
    for (const [id, c] of components) partial.set(id, c);
    return { problems, partial: { config: { globals: globals ?? defaultGlobals(), components: partial, files: fileNames, tests }, failed, stubs } };
  }
  return { config: { globals, components, files: fileNames, tests }, problems };
}

/**
 * `api` tables of several files (merged as Vector merges them): enabled if any file enables it, playground and
 * graphql only if every file leaves them on, and one address unless all but one keep the default.
 */
function mergeApi(a: unknown, b: unknown, file: string | undefined, problems: ConfigProblem[]): unknown {
  if (typeof a !== 'object' || typeof b !== 'object' || !a || !b) return b;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const out: Record<string, unknown> = { ...x, ...y };
  const either = (k: string, dflt: boolean, combine: (p: boolean, q: boolean) => boolean) => {
    if (k in x || k in y) out[k] = typeof (x[k] ?? dflt) === 'boolean' && typeof (y[k] ?? dflt) === 'boolean' ? combine((x[k] ?? dflt) as boolean, (y[k] ?? dflt) as boolean) : y[k] ?? x[k];
  };
  either('enabled', false, (p, q) => p || q);
  either('playground', true, (p, q) => p && q);
  either('graphql', true, (p, q) => p && q);
  const dflt = '127.0.0.1:8686';
  const ax = x.address ?? dflt;
  const ay = y.address ?? dflt;
  if (ax !== dflt && ay !== dflt && ax !== ay) problems.push({ code: 'WEIR_ERR_CONFIG_GLOBAL', file, path: 'api.address', message: `conflicting values for "api.address" found (${JSON.stringify(ax)} and ${JSON.stringify(ay)})` });
  out.address = ax !== dflt ? ax : ay;
  if (!('address' in x) && !('address' in y)) delete out.address;
  return out;
}

function mergeTables(a: unknown, b: unknown, key: string, file: string | undefined, problems: ConfigProblem[]): unknown {
  if (typeof a !== 'object' || typeof b !== 'object' || !a || !b) return b;
  const out: Record<string, unknown> = { ...(a as Record<string, unknown>) };
  for (const [k, val] of Object.entries(b as Record<string, unknown>)) {
    if (k in out && JSON.stringify(out[k]) !== JSON.stringify(val))
      problems.push({ code: 'WEIR_ERR_CONFIG_GLOBAL', file, path: `${key}.${k}`, message: `conflicting values for "${key}.${k}" found` });
    else out[k] = val;
  }
  return out;
}

/** Loads files from disk; throws ConfigError with every problem. */
export function loadConfig(files: readonly (string | ConfigSource)[], catalog: Catalog, env: NodeJS.ProcessEnv = process.env): Config {
  const problems: ConfigProblem[] = [];
  if (files.length === 0) problems.push({ code: 'WEIR_ERR_CONFIG_FILE', message: 'no configuration given; pass --config FILE (TOML, YAML or JSON)' });
  const raw = readConfigFiles(files, env, problems);
  const built = buildConfig(raw, catalog);
  problems.push(...built.problems);
  if (problems.length > 0 || !built.config) throw new ConfigError(problems);
  return built.config;
}

/** Builds a config from in-memory objects (library use, tests). */
export function configFromObject(data: Record<string, unknown>, catalog: Catalog): Config {
  const built = buildConfig([{ file: undefined, data }], catalog);
  if (!built.config) throw new ConfigError(built.problems);
  return built.config;
}
