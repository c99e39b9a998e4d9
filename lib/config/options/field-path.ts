/**
 * The field-path option: a string naming an event field (`a.b`, `.a.b[0]`, `."odd key"`), parsed
 * at load so a malformed one is a config error at its option path, not a failure per event.
 */
import * as v from 'valibot';
import { PathSyntaxError, parsePath } from '../../path.js';

/** What a field-path option refuses, and in which words. */
export interface FieldPathRules {
  /** Message for the empty string; without it the empty string is refused like any malformed path. */
  readonly empty?: string;
  /** Message for a refused path; without it the parser's, which names the offset and the character. */
  readonly invalid?: string;
  /** Refuse `.`, the event root: for options that name a field inside the event. */
  readonly notRoot?: boolean;
  /** Refuse array indexes (`a[0]`): for options that name object fields only. */
  readonly noIndexes?: boolean;
  /** A prefix the value may start with, checked without it (`#` marks a tag of the receiving service). */
  readonly marker?: string;
}

/** Why `text` is not a field path under `rules`, or undefined when it is one. */
export function fieldPathProblem(text: string, rules: FieldPathRules = {}): string | undefined {
  if (text === '' && rules.empty !== undefined) return rules.empty;
  const path = rules.marker !== undefined && text.startsWith(rules.marker) ? text.slice(rules.marker.length) : text;
  try {
    const segments = parsePath(path);
    if (rules.notRoot && segments.length === 0) return rules.invalid ?? 'must name a field, not the event root "."';
    if (rules.noIndexes && segments.some((s) => typeof s === 'number')) return rules.invalid ?? `"${text}" must not contain array indexes`;
    return undefined;
  } catch (err) {
    if (!(err instanceof PathSyntaxError)) throw err; // a fault of the parser, not of the option: let it surface
    return rules.invalid ?? err.message;
  }
}

/** A check reporting {@link fieldPathProblem}; the empty string is left to `minLength` when `rules.empty` is set. */
const isFieldPath = (rules: FieldPathRules) =>
  v.rawCheck<string>(({ dataset, addIssue }) => {
    if (!dataset.typed || (dataset.value === '' && rules.empty !== undefined)) return;
    const problem = fieldPathProblem(dataset.value, rules);
    if (problem !== undefined) addIssue({ message: problem });
  });

/** A field-path option, parsed at load; an empty value gets one issue (`rules.empty` or the parser's), never two. */
export function fieldPathSchema(description: string, rules: FieldPathRules = {}) {
  return rules.empty !== undefined
    ? v.pipe(v.string(), v.minLength(1, rules.empty), isFieldPath(rules), v.description(description))
    : v.pipe(v.string(), isFieldPath(rules), v.description(description));
}
