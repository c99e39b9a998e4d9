/** `vrl` conditions: a boolean remap program, compiled once; a run that fails counts as false. */
import type { Event } from '../../lib/event.js';
import { type ObjectValue, type Value, cloneValue } from '../../lib/value.js';
import { CompileError, compile } from '../../remap/index.js';
import { BOOLEAN } from '../../remap/kind.js';
import { ConditionError } from './error.js';

/** The fields a metric exposes to a condition (read-only view). */
function metricView(e: Event & { type: 'metric' }): ObjectValue {
  const v: ObjectValue = { name: e.name, kind: e.kind, type: e.value.type };
  if (e.namespace !== undefined) v.namespace = e.namespace;
  if (e.tags) {
    const tags: ObjectValue = {};
    for (const k in e.tags) {
      const t = e.tags[k]!;
      tags[k] = Array.isArray(t) ? (t[t.length - 1] ?? null) : t;
    }
    v.tags = tags;
  }
  if (e.timestamp) v.timestamp = e.timestamp;
  return v;
}

/** Compiles `source`; throws ConditionError with the VRL diagnostics when it is rejected. */
export function compileVrlCondition(source: string, optionPath: string, timezone?: string): (e: Event) => boolean {
  let program;
  try {
    program = compile(source, timezone !== undefined ? { timezone } : {});
  } catch (e) {
    if (e instanceof CompileError) throw new ConditionError(`invalid vrl condition:\n${e.message}`, optionPath);
    throw e;
  }
  if (!program.kind.isOnly(BOOLEAN)) {
    throw new ConditionError('a vrl condition must resolve to a boolean', optionPath);
  }
  // a condition never changes the event: programs that assign run on a copy
  const copy = program.mutatesEvent;
  return (e: Event): boolean => {
    let target: Value;
    let meta: Value;
    if (e.type === 'log') {
      target = copy ? cloneValue(e.fields) : e.fields;
      meta = e.meta.value ? (copy ? cloneValue(e.meta.value) : e.meta.value) : {};
    } else {
      target = metricView(e);
      meta = {};
    }
    const r = program.run(target, meta);
    return r.ok && r.value === true;
  };
}
