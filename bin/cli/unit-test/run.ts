/**
 * Runs config unit tests in virtual time. The transforms are built from the catalog with the same
 * context the daemon gives them, except that their scheduler is an rxjs TestScheduler: inputs
 * enter at their `at` offsets, the inputs end after the last one (transforms flush, as when the
 * daemon's sources finish), and the scheduler is flushed, so expiry and rate windows run
 * deterministically and at once. Outputs are wired with the daemon's fan-out.
 */
import { type OperatorFunction, Subject, type SchedulerLike } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { componentContext } from '../../../lib/component-context.js';
import type { GlobalOptions } from '../../../lib/config/global.js';
import type { ComponentConfig, Config } from '../../../lib/config/load.js';
import { type Event, type EventBatch, type RoutedBatch } from '../../../lib/event.js';
import type { LogRoot } from '../../../lib/log.js';
import { Fanout, type Port } from '../../../lib/topology/fanout.js';
import type { Graph, GraphNode } from '../../../lib/topology/graph.js';
import { MetricsRegistry } from '../../../lib/telemetry/registry.js';
import { Timestamp, cloneValue } from '../../../lib/value.js';
import { valueToJSONText } from '../../../lib/codecs/json.js';
import { type ConditionConfig, type Predicate, compileCondition } from '../../../operators/conditions/index.js';
import { metricToValue } from '../../../operators/transforms/remap/metric-target.js';
import { compile } from '../../../remap/index.js';
import { type TestDefinition, type TestInput, parseTest } from './definition.js';
import { buildInputEvent } from './inputs.js';

/** Virtual time a test may run past its last input, so a timer that never stops cannot hang the run. */
const MAX_FRAMES_AFTER_LAST_INPUT = 3_600_000;

/** A compiled condition and, for why an event did not satisfy it, Vector's words. */
interface TestCondition {
  readonly holds: Predicate;
  readonly why: (e: Event) => string;
}

/** One checked group of outputs: Vector gathers every `[[tests.outputs]]` with the same `extract_from`. */
type Check =
  | { readonly kind: 'conditions'; readonly ids: readonly string[]; readonly checks: TestCondition[][]; readonly expected: number | undefined }
  | { readonly kind: 'none'; readonly ids: readonly string[] };

/** A test ready to run: inputs resolved to transforms, conditions compiled. */
export interface PreparedTest {
  readonly name: string;
  readonly inputs: readonly TestInput[];
  readonly checks: readonly Check[];
}

/** `["a", "b"]`, as Vector prints the ids of a check. */
const idList = (ids: readonly string[]) => `[${ids.map((s) => JSON.stringify(s)).join(', ')}]`;

const transformNodes = (graph: Graph): GraphNode[] => [...graph.nodes.values()].filter((n) => n.config.kind === 'transform');

/** Output ids reachable from a transform through other transforms. */
function reachableOutputs(graph: Graph, from: string): Set<string> {
  const out = new Set<string>();
  const seen = new Set<string>([from]);
  const queue = [from];
  while (queue.length > 0) {
    const id = queue.shift()!;
    for (const o of graph.nodes.get(id)?.outputs ?? []) out.add(o.id);
    for (const n of transformNodes(graph)) {
      if (seen.has(n.config.id) || !n.inputs.some((i) => i.component === id)) continue;
      seen.add(n.config.id);
      queue.push(n.config.id);
    }
  }
  return out;
}

const RESOLVED_FALSE = 'source execution resolved to false';

/**
 * Compiles a condition with the conditions module (the same semantics as filter and route); a
 * remap condition also runs again on an event it rejected, to tell a failed assertion's
 * message from a plain false.
 */
function testCondition(c: ConditionConfig, optionPath: string, timezone: string): TestCondition {
  const holds = compileCondition(c, optionPath, timezone);
  const source = typeof c === 'string' ? c : c.type === 'vrl' ? c.source : undefined;
  if (source === undefined) return { holds, why: () => RESOLVED_FALSE };
  const program = compile(source, { timezone });
  return {
    holds,
    why: (e) => {
      const r = e.type === 'log' ? program.run(cloneValue(e.fields), e.meta.value ? cloneValue(e.meta.value) : {}) : program.run(metricToValue(e), {});
      if (!r.ok) return `source execution ${r.aborted ? 'aborted' : 'failed'}: ${r.error}`;
      return typeof r.value === 'boolean' ? RESOLVED_FALSE : 'source execution resolved to a non-boolean value';
    },
  };
}

/** Checks one definition against the graph; the errors in Vector's words. */
function prepare(def: TestDefinition, graph: Graph, globals: GlobalOptions): { test?: PreparedTest; errors: string[] } {
  const timezone = globals.timezone;
  const errors: string[] = [];
  const name = def.name;
  const transforms = new Set(transformNodes(graph).map((n) => n.config.id));
  const outputIds = new Set(transformNodes(graph).flatMap((n) => n.outputs.map((o) => o.id)));
  const inputs = [...def.inputs, ...(def.input ? [def.input] : [])];
  if (inputs.length === 0) errors.push('must specify at least one input.');
  inputs.forEach((input, i) => {
    if (!transforms.has(input.insert_at)) errors.push(`inputs[${i}]: unable to locate target transform '${input.insert_at}'`);
    else {
      // built here once so that an incomplete input stops the run, as in Vector; each run builds its own
      try {
        buildInputEvent(input, Timestamp.now(), globals);
      } catch (err) {
        errors.push(`inputs[${i}]: ${(err as Error).message}`);
      }
    }
  });
  if (def.outputs.length === 0 && def.no_outputs_from.length === 0) errors.push('unit test must contain at least one of `outputs` or `no_outputs_from`.');

  const groups = new Map<string, { ids: string[]; checks: TestCondition[][]; expected: number | undefined }>();
  def.outputs.forEach((output, o) => {
    const ids: string[] = [];
    for (const from of typeof output.extract_from === 'string' ? [output.extract_from] : output.extract_from) {
      if (def.no_outputs_from.includes(from)) errors.push(`Invalid extract_from target in test '${name}': '${from}' listed in no_outputs_from`);
      else if (outputIds.has(from)) ids.push(from);
      else errors.push(`Invalid extract_from target in test '${name}': '${from}' does not exist`);
    }
    const conditions: TestCondition[] = [];
    (output.conditions ?? []).forEach((c, j) => {
      try {
        conditions.push(testCondition(c, `outputs[${o}].conditions[${j}]`, timezone));
      } catch (err) {
        errors.push(`failed to create test condition '${j}': ${(err as Error).message}`);
      }
    });
    if (output.expected_event_count === 0 && conditions.length > 0)
      errors.push(`output for ${idList(ids)} has expected_event_count of 0 but also defines conditions; conditions cannot be evaluated when no events are expected`);
    if (ids.length === 0) return;
    const key = JSON.stringify(ids);
    const group = groups.get(key);
    if (!group) groups.set(key, { ids, checks: [conditions], expected: output.expected_event_count });
    else {
      if (group.expected !== undefined && output.expected_event_count !== undefined && group.expected !== output.expected_event_count)
        errors.push(`conflicting expected_event_count for extract_from ${idList(ids)}: ${group.expected} vs ${output.expected_event_count}`);
      group.expected ??= output.expected_event_count;
      group.checks.push(conditions);
    }
  });
  for (const id of def.no_outputs_from) if (!outputIds.has(id)) errors.push(`Invalid no_outputs_from target in test '${name}': '${id}' does not exist`);

  // every input must be able to reach something the test looks at
  const targets = new Set([...[...groups.values()].flatMap((g) => g.ids), ...def.no_outputs_from]);
  for (const at of new Set(inputs.map((i) => i.insert_at))) {
    if (!transforms.has(at)) continue;
    const reach = reachableOutputs(graph, at);
    if (![...targets].some((t) => reach.has(t))) errors.push(`Unable to complete topology between input target '${at}' and output target(s)`);
  }
  if (errors.length > 0) return { errors };
  const checks: Check[] = [
    ...[...groups.values()].map((g) => ({ kind: 'conditions' as const, ...g })),
    ...def.no_outputs_from.map((id) => ({ kind: 'none' as const, ids: [id] })),
  ];
  return { test: { name, inputs, checks }, errors };
}

/** Parses and prepares every `[[tests]]` table; any problem fails the whole run, as in Vector. */
export function prepareTests(config: Config, graph: Graph): { tests: PreparedTest[]; errors: string[] } {
  const tests: PreparedTest[] = [];
  const errors: string[] = [];
  config.tests.forEach((raw, i) => {
    const parsed = parseTest(raw, i);
    const found = parsed.ok ? prepare(parsed.test, graph, config.globals) : { errors: parsed.errors };
    if (found.test) tests.push(found.test);
    else errors.push(`Failed to build test '${parsed.ok ? parsed.test.name : parsed.name}':\n  ${found.errors.join('\n').replace(/\n/g, '\n  ')}`);
  });
  return { tests, errors };
}

/** Builds every transform once, as `validate` does, so a program that does not compile stops the run before any test. */
export function transformBuildErrors(config: Config): string[] {
  const errors: string[] = [];
  const registry = new MetricsRegistry();
  for (const c of config.components.values()) {
    if (c.kind !== 'transform') continue;
    try {
      c.def.build(c.options, componentContext({ id: c.id, kind: 'transform', type: c.def.type, registry, globals: config.globals, scheduler: new TestScheduler(() => undefined) }));
    } catch (err) {
      const e = err as Error & { optionPath?: string };
      errors.push(`transforms.${c.id}${e.optionPath ? `.${e.optionPath}` : ''}: ${e.message}`);
    }
  }
  return errors;
}

/** An event as JSON, as Vector shows output payloads. */
function eventJSON(e: Event): string {
  return e.type === 'log' ? valueToJSONText(e.fields) : JSON.stringify(e.toJSON());
}

/** A transform's input side: its input completes once every upstream it waits for has ended. */
interface Wired {
  readonly input$: Subject<EventBatch>;
  readonly port: Port;
  pending: number;
}

function wire(upstreams: number): Wired {
  const input$ = new Subject<EventBatch>();
  const w: Wired = {
    input$,
    pending: upstreams,
    port: { push: (batch) => input$.next(batch), upstreamEnded: () => endOne(w) },
  };
  return w;
}

function endOne(w: Wired): void {
  if (--w.pending <= 0) w.input$.complete();
}

/** Builds the transforms of one run; throws the first build error with its component. */
function buildTransforms(graph: Graph, config: Config, scheduler: SchedulerLike, registry: MetricsRegistry, log: LogRoot) {
  const ops = new Map<string, OperatorFunction<EventBatch, EventBatch | RoutedBatch>>();
  for (const n of transformNodes(graph)) {
    const cfg = n.config as Extract<ComponentConfig, { kind: 'transform' }>;
    const ctx = componentContext({ id: cfg.id, kind: 'transform', type: cfg.def.type, registry, log, globals: config.globals, scheduler });
    try {
      ops.set(cfg.id, cfg.def.build(cfg.options, ctx));
    } catch (err) {
      throw new Error(`transforms.${cfg.id}: ${(err as Error).message}`, { cause: err });
    }
  }
  return ops;
}

/** Runs one prepared test; returns its failures (none when it passed). */
export function runTest(test: PreparedTest, graph: Graph, config: Config, log: LogRoot): string[] {
  const scheduler = new TestScheduler(() => undefined);
  const registry = new MetricsRegistry();
  let ops;
  try {
    ops = buildTransforms(graph, config, scheduler, registry, log);
  } catch (err) {
    return [(err as Error).message];
  }

  const fanouts = new Map<string, Fanout>();
  for (const n of transformNodes(graph)) for (const o of n.outputs) fanouts.set(o.id, new Fanout(o.id, registry.counter('component_sent_events_total', { output: o.id }), registry.counter('component_sent_event_bytes_total', { output: o.id })));

  const targets = new Set(test.inputs.map((i) => i.insert_at));
  const wired = new Map<string, Wired>();
  for (const n of transformNodes(graph)) {
    const upstream = n.inputs.filter((i) => fanouts.has(i.id));
    const w = wire(upstream.length + (targets.has(n.config.id) ? 1 : 0));
    for (const i of upstream) fanouts.get(i.id)!.attach(w.port);
    wired.set(n.config.id, w);
  }

  // each check collects, in arrival order, the events of every output it names
  const collected = test.checks.map(() => [] as Event[]);
  test.checks.forEach((check, c) => {
    const port: Port = { push: (batch) => collected[c]!.push(...batch), upstreamEnded: () => undefined };
    for (const id of check.ids) fanouts.get(id)!.attach(port);
  });

  const failures: string[] = [];
  const endOutputs = (id: string) => {
    for (const o of graph.nodes.get(id)!.outputs) fanouts.get(o.id)!.end();
  };
  for (const [id, { input$ }] of wired) {
    input$.pipe(ops.get(id)!).subscribe({
      next: (item: EventBatch | RoutedBatch) => {
        if (Array.isArray(item)) fanouts.get(id)?.emit(item);
        else fanouts.get(`${id}.${item.output}`)?.emit(item.events);
      },
      error: (err: unknown) => {
        failures.push(`transform "${id}" failed: ${(err as Error).message}`);
        endOutputs(id);
      },
      complete: () => endOutputs(id),
    });
  }
  // transforms no input reaches have nothing to wait for
  for (const w of wired.values()) if (w.pending === 0) w.input$.complete();

  // inputs enter at their offsets; events of one target and instant travel as one batch
  const start = Date.now();
  const byTime = new Map<number, Map<string, EventBatch>>();
  for (const input of test.inputs) {
    let event: Event;
    try {
      event = buildInputEvent(input, new Timestamp(start + Math.floor(input.at), 0), config.globals);
    } catch (err) {
      return [`input for '${input.insert_at}': ${(err as Error).message}`];
    }
    const at = byTime.get(input.at) ?? new Map<string, EventBatch>();
    byTime.set(input.at, at);
    const batch = at.get(input.insert_at) ?? [];
    at.set(input.insert_at, batch);
    batch.push(event);
  }
  const last = Math.max(0, ...byTime.keys());
  for (const at of [...byTime.keys()].sort((a, b) => a - b)) {
    scheduler.schedule(() => {
      for (const [target, batch] of byTime.get(at)!) wired.get(target)!.port.push(batch, 0);
    }, at);
  }
  scheduler.schedule(() => {
    for (const target of targets) endOne(wired.get(target)!);
  }, last);
  scheduler.maxFrames = last + MAX_FRAMES_AFTER_LAST_INPUT;
  try {
    scheduler.flush();
  } catch (err) {
    // a transform that throws instead of erroring its stream fails this test, not the run
    failures.push(`the test stopped: ${(err as Error).message}`);
  }

  test.checks.forEach((check, c) => failures.push(...verify(check, collected[c]!)));
  return failures;
}

/** Vector's checks of one output group, with its messages. */
function verify(check: Check, events: readonly Event[]): string[] {
  const errors: string[] = [];
  const ids = idList(check.ids);
  if (check.kind === 'none') {
    if (events.length > 0) errors.push(`check for transforms ${ids} failed: expected no outputs`);
    return errors;
  }
  if (check.expected !== undefined && events.length !== check.expected)
    errors.push(`expected ${check.expected} events from transforms ${ids}, but received ${events.length}`);
  if (events.length === 0 && check.expected !== 0) {
    errors.push(`checks for transforms ${ids} failed: no events received. Topology may be disconnected or transform is missing inputs.`);
    return errors;
  }
  check.checks.forEach((conditions, i) => {
    const failed: string[] = [];
    conditions.forEach((condition, j) => {
      if (events.some((e) => condition.holds(e))) return;
      for (const e of events) failed.push(`  condition[${j}]: ${condition.why(e)}`);
    });
    if (failed.length > 0) errors.push(`check[${i}] for transforms ${ids} failed conditions:`, ...failed);
  });
  if (errors.length > 0) errors.push(`output payloads from ${ids} (events encoded as JSON):\n  ${events.map(eventJSON).join('\n  ')}`);
  return errors;
}
