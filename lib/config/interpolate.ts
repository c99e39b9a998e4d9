/**
 * Environment interpolation on the raw config text (as Vector does it): `$NAME`, `${NAME}`,
 * `${NAME:-default}` (unset or empty), `${NAME-default}` (unset), `${NAME:?msg}`, `${NAME?msg}`,
 * and `$$` for a literal `$`. A `$` not followed by a name is left as is.
 */
import { hostname } from 'node:os';

export interface InterpolationResult {
  text: string;
  errors: string[];
}

const PATTERN = /\$(?:\$|\{([A-Za-z0-9_.]+)(?:(:?[-?])([^}]*))?\}|([A-Za-z0-9_.]+))/g;

/** Substitutes variables; every problem is collected, none thrown. */
export function interpolate(text: string, env: NodeJS.ProcessEnv = process.env): InterpolationResult {
  const errors: string[] = [];
  const lookup = (name: string): string | undefined => env[name] ?? (name === 'HOSTNAME' ? hostname() : undefined);
  const out = text.replace(PATTERN, (whole, braced: string | undefined, op: string | undefined, arg: string | undefined, bare: string | undefined) => {
    if (whole === '$$') return '$';
    const name = (braced ?? bare)!;
    const value = lookup(name);
    let result: string | undefined = value;
    switch (op) {
      case ':-':
        result = value === undefined || value === '' ? arg : value;
        break;
      case '-':
        result = value === undefined ? arg : value;
        break;
      case ':?':
        if (value === undefined || value === '') {
          errors.push(`environment variable ${name} is required: ${arg || 'unset or empty'}`);
          return '';
        }
        break;
      case '?':
        if (value === undefined) {
          errors.push(`environment variable ${name} is required: ${arg || 'unset'}`);
          return '';
        }
        break;
    }
    if (result === undefined) {
      errors.push(`environment variable ${name} is not set (use \${${name}:-default} for a default)`);
      return '';
    }
    if (/[\r\n]/.test(result)) {
      // a newline would let a variable inject config structure
      errors.push(`environment variable ${name} contains a newline, which is not allowed in interpolated values`);
      return '';
    }
    return result;
  });
  return { text: out, errors };
}
