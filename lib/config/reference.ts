/**
 * A component's option reference, read from the JSON Schema that `weir generate-schema` prints
 * (lib/config/json-schema.ts), so the docs, `weir list <type>` and the loader describe the same
 * options. One row per option path; tables are walked into, unions of tables merged.
 */
import type { ComponentDef } from '../component.js';
import { type JsonSchema, toJsonSchema } from './json-schema.js';

/** One option: its dotted path (`batch.max_events`, `tags.<name>`, `routes[].name`) and what it takes. */
export interface OptionRow {
  readonly path: string;
  readonly type: string;
  readonly required: boolean;
  /** Set when the option is required only once its table is written: that table's path. */
  readonly requiredIn?: string;
  /** The default as JSON text, or '' when there is none the schema can state. */
  readonly default: string;
  /** Allowed values or bounds (`"tcp"`, `"udp"`; `1 … 8`), or ''. */
  readonly allowed: string;
  readonly description: string;
}

const props = (s: JsonSchema) => s.properties as Record<string, JsonSchema> | undefined;
const branches = (s: JsonSchema) => (Array.isArray(s.anyOf) ? (s.anyOf as JsonSchema[]) : [s]);
const isTable = (s: JsonSchema) => props(s) !== undefined || (s.type === 'object' && typeof s.additionalProperties === 'object');

/** A short type name: `string`, `integer`, `table`, `array of string`, `string | boolean`. */
function typeName(s: JsonSchema): string {
  if (Array.isArray(s.anyOf)) return [...new Set((s.anyOf as JsonSchema[]).map(typeName))].join(' | ');
  if ('const' in s) return typeof s.const === 'string' ? 'string' : typeof s.const;
  if (Array.isArray(s.enum)) return [...new Set((s.enum as unknown[]).map((v) => (typeof v === 'string' ? 'string' : typeof v)))].join(' | ');
  if (s.type === 'array') {
    const items = s.items as JsonSchema | undefined;
    return items && typeof items === 'object' ? `array of ${typeName(items)}` : 'array';
  }
  if (s.type === 'object') return 'table';
  if (typeof s.type === 'string') return s.type;
  if (s.not && typeof s.not === 'object' && (s.not as JsonSchema).type === 'object') return 'not a table';
  if (s.not) return 'never';
  return 'any';
}

/** Allowed values and bounds as one line. */
function allowed(s: JsonSchema): string {
  const parts: string[] = [];
  for (const b of branches(s)) {
    if ('const' in b) parts.push(JSON.stringify(b.const));
    if (Array.isArray(b.enum)) parts.push(...(b.enum as unknown[]).map((v) => JSON.stringify(v)));
    const lo = b.minimum ?? b.minLength ?? b.minItems;
    const hi = b.maximum ?? b.maxLength ?? b.maxItems;
    const unit = b.minLength !== undefined || b.maxLength !== undefined ? ' characters' : b.minItems !== undefined || b.maxItems !== undefined ? ' items' : '';
    if (lo !== undefined && hi !== undefined) parts.push(`${String(lo)} … ${String(hi)}${unit}`);
    else if (lo !== undefined) parts.push(`≥ ${String(lo)}${unit}`);
    else if (hi !== undefined) parts.push(`≤ ${String(hi)}${unit}`);
    if (b.exclusiveMinimum !== undefined) parts.push(`> ${String(b.exclusiveMinimum)}`);
    if (b.exclusiveMaximum !== undefined) parts.push(`< ${String(b.exclusiveMaximum)}`);
    if (b.format === 'uri') parts.push('a URL');
    if (typeof b.pattern === 'string') parts.push(`matches /${b.pattern}/`);
  }
  return [...new Set(parts)].join(', ');
}

/** The first description found on the schema or, for a union, on one of its branches. */
function description(s: JsonSchema): string {
  if (typeof s.description === 'string') return s.description;
  for (const b of branches(s)) if (typeof b.description === 'string') return b.description;
  return '';
}

function defaultOf(s: JsonSchema): string {
  // a table's default is spelled out on its own options
  if (s.default === undefined || (typeof s.default === 'object' && s.default !== null && !Array.isArray(s.default))) return '';
  return JSON.stringify(s.default);
}

function walk(schema: JsonSchema, prefix: string, rows: Map<string, OptionRow>, isPrefixRequired = true): void {
  for (const branch of branches(schema)) {
    const p = props(branch);
    const required = new Set(Array.isArray(branch.required) ? (branch.required as string[]) : []);
    for (const [key, child] of Object.entries(p ?? {})) {
      const path = prefix ? `${prefix}.${key}` : key;
      add(child, path, required.has(key), rows, prefix, isPrefixRequired);
    }
    // a table of free-form names (`tags`, `route`): one row for the values under `<name>`
    if (p === undefined && typeof branch.additionalProperties === 'object') add(branch.additionalProperties as JsonSchema, `${prefix}.<name>`, false, rows, prefix, false);
  }
}

function add(child: JsonSchema, path: string, isInTableRequired: boolean, rows: Map<string, OptionRow>, parent: string, isParentRequired: boolean): void {
  const tables = branches(child).filter(isTable);
  // an option required inside an optional table is required only once that table is written
  const required = isInTableRequired && isParentRequired;
  const requiredIn = isInTableRequired && !isParentRequired ? { requiredIn: parent } : {};
  const row: OptionRow = { path, type: typeName(child), required, ...requiredIn, default: defaultOf(child), allowed: allowed(child), description: description(child) };
  const seen = rows.get(path);
  if (seen === undefined) {
    // a table with its own options gets a row only when something is said about the table itself
    if (tables.length === 0 || row.description || tables.length < branches(child).length) rows.set(path, row);
  } else {
    // the same option in another branch of a union (`metrics[].type`): its values add up
    const merged = (a: string, b: string, sep: string) => [...new Set([...a.split(sep), ...b.split(sep)].filter(Boolean))].join(sep);
    rows.set(path, {
      ...seen,
      type: merged(seen.type, row.type, ' | '),
      allowed: merged(seen.allowed, row.allowed, ', '),
      description: seen.description || row.description,
      default: seen.default || row.default,
    });
  }
  for (const t of tables) walk(t, path, rows, required);
  for (const b of branches(child)) {
    const items = b.type === 'array' ? (b.items as JsonSchema | undefined) : undefined;
    if (items && typeof items === 'object' && branches(items).some(isTable)) walk(items, `${path}[]`, rows, false);
  }
}

/** Every option of a component, in schema order; `type` and `inputs` included. */
export function optionRows(def: ComponentDef): OptionRow[] {
  const rows = new Map<string, OptionRow>();
  walk(toJsonSchema(def.schema), '', rows);
  return [...rows.values()];
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
const code = (s: string) => (s ? `\`${s.replace(/`/g, "'")}\`` : '');

/** The options as a Markdown table (option, type, default, allowed, description); required options say so. */
export function optionsMarkdown(def: ComponentDef): string {
  const lines = ['| option | type | default | allowed | description |', '|---|---|---|---|---|'];
  for (const r of optionRows(def)) {
    const def_ = r.required ? '*required*' : r.requiredIn ? `*required in \`${r.requiredIn}\`*` : code(r.default);
    lines.push(`| \`${r.path}\` | ${cell(r.type)} | ${cell(def_)} | ${cell(r.allowed)} | ${cell(r.description)} |`);
  }
  return lines.join('\n') + '\n';
}

/** The options as plain text for a terminal: one option per block, wrapped descriptions. */
export function optionsText(def: ComponentDef, width = 100): string {
  const out: string[] = [];
  for (const r of optionRows(def)) {
    const facts = [r.type, r.required ? 'required' : r.requiredIn ? `required in ${r.requiredIn}` : r.default ? `default ${r.default}` : '', r.allowed ? `allowed: ${r.allowed}` : ''].filter(Boolean);
    out.push(`  ${r.path}  (${facts.join('; ')})`);
    if (r.description) out.push(...wrap(r.description, width - 6).map((l) => `      ${l}`));
  }
  return out.join('\n') + '\n';
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/** The markers around the generated part of a component page. */
export const GENERATED_START = '<!-- generated -->';
/** The end marker of the generated part of a component page. */
export const GENERATED_END = '<!-- /generated -->';

const kindTitle = (def: ComponentDef) => def.kind[0]!.toUpperCase() + def.kind.slice(1);
const aliasLine = (def: ComponentDef) =>
  def.aliases?.length ? ` Vector's name${def.aliases.length > 1 ? 's' : ''} ${def.aliases.map((a) => `\`${a}\``).join(', ')} ${def.aliases.length > 1 ? 'work' : 'works'} too.` : '';

/**
 * The generated part of a component page, markers included: for each kind the type has (a
 * `socket` is a source and a sink), its summary, option table and example configuration.
 */
export function generatedPart(defs: readonly ComponentDef[], exampleOf: (def: ComponentDef) => string | undefined): string {
  const parts = [GENERATED_START, '<!-- written by scripts/gen-component-docs.ts from the schema: edit the schema, then run it again -->', ''];
  for (const def of defs) {
    const heading = defs.length > 1 ? ` (${def.kind})` : '';
    parts.push(`## ${kindTitle(def)} options`, '', `\`type = "${def.type}"\`: ${def.summary}${aliasLine(def)}`, '', optionsMarkdown(def));
    const example = exampleOf(def);
    if (example !== undefined) parts.push(`## Example${heading}`, '', '```toml', example.trimEnd(), '```', '');
  }
  parts.push(GENERATED_END);
  return parts.join('\n') + '\n';
}

/** The reference `weir list <type>` prints: summary, options and example, as plain text. */
export function componentText(def: ComponentDef, example: string | undefined): string {
  const out = [`${def.type} (${def.kind}): ${def.summary}${aliasLine(def)}`, '', 'Options:', optionsText(def)];
  if (example !== undefined) out.push('Example:', '', ...example.trimEnd().split('\n').map((l) => `  ${l}`), '');
  return out.join('\n');
}
