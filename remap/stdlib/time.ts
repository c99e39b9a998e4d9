/** Timestamp functions: now, from/to_unix_timestamp, to_timestamp, parse_timestamp, format_timestamp. */
import { type Value, Float, Timestamp } from '../../lib/value.js';
import { FormatError, TimestampParseError, compileFormat, resolveTimezone } from '../../lib/time/strftime.js';
import { type FnDef, FunctionCompileError, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { optStr } from './args.js';
import { fail } from './errors.js';

const UNITS = ['seconds', 'milliseconds', 'microseconds', 'nanoseconds'] as const;
const NANOS: Record<string, bigint> = { seconds: 1_000_000_000n, milliseconds: 1_000_000n, microseconds: 1000n, nanoseconds: 1n };

/** Unit argument: validated at compile time when it is a literal. */
function unitOf(v: Value | undefined): string {
  const u = optStr(v, 'seconds');
  if (!(UNITS as readonly string[]).includes(u)) fail('unit not recognized');
  return u;
}

const checkUnit = (idx: number) => (args: readonly { isConstant: boolean; constant?: Value; present: boolean }[]) => {
  const a = args[idx]!;
  if (a.present && a.isConstant && !(UNITS as readonly string[]).includes(String(a.constant))) throw new FunctionCompileError('unit not recognized', 'unit');
  return undefined;
};

const LOCAL_FORMATS = ['%F %T', '%v %T', '%FT%T', '%m/%d/%Y:%T', '%a, %d %b %Y %T', '%a %d %b %T %Y', '%A %d %B %T %Y', '%a %b %e %T %Y'];
const TZ_FORMATS = ['%+', '%a %d %b %T %Z %Y', '%a %d %b %T %z %Y', '%a %d %b %T %#z %Y', '%d/%b/%Y:%T %z'];

/** Guesses the format of a timestamp text (the conversions' `timestamp` rules). */
export function parseTimestampAuto(s: string, tz: string | undefined): Timestamp {
  for (const f of LOCAL_FORMATS) {
    try {
      return compileFormat(f).parse(s, tz);
    } catch {
      /* next format */
    }
  }
  if (/^-?\d+$/.test(s)) return new Timestamp(Number(s) * 1000, 0);
  const rfc = Timestamp.parse(s);
  if (rfc) return rfc;
  const d = Date.parse(s);
  if (!Number.isNaN(d) && /[A-Za-z]{3},? /.test(s) && /[+-]\d{4}|GMT|UT/.test(s)) return new Timestamp(d, 0);
  for (const f of TZ_FORMATS) {
    try {
      return compileFormat(f).parse(s, tz);
    } catch {
      /* next format */
    }
  }
  return fail(`No matching timestamp format found for ${JSON.stringify(s)}`);
}

/** The `timezone` argument resolved, or the program's default zone when it is omitted. */
function timezoneArg(arg: unknown, dflt: string | undefined): string | undefined {
  if (typeof arg !== 'string') return dflt;
  try {
    return resolveTimezone(arg);
  } catch {
    return fail(`unable to parse timezone: ${arg}`);
  }
}

/** The functions of this file, for the stdlib list. */
export const timeFunctions: readonly FnDef[] = [
  defineFunction({ name: 'now', description: 'Current time.', params: [], impure: true, returns: K.K_TIMESTAMP, call: () => Timestamp.now() }),
  defineFunction({
    name: 'from_unix_timestamp',
    description: 'Timestamp from a Unix time in seconds, milliseconds, microseconds or nanoseconds.',
    params: [
      { name: 'value', kind: K.INTEGER, required: true },
      { name: 'unit', kind: K.BYTES },
    ],
    prepare: checkUnit(1),
    fallible: true,
    returns: K.K_TIMESTAMP,
    call: ([v, u]) => {
      const unit = unitOf(u);
      const n = BigInt(v as number) * NANOS[unit]!;
      return Timestamp.fromNanos(n);
    },
  }),
  defineFunction({
    name: 'to_unix_timestamp',
    description: 'Unix time of a timestamp in a unit.',
    params: [
      { name: 'value', kind: K.TIMESTAMP, required: true },
      { name: 'unit', kind: K.BYTES },
    ],
    prepare: checkUnit(1),
    fallible: (args) => args[1]!.present && !args[1]!.isConstant,
    returns: K.K_INTEGER,
    call: ([v, u]) => {
      const unit = unitOf(u);
      const n = (v as Timestamp).toNanos();
      const d = NANOS[unit]!;
      // floor division: instants before the epoch round down as Rust's timestamp() does
      const q = n / d - (n % d < 0n ? 1n : 0n);
      return Number(q);
    },
  }),
  defineFunction({
    name: 'to_timestamp',
    description: 'Converts a value to a timestamp.',
    params: [
      { name: 'value', kind: K.BYTES | K.INTEGER | K.FLOAT | K.TIMESTAMP, required: true },
      { name: 'unit', kind: K.BYTES },
    ],
    fallible: (args) => !args[0]!.kind.isOnly(K.TIMESTAMP | K.INTEGER),
    returns: K.K_TIMESTAMP,
    call: ([v, u], env) => {
      if (v instanceof Timestamp) return v;
      const unit = unitOf(u);
      if (typeof v === 'number') return Timestamp.fromNanos(BigInt(v) * NANOS[unit]!);
      if (v instanceof Float) {
        if (!Number.isFinite(v.value)) return fail(`unable to coerce ${v.value} into timestamp`);
        return Timestamp.fromNanos(BigInt(Math.round(v.value * Number(NANOS[unit]!))));
      }
      return parseTimestampAuto(v as string, env.ctx.tz);
    },
  }),
  defineFunction({
    name: 'parse_timestamp',
    description: 'Parses a timestamp with a strftime format.',
    params: [
      { name: 'value', kind: K.BYTES | K.TIMESTAMP, required: true },
      { name: 'format', kind: K.BYTES, required: true },
      { name: 'timezone', kind: K.BYTES },
    ],
    fallible: true,
    returns: K.K_TIMESTAMP,
    call: ([v, f, tzArg], env) => {
      if (v instanceof Timestamp) return v;
      const tz = timezoneArg(tzArg, env.ctx.tz);
      try {
        return compileFormat(f as string).parse(v as string, tz);
      } catch (e) {
        if (e instanceof TimestampParseError) return fail(`Invalid timestamp ${JSON.stringify(v)}: ${e.reason}`);
        if (e instanceof FormatError) return fail(`Invalid timestamp ${JSON.stringify(v)}: bad or unsupported format string`);
        throw e;
      }
    },
  }),
  defineFunction({
    name: 'format_timestamp',
    description: 'Formats a timestamp with a strftime format.',
    params: [
      { name: 'value', kind: K.TIMESTAMP, required: true },
      { name: 'format', kind: K.BYTES, required: true },
      { name: 'timezone', kind: K.BYTES },
    ],
    fallible: true,
    returns: K.K_BYTES,
    call: ([v, f, tzArg], env) => {
      const tz = timezoneArg(tzArg, env.ctx.tz);
      try {
        return compileFormat(f as string).format(v as Timestamp, tz);
      } catch (e) {
        if (e instanceof FormatError) return fail('invalid format');
        throw e;
      }
    },
  }),
];
