/** `remap` transform: modifies log and metric events with a remap (VRL) program (spec 02, appendix). */
import { readFileSync } from 'node:fs';
import * as v from 'valibot';
import { type ComponentContext, defineTransform } from '../../../lib/component.js';
import { inputsSchema } from '../../../lib/config/shared.js';
import { CompileError, type Program, compile, formatDiagnostics } from '../../../remap/index.js';
import { DROPPED_OUTPUT, type RemapEvents, remap } from '../../../operators/transforms/remap/index.js';

/** Options of the remap transform; exactly one of `source` and `file`. */
export const RemapConfig = v.pipe(
  v.strictObject({
    type: v.literal('remap'),
    inputs: inputsSchema,
    source: v.optional(v.pipe(v.string(), v.description('The remap program, inline.'))),
    file: v.optional(v.pipe(v.string(), v.description('Path of a file holding the remap program.'))),
    drop_on_error: v.optional(v.boolean(), false),
    drop_on_abort: v.optional(v.boolean(), true),
    reroute_dropped: v.optional(v.boolean(), false),
    timezone: v.optional(v.string()),
  }),
  v.check((c) => (c.source === undefined) !== (c.file === undefined), 'exactly one of source or file is required'),
);
/** Parsed remap options. */
export type RemapConfig = v.InferOutput<typeof RemapConfig>;

/** Compiles the configured program; throws with the VRL diagnostics (build-time error). */
export function compileRemapProgram(config: RemapConfig, globalTimezone?: string, log?: (level: string, message: string) => void): Program {
  const text = config.source ?? readFileSync(config.file!, 'utf8');
  const tz = config.timezone ?? globalTimezone;
  try {
    return compile(text, { ...(tz !== undefined ? { timezone: tz } : {}), ...(log ? { log } : {}) });
  } catch (e) {
    if (e instanceof CompileError) throw new Error(`remap program does not compile:\n${e.message}`, { cause: e });
    throw e;
  }
}

/** The program's `log` calls go to the component's logger at the requested level. */
function programLog(ctx: ComponentContext): (level: string, message: string) => void {
  return (level, message) => {
    const l = level === 'trace' || level === 'debug' || level === 'warn' || level === 'error' ? level : 'info';
    ctx.log[l](message);
  };
}

function remapEvents(ctx: ComponentContext): RemapEvents {
  const errors = ctx.telemetry.counter('component_errors_total', { error_type: 'conversion_failed', stage: 'processing' });
  const discarded = ctx.telemetry.counter('component_discarded_events_total', { intentional: 'false' });
  return {
    failed(error, aborted, dropped) {
      errors.add(1);
      if (dropped) discarded.add(1);
      ctx.log.error(aborted ? 'Event aborted by remap program.' : 'Mapping failed with event.', { error, dropped });
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
  build: (config, ctx) => {
    const program = compileRemapProgram(config, ctx.globals.timezone, programLog(ctx));
    if (program.warnings.length > 0) ctx.log.warn(`remap program warnings:\n${formatDiagnostics(program.source, program.warnings)}`);
    return remap({
      program,
      dropOnError: config.drop_on_error,
      dropOnAbort: config.drop_on_abort,
      rerouteDropped: config.reroute_dropped,
      componentId: ctx.id,
      events: remapEvents(ctx),
    });
  },
});
