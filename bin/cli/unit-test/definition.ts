/**
 * The `[[tests]]` tables of a configuration (Vector's unit tests), declared once: the test runner
 * validates with these schemas and `weir generate-schema` describes them. `at` is weir's own: the
 * virtual time (ms from the start of the test) at which an input enters its transform.
 */
import * as v from 'valibot';
import { uint } from '../../../lib/config/options/numbers.js';
import { mapIssue } from '../../../lib/config/issues.js';
import { conditionSchema } from '../../../operators/conditions/index.js';

export const INPUT_TYPES = ['raw', 'log', 'metric', 'vrl'] as const;

export const TestInputSchema = v.strictObject({
  insert_at: v.pipe(v.string(), v.description('The transform the event enters.')),
  type: v.optional(v.pipe(v.picklist(INPUT_TYPES), v.description('How the event is given: raw (value), log (log_fields), metric (metric) or vrl (source).')), 'raw'),
  value: v.optional(v.pipe(v.string(), v.description('raw: the message of a log event.'))),
  source: v.optional(v.pipe(v.string(), v.description('vrl: a program that builds the event from an empty one.'))),
  log_fields: v.optional(v.pipe(v.record(v.string(), v.unknown()), v.description('log: fields by path, set on a log event with an empty message and a timestamp.'))),
  metric: v.optional(v.pipe(v.record(v.string(), v.unknown()), v.description('metric: the metric in its JSON form (name, kind, a value table such as counter).'))),
  at: v.optional(
    v.pipe(v.number(), v.minValue(0), v.description('Virtual time in milliseconds from the start of the test at which the event enters (weir extension).')),
    0,
  ),
});
export type TestInput = v.InferOutput<typeof TestInputSchema>;

export const TestOutputSchema = v.strictObject({
  extract_from: v.pipe(v.union([v.string(), v.array(v.string())]), v.description('The transform outputs (`id` or `id.name`) whose events are checked.')),
  conditions: v.optional(v.pipe(v.array(conditionSchema), v.description('Each must hold for at least one of the events.'))),
  expected_event_count: v.optional(v.pipe(uint(), v.description('How many events the outputs must emit.'))),
});
export type TestOutput = v.InferOutput<typeof TestOutputSchema>;

export const TestDefinitionSchema = v.strictObject({
  name: v.pipe(v.string(), v.description('The name of the test.')),
  input: v.optional(TestInputSchema),
  inputs: v.optional(v.array(TestInputSchema), []),
  outputs: v.optional(v.array(TestOutputSchema), []),
  no_outputs_from: v.optional(v.pipe(v.array(v.string()), v.description('Transform outputs that must emit nothing.')), []),
});
export type TestDefinition = v.InferOutput<typeof TestDefinitionSchema>;

/** A parsed test, or the name it goes by and what is wrong with it. */
export type ParsedTest = { readonly ok: true; readonly test: TestDefinition } | { readonly ok: false; readonly name: string; readonly errors: string[] };

/** Validates one `[[tests]]` table; a test without a usable name goes by its position. */
export function parseTest(raw: unknown, index: number): ParsedTest {
  const r = v.safeParse(TestDefinitionSchema, raw);
  if (r.success) return { ok: true, test: r.output };
  const name = typeof (raw as { name?: unknown } | null)?.name === 'string' ? (raw as { name: string }).name : `tests[${index}]`;
  const errors = r.issues.flatMap((i) => mapIssue(TestDefinitionSchema, i)).map((m) => (m.path ? `${m.path}: ${m.message}` : m.message));
  return { ok: false, name, errors };
}
