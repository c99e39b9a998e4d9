/**
 * Validating one component's options so that one run reports every problem. A valibot object
 * with any problem is untyped, so the checks piped after it (`exactly one of source or file`,
 * option combinations) never run, and their problems would surface only once the first ones are
 * fixed. Here the options with problems are set aside and the rest is checked again.
 */
import * as v from 'valibot';
import type { ComponentKind } from '../component.js';
import { mapIssue } from './issues.js';
import { vectorOptionMessage } from './vector-options.js';

type AnyIssue = v.BaseIssue<unknown>;
type Key = string | number;

/** One located problem of a component's options. */
export interface OptionProblem {
  readonly path: string;
  readonly message: string;
}

/** The outcome: `output` when valid; `partial` when valid once the options with problems are set aside. */
export interface OptionsCheck {
  readonly output?: unknown;
  readonly partial?: unknown;
  readonly problems: readonly OptionProblem[];
}

/** Rounds of setting options aside (each round may reveal problems of checks that could not run). */
const ROUNDS = 4;

/** Validates `raw` against `schema`; `kind` and `vectorOptions` (the definition's) name the Vector options weir lacks. */
export function validateOptions(schema: v.GenericSchema, raw: unknown, kind: ComponentKind, vectorOptions: readonly string[]): OptionsCheck {
  let r = v.safeParse(schema, raw);
  if (r.success) return { output: r.output, problems: [] };
  const problems: OptionProblem[] = [];
  const seen = new Set<string>();
  const setAside: string[] = [];
  // a problem at or below an option set aside is the setting aside's doing (now missing), not the user's
  const isArtifact = (path: string) => setAside.some((p) => path === p || path.startsWith(`${p}.`) || path.startsWith(`${p}[`));
  let current = raw;
  for (let round = 0; round < ROUNDS; round++) {
    const aside: Key[][] = [];
    for (const issue of r.issues) {
      const keys = optionKeys(issue);
      if (keys.length > 0 && has(current, keys)) aside.push(keys);
      for (const m of mapIssue(schema, issue)) {
        const id = `${m.path}\0${m.message}`;
        if (seen.has(id) || (round > 0 && isArtifact(m.path))) continue;
        seen.add(id);
        const vector = m.message.startsWith('unknown option') ? vectorOptionMessage(kind, vectorOptions, m.path) : undefined;
        problems.push({ path: m.path, message: vector ?? m.message });
      }
    }
    if (aside.length === 0) break;
    for (const keys of aside) setAside.push(dotted(keys));
    current = without(current, aside);
    r = v.safeParse(schema, current);
    if (r.success) return { partial: r.output, problems };
  }
  return { problems };
}

/**
 * The option an issue is about, up to its last table key (a bad list element sets its whole
 * list aside), following a union into the branch that got deepest (as mapIssue does).
 */
function optionKeys(issue: AnyIssue): Key[] {
  let keys = (issue.path ?? []).map((p) => (p as { key: Key }).key);
  if ((issue.type === 'union' || issue.type === 'variant') && issue.issues) {
    const deepest = (issue.issues as AnyIssue[]).reduce<AnyIssue | undefined>((best, i) => ((i.path?.length ?? 0) > (best?.path?.length ?? -1) ? i : best), undefined);
    if (deepest && (deepest.path?.length ?? 0) > 0) return optionKeys({ ...deepest, path: [...(issue.path ?? []), ...(deepest.path ?? [])] } as AnyIssue);
  }
  let last = keys.length - 1;
  while (last >= 0 && typeof keys[last] !== 'string') last--;
  keys = keys.slice(0, last + 1);
  return keys;
}

const dotted = (keys: readonly Key[]) => keys.map((k) => (typeof k === 'number' ? `[${k}]` : k)).join('.').replace(/\.\[/g, '[');

/** Whether `value` has something at the key path. */
function has(value: unknown, keys: readonly Key[]): boolean {
  let cur = value;
  for (const k of keys) {
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, k)) return false;
    cur = (cur as Record<Key, unknown>)[k];
  }
  return true;
}

/** A copy of `value` without the given key paths (only the containers on the paths are copied). */
function without(value: unknown, paths: readonly (readonly Key[])[]): unknown {
  let out = value;
  for (const path of paths) out = removePath(out, path, 0);
  return out;
}

function removePath(value: unknown, path: readonly Key[], i: number): unknown {
  if (value === null || typeof value !== 'object' || i >= path.length) return value;
  const key = path[i]!;
  const copy = (Array.isArray(value) ? [...(value as unknown[])] : { ...(value as Record<string, unknown>) }) as Record<Key, unknown>;
  if (i === path.length - 1) {
    if (!Array.isArray(copy)) delete copy[key];
    return copy;
  }
  copy[key] = removePath(copy[key], path, i + 1);
  return copy;
}
