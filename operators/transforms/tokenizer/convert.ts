/**
 * Type coercions of the tokenizer's `types` option (Vector's conversion names). Each type
 * string compiles once into a converter from token text to a value; a converter throws
 * {@link ConversionError} when the text does not convert.
 */
import { type CompiledFormat, compileFormat, resolveTimezone } from '../../../lib/time/strftime.js';
import { Float, Timestamp, type Value, fromJSON } from '../../../lib/value.js';

/** A token that does not convert to the requested type. */
export class ConversionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConversionError';
  }
}

/** Converts the text of one token. */
export type Converter = (text: string) => Value;

/** The names `types` accepts (aliases included). */
export const CONVERSION_NAMES = ['array', 'bool', 'boolean', 'bytes', 'string', 'asis', 'float', 'int', 'integer', 'map', 'null', 'timestamp'] as const;

const INT = /^[+-]?\d+$/;
const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
const FLOAT = /^[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|inf|infinity)$/i;

function toInt(text: string): Value {
  if (!INT.test(text)) throw new ConversionError(`invalid integer "${text}"`);
  const n = Number(text);
  if (!Number.isSafeInteger(n)) {
    const b = BigInt(text);
    if (b < I64_MIN || b > I64_MAX) throw new ConversionError(`integer "${text}" is out of range`);
  }
  return n;
}

function toFloat(text: string): Value {
  if (!FLOAT.test(text)) throw new ConversionError(`invalid floating point number "${text}"`);
  const lower = text.toLowerCase().replace(/^[+-]/, '');
  const n = lower === 'inf' || lower === 'infinity' ? (text.startsWith('-') ? -Infinity : Infinity) : Number(text);
  return new Float(n);
}

const TRUE_WORDS = new Set(['true', 't', 'yes', 'y']);
const FALSE_WORDS = new Set(['false', 'f', 'no', 'n']);

function toBool(text: string): Value {
  if (TRUE_WORDS.has(text)) return true;
  if (FALSE_WORDS.has(text) || text === '0') return false;
  if (INT.test(text)) return BigInt(text) !== 0n;
  const lower = text.toLowerCase();
  if (TRUE_WORDS.has(lower)) return true;
  if (FALSE_WORDS.has(lower)) return false;
  throw new ConversionError(`invalid boolean "${text}"`);
}

function toJsonKind(kind: 'array' | 'map'): Converter {
  return (text) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new ConversionError(`invalid ${kind} "${text}": not JSON`);
    }
    const isArray = Array.isArray(parsed);
    const isMap = typeof parsed === 'object' && parsed !== null && !isArray;
    if ((kind === 'array' && !isArray) || (kind === 'map' && !isMap)) throw new ConversionError(`"${text}" is not a JSON ${kind === 'array' ? 'array' : 'object'}`);
    return fromJSON(parsed);
  };
}

/** Naive formats tried by a bare `timestamp`, read in the configured zone, in Vector's order. */
const NAIVE_FORMATS = ['%F %T', '%v %T', '%FT%T', '%m/%d/%Y:%T', '%a, %d %b %Y %T', '%a %d %b %T %Y', '%A %d %B %T %Y', '%a %b %e %T %Y'];
/** Then UTC formats, RFC 3339, RFC 2822 and zoned formats. */
const UTC_FORMATS = ['%s', '%FT%TZ'];
const ZONED_FORMATS = ['%+', '%a %d %b %T %Z %Y', '%a %d %b %T %z %Y', '%a %d %b %T %#z %Y', '%d/%b/%Y:%T %z'];
/** RFC 2822: optional weekday, numeric zone or an obsolete name. */
const RFC2822 = ['%a, %d %b %Y %T %z', '%d %b %Y %T %z', '%a, %d %b %Y %T %Z', '%d %b %Y %T %Z', '%a, %d %b %Y %H:%M %z', '%d %b %Y %H:%M %z'];

function tryFormats(text: string, formats: readonly CompiledFormat[], tz: string | undefined): Timestamp | undefined {
  for (const f of formats) {
    try {
      return f.parse(text, tz);
    } catch {
      // next format
    }
  }
  return undefined;
}

function autoTimestamp(tz: string | undefined): Converter {
  const naive = NAIVE_FORMATS.map(compileFormat);
  const utc = UTC_FORMATS.map(compileFormat);
  const rfc2822 = RFC2822.map(compileFormat);
  const zoned = ZONED_FORMATS.map(compileFormat);
  return (text) => {
    const ts =
      tryFormats(text, naive, tz) ??
      tryFormats(text, utc, undefined) ??
      Timestamp.parse(text) ??
      tryFormats(text, rfc2822, undefined) ??
      tryFormats(text, zoned, undefined);
    if (!ts) throw new ConversionError(`no known timestamp format matches "${text}"`);
    return ts;
  };
}

function formatTimestampConverter(format: string, tz: string | undefined): Converter {
  const f = compileFormat(format);
  // a format with a zone reads it from the text; a naive one is read in the configured zone,
  // except a literal trailing `Z` (`%FT%TZ`), which is the UTC form of ISO 8601
  const isUtc = f.hasZone || (format.endsWith('Z') && !format.endsWith('%Z'));
  const zone = isUtc ? undefined : tz;
  return (text) => {
    try {
      return f.parse(text, zone);
    } catch (err) {
      throw new ConversionError(`invalid timestamp "${text}" for format "${format}": ${(err as Error).message}`);
    }
  };
}

/**
 * Compiles a type string (`int`, `timestamp|%F %T`, …); `tz` is the zone naive timestamps are
 * read in (undefined = UTC). Throws Error for an unknown type, format or zone.
 */
export function compileConversion(type: string, tz: string | undefined): Converter {
  const bar = type.indexOf('|');
  const name = (bar < 0 ? type : type.slice(0, bar)).trim();
  if (bar >= 0) {
    if (name !== 'timestamp') throw new Error(`unknown conversion name "${type}": only timestamp takes a format`);
    resolveTimezone(tz);
    return formatTimestampConverter(type.slice(bar + 1), tz);
  }
  switch (name) {
    case 'bytes':
    case 'string':
    case 'asis':
      return (text) => text;
    case 'int':
    case 'integer':
      return toInt;
    case 'float':
      return toFloat;
    case 'bool':
    case 'boolean':
      return toBool;
    case 'array':
      return toJsonKind('array');
    case 'map':
      return toJsonKind('map');
    case 'null':
      return () => null;
    case 'timestamp':
      resolveTimezone(tz);
      return autoTimestamp(tz);
    default:
      throw new Error(`unknown conversion name "${type}"`);
  }
}
