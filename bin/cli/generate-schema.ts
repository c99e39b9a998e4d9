/**
 * `weir generate-schema`: one JSON Schema of the whole configuration, built from the schemas the
 * loader validates with: the global options, every catalog component (a component table is
 * checked against the schema its `type` names, Vector's type names included) and `[[tests]]`.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { components } from '../../connectors/index.js';
import type { ComponentDef, ComponentKind } from '../../lib/component.js';
import { GlobalOptionsSchema } from '../../lib/config/global.js';
import { type JsonSchema, toJsonSchema } from '../../lib/config/json-schema.js';
import { SECTION } from '../../lib/config/load.js';
import { TestDefinitionSchema } from './unit-test/definition.js';

/** sysexits, as Vector's command: the output file exists / cannot be written. */
const EXIT_CANTCREAT = 73;
const EXIT_IOERR = 74;

/** Sets the `type` option of a component's schema (and of each branch of a union) to its accepted names. */
function withTypeNames(schema: JsonSchema, names: readonly string[]): JsonSchema {
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: (schema.anyOf as JsonSchema[]).map((s) => withTypeNames(s, names)) };
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (!properties?.type) return schema;
  const { const: _literal, ...type } = properties.type;
  return { ...schema, properties: { ...properties, type: { ...type, enum: [...names] } } };
}

const defName = (c: ComponentDef) => `${c.kind}.${c.type}`;

/** The table of one section: component ids to components, each checked against the schema of its type. */
function section(kind: ComponentKind): JsonSchema {
  const defs = components.filter((c) => c.kind === kind);
  const names = (c: ComponentDef) => [c.type, ...(c.aliases ?? [])];
  return {
    type: 'object',
    description: `The ${SECTION[kind]}, by component id.`,
    propertyNames: { pattern: '^[^.\\s]+$' },
    additionalProperties: {
      type: 'object',
      required: ['type'],
      properties: { type: { enum: defs.flatMap(names) } },
      allOf: defs.map((c) => ({
        if: { properties: { type: { enum: names(c) } }, required: ['type'] },
        then: { $ref: `#/$defs/${defName(c)}` },
      })),
    },
  };
}

/** The schema of a whole configuration file. */
export function configJsonSchema(): JsonSchema {
  const globals = toJsonSchema(GlobalOptionsSchema);
  const $defs: Record<string, JsonSchema> = {};
  for (const c of components) $defs[defName(c)] = withTypeNames(toJsonSchema(c.schema), [c.type, ...(c.aliases ?? [])]);
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'weir configuration',
    type: 'object',
    properties: {
      ...(globals.properties as Record<string, JsonSchema>),
      sources: section('source'),
      transforms: section('transform'),
      sinks: section('sink'),
      tests: { type: 'array', description: 'Unit tests run by `weir test`.', items: toJsonSchema(TestDefinitionSchema) },
    },
    additionalProperties: false,
    $defs,
  };
}

export function generateSchemaCommand(opts: { outputPath?: string }, out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): number {
  const json = JSON.stringify(configJsonSchema(), null, 2);
  if (opts.outputPath === undefined) {
    out.write(json + '\n');
    return 0;
  }
  if (existsSync(opts.outputPath)) {
    err.write(`Error: Output file "${opts.outputPath}" already exists\n`);
    return EXIT_CANTCREAT;
  }
  try {
    writeFileSync(opts.outputPath, json + '\n');
  } catch (e) {
    err.write(`Error writing to file "${opts.outputPath}": ${(e as Error).message}\n`);
    return EXIT_IOERR;
  }
  out.write(`Schema successfully written to "${opts.outputPath}"\n`);
  return 0;
}
