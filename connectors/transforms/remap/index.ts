/** `remap` transform: modifies log and metric events with a remap (VRL) program. */
import { readFileSync } from 'node:fs';
import * as v from 'valibot';
import { type ComponentContext, defineTransform } from '../../../lib/component.js';
import { inputsSchema } from '../../../lib/config/options/envelope.js';
import { CompileError, type EnrichmentTables, type Program, compile, formatDiagnostics } from '../../../remap/index.js';
import { loadEnrichmentTables } from '../../../operators/enrichment/file-table.js';
import { DROPPED_OUTPUT, type RemapEvents, remap } from '../../../operators/transforms/remap/index.js';

/** Options of the remap transform; exactly one of `source`, `file` and `files`. */
export const RemapConfig = v.pipe(
  v.strictObject({
    type: v.literal('remap'),
    inputs: inputsSchema,
    source: v.optional(v.pipe(v.string(), v.description('The remap program, inline.'))),
    file: v.optional(v.pipe(v.string(), v.description('Path of a file holding the remap program.'))),
    files: v.optional(
      v.pipe(v.array(v.string()), v.minLength(1, 'must list at least one file'), v.description('Paths of files holding the program, run as one program in list order.')),
    ),
    drop_on_error: v.optional(v.boolean(), false),
    drop_on_abort: v.optional(v.boolean(), true),
    reroute_dropped: v.optional(v.boolean(), false),
    timezone: v.optional(v.string()),
    metric_tag_values: v.optional(
      v.pipe(v.picklist(['single', 'full', 'auto']), v.description('Metric tags as the program sees them: single (last value), full (arrays), auto (arrays only for several values).')),
      'single',
    ),
    /** Vector's evaluation engine; it has one, `ast`, which is what weir runs too. */
    runtime: v.optional(v.picklist(['ast']), 'ast'),
  }),
  v.check((c) => [c.source, c.file, c.files].filter((x) => x !== undefined).length === 1, 'exactly one of source, file or files is required'),
);
/** Parsed remap options. */
export type RemapConfig = v.InferOutput<typeof RemapConfig>;

/** Compiles the configured program; throws with the VRL diagnostics (build-time error). */
export function compileRemapProgram(
  config: RemapConfig,
  globalTimezone?: string,
  log?: (level: string, message: string) => void,
  maxDecompressedBytes?: number,
  enrichmentTables?: EnrichmentTables,
): Program {
  // files: each followed by a newline, so a last line without one cannot join the next file's first
  const text = config.source ?? (config.file !== undefined ? readFileSync(config.file, 'utf8') : config.files!.map((f) => readFileSync(f, 'utf8') + '\n').join(''));
  const tz = config.timezone ?? globalTimezone;
  try {
    return compile(text, {
      ...(tz !== undefined ? { timezone: tz } : {}),
      ...(log ? { log } : {}),
      ...(maxDecompressedBytes !== undefined ? { maxDecompressedBytes } : {}),
      ...(enrichmentTables ? { enrichmentTables } : {}),
    });
  } catch (e) {
    if (e instanceof CompileError) throw programError(e, config);
    throw e;
  }
}

/**
 * A compile error as a build error: `optionPath` names the option holding the program and, for an
 * inline `source`, `position` is the first error's 1-based line and column in it, which the config
 * loader turns into a line of the config file.
 */
function programError(e: CompileError, config: RemapConfig): Error & { optionPath: string; position?: { line: number; column: number } } {
  const err = Object.assign(new Error(`remap program does not compile:\n${e.message}`, { cause: e }), {
    optionPath: config.source !== undefined ? 'source' : config.file !== undefined ? 'file' : 'files',
  });
  const first = e.diagnostics.find((d) => d.severity === 'error') ?? e.diagnostics[0];
  const label = first?.labels.find((l) => l.primary) ?? first?.labels[0];
  if (config.source === undefined || label === undefined) return err;
  const before = e.source.slice(0, label.span[0]);
  const line = before.split('\n').length;
  return Object.assign(err, { position: { line, column: label.span[0] - (before.lastIndexOf('\n') + 1) + 1 } });
}

/** The program's `log` calls go to the component's logger at the requested level. */
function programLog(ctx: ComponentContext): (level: string, message: string) => void {
  return (level, message) => {
    const l = level === 'trace' || level === 'debug' || level === 'warn' || level === 'error' ? level : 'info';
    ctx.log[l](message);
  };
}

/**
 * Where a runtime error's character range (`at (12:27)`, as Vector words it) starts in the program,
 * as `line 2, column 6`; undefined when the error names no range.
 */
export function runtimePosition(source: string, error: string): string | undefined {
  const m = /\bat \((\d+):\d+\)/.exec(error);
  if (!m) return undefined;
  const before = source.slice(0, Number(m[1]));
  return `line ${before.split('\n').length}, column ${before.length - before.lastIndexOf('\n')}`;
}

function remapEvents(ctx: ComponentContext, rerouted: boolean, source: string): RemapEvents {
  const errors = ctx.telemetry.counter('component_errors_total', { error_type: 'conversion_failed', stage: 'processing' });
  const discarded = ctx.telemetry.counter('component_discarded_events_total', { intentional: 'false' });
  // an `abort` the program asked for, dropped with drop_on_abort, is a drop by design (as Vector counts it)
  const aborts = ctx.telemetry.counter('component_discarded_events_total', { intentional: 'true' });
  return {
    failed(error, aborted, dropped) {
      errors.add(1);
      // a rerouted event leaves by the `dropped` output: sent, not discarded
      if (dropped && !rerouted) (aborted ? aborts : discarded).add(1);
      const at = runtimePosition(source, error);
      ctx.log.error(aborted ? 'Event aborted by remap program.' : 'Mapping failed with event.', { error, dropped, ...(at !== undefined ? { program_position: at } : {}) });
    },
  };
}

/** The remap transform definition for the catalog. */
export const remapTransform = defineTransform({
  type: 'remap',
  summary: 'Modify events with a remap (VRL) program.',
  schema: RemapConfig,
  input: 'any',
  outputs: (c) => [{ type: 'any' as const }, ...(c.reroute_dropped ? [{ name: DROPPED_OUTPUT, type: 'any' as const }] : [])],
  // one event in, at most one out, no state across events; the dropped output would leave the segment
  runsInWorker: (c) => !c.reroute_dropped,
  build: (config, ctx) => {
    // the top-level enrichment_tables, read once per file version and shared by every remap
    const tables = ctx.globals.enrichment_tables ?? {};
    const enrichmentTables = Object.keys(tables).length > 0 ? loadEnrichmentTables(tables, ctx.globals.timezone) : undefined;
    const program = compileRemapProgram(config, ctx.globals.timezone, programLog(ctx), ctx.globals.max_decompressed_bytes, enrichmentTables);
    if (program.warnings.length > 0) ctx.log.warn(`remap program warnings:\n${formatDiagnostics(program.source, program.warnings)}`);
    return remap({
      program,
      dropOnError: config.drop_on_error,
      dropOnAbort: config.drop_on_abort,
      rerouteDropped: config.reroute_dropped,
      componentId: ctx.id,
      events: remapEvents(ctx, config.reroute_dropped, program.source),
      metricTagValues: config.metric_tag_values,
    });
  },
});
