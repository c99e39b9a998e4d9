/** Case conversions: upcase, downcase, and the word-based camelcase, pascalcase, snakecase, kebabcase, screamingsnakecase. */
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { builtRegex } from '../regex.js';
import { req } from './args.js';

// searched from every capital of a run: quadratic in the run's length, so guarded
const UPPER_RUN = builtRegex(/([A-Z]+)([A-Z][a-z])/.source, 'g');

/** Splits text into words at separators and case changes (`fooBar-baz` → foo, Bar, baz). */
function words(s: string): string[] {
  return s
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(UPPER_RUN, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
}
const cap = (w: string): string => w.charAt(0).toUpperCase() + w.slice(1).toLowerCase();

function casing(name: string, description: string, f: (ws: string[]) => string): FnDef {
  return defineFunction({
    name,
    description,
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'original_case', kind: K.BYTES },
    ],
    returns: K.K_BYTES,
    call: ([v]) => f(words(v as string)),
  });
}

/** The functions of this file, for the stdlib list. */
export const caseFunctions: readonly FnDef[] = [
  defineFunction({ name: 'upcase', description: 'Upper-cases a string.', params: [req('value', K.BYTES)], returns: K.K_BYTES, call: ([v]) => (v as string).toUpperCase() }),
  defineFunction({ name: 'downcase', description: 'Lower-cases a string.', params: [req('value', K.BYTES)], returns: K.K_BYTES, call: ([v]) => (v as string).toLowerCase() }),
  casing('camelcase', 'Converts a string to camelCase.', (ws) => ws.map((w, i) => (i === 0 ? w.toLowerCase() : cap(w))).join('')),
  casing('pascalcase', 'Converts a string to PascalCase.', (ws) => ws.map(cap).join('')),
  casing('snakecase', 'Converts a string to snake_case.', (ws) => ws.map((w) => w.toLowerCase()).join('_')),
  casing('kebabcase', 'Converts a string to kebab-case.', (ws) => ws.map((w) => w.toLowerCase()).join('-')),
  casing('screamingsnakecase', 'Converts a string to SCREAMING_SNAKE_CASE.', (ws) => ws.map((w) => w.toUpperCase()).join('_')),
];
