/**
 * strftime-style formatting and parsing with chrono's specifiers and parse rules (nanosecond
 * precision, IANA zones through Intl). A format string compiles once into a list of items; the
 * compiled form formats and parses without re-reading the format (templates call it per event).
 */
import { Timestamp } from '../value.js';
import {
  type Zone,
  civilFromDays,
  daysFromCivil,
  daysInMonth,
  formatOffset,
  getZone,
  isLeapYear,
  localToUtc,
  resolveTimezone,
} from './zone.js';

export { resolveTimezone, systemTimezone } from './zone.js';

/** Thrown by parsing; `reason` is chrono's wording (`input contains invalid characters`, …). */
export class TimestampParseError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'TimestampParseError';
  }
}

/** Thrown when a format string holds an unknown specifier (`%Q`). */
export class FormatError extends Error {
  constructor(
    readonly format: string,
    readonly at: number,
  ) {
    super(`invalid strftime format "${format}": unsupported specifier at ${at}`);
    this.name = 'FormatError';
  }
}

const OUT_OF_RANGE = 'input is out of range';
const IMPOSSIBLE = 'no possible date and time matching input';
const NOT_ENOUGH = 'input is not enough for unique date and time';
const INVALID = 'input contains invalid characters';
const TOO_SHORT = 'premature end of input';
const TOO_LONG = 'trailing input';

const SHORT_DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const LONG_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const SHORT_MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const LONG_MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** Numeric fields: the specifier letter names them. */
type NumField = 'Y' | 'C' | 'y' | 'm' | 'd' | 'H' | 'I' | 'M' | 'S' | 'j' | 'U' | 'W' | 'V' | 'G' | 'g' | 'u' | 'w' | 's';
/** Non-numeric items. */
type FixedField =
  | 'a' | 'A' | 'b' | 'B' | 'p' | 'P'
  | 'frac' // %f: nanoseconds, 9 digits
  | '.f' | '.3f' | '.6f' | '.9f' | '3f' | '6f' | '9f'
  | 'z' | ':z' | '::z' | ':::z' | '#z' | 'Z' | '+';

type Item =
  | { readonly t: 'lit'; readonly s: string }
  | { readonly t: 'space'; readonly s: string }
  | { readonly t: 'num'; readonly f: NumField; readonly pad: string; readonly width: number }
  | { readonly t: 'fixed'; readonly f: FixedField };

const NUM_DEFAULTS: Record<string, [NumField, string, number]> = {
  Y: ['Y', '0', 4], C: ['C', '0', 2], y: ['y', '0', 2], m: ['m', '0', 2], d: ['d', '0', 2], e: ['d', ' ', 2],
  H: ['H', '0', 2], k: ['H', ' ', 2], I: ['I', '0', 2], l: ['I', ' ', 2], M: ['M', '0', 2], S: ['S', '0', 2],
  j: ['j', '0', 3], U: ['U', '0', 2], W: ['W', '0', 2], V: ['V', '0', 2], G: ['G', '0', 4], g: ['g', '0', 2],
  u: ['u', '', 1], w: ['w', '', 1], s: ['s', '', 1],
};
const FIXED_LETTERS: Record<string, FixedField> = { a: 'a', A: 'A', b: 'b', B: 'B', h: 'b', p: 'p', P: 'P', f: 'frac', z: 'z', Z: 'Z', '+': '+' };
const COMPOSITES: Record<string, string> = {
  D: '%m/%d/%y', x: '%m/%d/%y', F: '%Y-%m-%d', v: '%e-%b-%Y', R: '%H:%M', T: '%H:%M:%S', X: '%H:%M:%S',
  r: '%I:%M:%S %p', c: '%a %b %e %H:%M:%S %Y',
};
const ZONED: ReadonlySet<FixedField> = new Set<FixedField>(['z', ':z', '::z', ':::z', '#z', 'Z', '+']);

function isSpace(c: string): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\v' || c === '\f';
}

/** Splits a format string into items; throws {@link FormatError} for an unknown specifier. */
function compileItems(format: string): Item[] {
  const items: Item[] = [];
  let lit = '';
  const flushLit = () => {
    if (lit) items.push({ t: 'lit', s: lit });
    lit = '';
  };
  let i = 0;
  const n = format.length;
  while (i < n) {
    const c = format[i]!;
    if (c !== '%') {
      if (isSpace(c)) {
        flushLit();
        let j = i;
        while (j < n && isSpace(format[j]!)) j++;
        items.push({ t: 'space', s: format.slice(i, j) });
        i = j;
      } else {
        lit += c;
        i++;
      }
      continue;
    }
    const start = i;
    i++;
    let pad: string | undefined;
    if (format[i] === '-' || format[i] === '_' || format[i] === '0') {
      pad = format[i] === '-' ? '' : format[i] === '_' ? ' ' : '0';
      i++;
    }
    const s = format[i];
    if (s === undefined) throw new FormatError(format, start);
    i++;
    if (s === '%') lit += '%';
    else if (s === 'n') lit += '\n';
    else if (s === 't') lit += '\t';
    else if (NUM_DEFAULTS[s]) {
      flushLit();
      const [f, defPad, width] = NUM_DEFAULTS[s]!;
      items.push({ t: 'num', f, pad: pad ?? defPad, width });
    } else if (COMPOSITES[s]) {
      flushLit();
      items.push(...compileItems(COMPOSITES[s]!));
    } else if (FIXED_LETTERS[s]) {
      flushLit();
      items.push({ t: 'fixed', f: FIXED_LETTERS[s]! });
    } else if (s === '.') {
      const rest = format.slice(i, i + 2);
      flushLit();
      if (format[i] === 'f') {
        items.push({ t: 'fixed', f: '.f' });
        i += 1;
      } else if (rest === '3f' || rest === '6f' || rest === '9f') {
        items.push({ t: 'fixed', f: ('.' + rest) as FixedField });
        i += 2;
      } else throw new FormatError(format, start);
    } else if ((s === '3' || s === '6' || s === '9') && format[i] === 'f') {
      flushLit();
      items.push({ t: 'fixed', f: (s + 'f') as FixedField });
      i++;
    } else if (s === ':') {
      let colons = 1;
      while (format[i] === ':' && colons < 3) {
        colons++;
        i++;
      }
      if (format[i] !== 'z') throw new FormatError(format, start);
      i++;
      flushLit();
      items.push({ t: 'fixed', f: (':'.repeat(colons) + 'z') as FixedField });
    } else if (s === '#' && format[i] === 'z') {
      i++;
      flushLit();
      items.push({ t: 'fixed', f: '#z' });
    } else throw new FormatError(format, start);
  }
  flushLit();
  return items;
}

/** Broken-down local time of one instant, reused across calls (formatting never re-enters). */
interface Broken {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  nanos: number;
  wday: number; // 0 = Sunday
  yday: number; // 1-based
  offset: number; // seconds east of UTC
  utcSecs: number;
  utcMs: number;
  zone: Zone;
}

const scratch: Broken = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0, nanos: 0, wday: 0, yday: 0, offset: 0, utcSecs: 0, utcMs: 0, zone: getZone() };

function breakDown(ts: Timestamp, zone: Zone, b: Broken): void {
  const utcSecs = Math.floor(ts.ms / 1000);
  const offset = zone.offsetAt(ts.ms);
  const local = utcSecs + offset;
  const days = Math.floor(local / 86400);
  const sod = local - days * 86400;
  civilFromDays(days, b);
  b.hour = Math.floor(sod / 3600);
  b.minute = Math.floor((sod % 3600) / 60);
  b.second = sod % 60;
  b.nanos = (ts.ms - utcSecs * 1000) * 1_000_000 + ts.ns;
  b.wday = (((days + 4) % 7) + 7) % 7;
  b.yday = days - daysFromCivil(b.year, 1, 1) + 1;
  b.offset = offset;
  b.utcSecs = utcSecs;
  b.utcMs = ts.ms;
  b.zone = zone;
}

function padNum(v: number, pad: string, width: number): string {
  const neg = v < 0;
  let s = String(neg ? -v : v);
  if (pad !== '' && s.length < width) s = pad.repeat(width - s.length) + s;
  return neg ? '-' + s : s;
}

function isoWeek(b: Broken): [number, number] {
  const isoWd = b.wday === 0 ? 7 : b.wday;
  let week = Math.floor((b.yday - isoWd + 10) / 7);
  let year = b.year;
  if (week < 1) {
    year--;
    week = weeksInYear(year);
  } else if (week > weeksInYear(year)) {
    year++;
    week = 1;
  }
  return [year, week];
}

function weeksInYear(y: number): number {
  const jan1 = (((daysFromCivil(y, 1, 1) + 4) % 7) + 7) % 7;
  return jan1 === 4 || (jan1 === 3 && isLeapYear(y)) ? 53 : 52;
}

function numValue(f: NumField, b: Broken): number {
  switch (f) {
    case 'Y': return b.year;
    case 'C': return Math.floor(b.year / 100);
    case 'y': return ((b.year % 100) + 100) % 100;
    case 'm': return b.month;
    case 'd': return b.day;
    case 'H': return b.hour;
    case 'I': return b.hour % 12 === 0 ? 12 : b.hour % 12;
    case 'M': return b.minute;
    case 'S': return b.second;
    case 'j': return b.yday;
    case 'U': return Math.floor((b.yday - 1 + 7 - b.wday) / 7);
    case 'W': return Math.floor((b.yday - 1 + 7 - ((b.wday + 6) % 7)) / 7);
    case 'V': return isoWeek(b)[1];
    case 'G': return isoWeek(b)[0];
    case 'g': return ((isoWeek(b)[0] % 100) + 100) % 100;
    case 'u': return b.wday === 0 ? 7 : b.wday;
    case 'w': return b.wday;
    case 's': return b.utcSecs;
  }
}

function fracDigits(nanos: number, digits: number): string {
  return String(nanos).padStart(9, '0').slice(0, digits);
}

function autoFrac(nanos: number): string {
  if (nanos === 0) return '';
  if (nanos % 1_000_000 === 0) return '.' + fracDigits(nanos, 3);
  if (nanos % 1000 === 0) return '.' + fracDigits(nanos, 6);
  return '.' + fracDigits(nanos, 9);
}

function formatItem(it: Item, b: Broken): string {
  switch (it.t) {
    case 'lit':
    case 'space':
      return it.s;
    case 'num':
      if (it.f === 'Y' && (b.year > 9999 || b.year < 0) && it.pad !== '') return (b.year < 0 ? '-' : '+') + padNum(Math.abs(b.year), '0', 4);
      return padNum(numValue(it.f, b), it.pad, it.width);
    case 'fixed':
      switch (it.f) {
        case 'a': return SHORT_DAYS[b.wday]!;
        case 'A': return LONG_DAYS[b.wday]!;
        case 'b': return SHORT_MONTHS[b.month - 1]!;
        case 'B': return LONG_MONTHS[b.month - 1]!;
        case 'p': return b.hour < 12 ? 'AM' : 'PM';
        case 'P': return b.hour < 12 ? 'am' : 'pm';
        case 'frac': return fracDigits(b.nanos, 9);
        case '.f': return autoFrac(b.nanos);
        case '.3f': return '.' + fracDigits(b.nanos, 3);
        case '.6f': return '.' + fracDigits(b.nanos, 6);
        case '.9f': return '.' + fracDigits(b.nanos, 9);
        case '3f': return fracDigits(b.nanos, 3);
        case '6f': return fracDigits(b.nanos, 6);
        case '9f': return fracDigits(b.nanos, 9);
        case 'z':
        case '#z': return formatOffset(b.offset, '');
        case ':z': return formatOffset(b.offset, ':');
        case '::z': return formatOffset(b.offset, ':', true);
        case ':::z': return formatOffset(b.offset, '').slice(0, 3);
        case 'Z': return b.zone.abbreviationAt(b.utcMs);
        case '+':
          return (
            padNum(b.year, '0', 4) + '-' + padNum(b.month, '0', 2) + '-' + padNum(b.day, '0', 2) + 'T' +
            padNum(b.hour, '0', 2) + ':' + padNum(b.minute, '0', 2) + ':' + padNum(b.second, '0', 2) +
            autoFrac(b.nanos) + formatOffset(b.offset, ':')
          );
      }
  }
}

/** Fields collected while parsing, resolved into an instant at the end (chrono's `Parsed`). */
interface Parsed {
  year?: number;
  century?: number;
  yearMod100?: number;
  month?: number;
  day?: number;
  ordinal?: number;
  weekday?: number;
  hour?: number;
  hour12?: number;
  pm?: boolean;
  minute?: number;
  second?: number;
  nanos?: number;
  timestamp?: number;
  offset?: number;
  zone?: Zone;
  weekSun?: number;
  weekMon?: number;
  isoWeek?: number;
  isoYear?: number;
  isoYearMod100?: number;
}

/** Abbreviations accepted by `%Z` when parsing; other names must be IANA zones. */
const ZONE_ABBREVIATIONS: Record<string, number> = {
  UTC: 0, UT: 0, GMT: 0, Z: 0, WET: 0, WEST: 3600, BST: 3600, CET: 3600, CEST: 7200, MET: 3600, MEST: 7200,
  EET: 7200, EEST: 10800, MSK: 10800, IST: 19800, JST: 32400, KST: 32400, HKT: 28800, SGT: 28800,
  AEST: 36000, AEDT: 39600, ACST: 34200, ACDT: 37800, AWST: 28800, NZST: 43200, NZDT: 46800,
  EST: -18000, EDT: -14400, CST: -21600, CDT: -18000, MST: -25200, MDT: -21600, PST: -28800, PDT: -25200,
  AKST: -32400, AKDT: -28800, HST: -36000, AST: -14400, ADT: -10800, NST: -12600, NDT: -9000,
};

class Cursor {
  pos = 0;
  constructor(readonly text: string) {}
  fail(): never {
    throw new TimestampParseError(this.pos >= this.text.length ? TOO_SHORT : INVALID);
  }
  skipSpace(): void {
    while (this.pos < this.text.length && isSpace(this.text[this.pos]!)) this.pos++;
  }
  /** Reads 1..max digits; fails if none. */
  digits(max: number): number {
    const t = this.text;
    const start = this.pos;
    let v = 0;
    while (this.pos < t.length && this.pos - start < max) {
      const d = t.charCodeAt(this.pos) - 48;
      if (d < 0 || d > 9) break;
      v = v * 10 + d;
      this.pos++;
    }
    if (this.pos === start) this.fail();
    return v;
  }
  /** Exactly n digits. */
  fixedDigits(n: number): number {
    const start = this.pos;
    const v = this.digits(n);
    if (this.pos - start !== n) {
      if (this.pos >= this.text.length) throw new TimestampParseError(TOO_SHORT);
      throw new TimestampParseError(INVALID);
    }
    return v;
  }
  /** Fraction digits as nanoseconds: up to 9 count, further digits are skipped. */
  nanos(): number {
    const start = this.pos;
    const v = this.digits(9);
    const n = this.pos - start;
    while (this.pos < this.text.length && this.text.charCodeAt(this.pos) >= 48 && this.text.charCodeAt(this.pos) <= 57) this.pos++;
    return v * 10 ** (9 - n);
  }
  /** One of `names` (short or long form), case-insensitively; returns its index. */
  name(short: string[], long: string[]): number {
    const rest = this.text.slice(this.pos, this.pos + 3).toLowerCase();
    const idx = short.findIndex((s) => s.toLowerCase() === rest);
    if (idx < 0) this.fail();
    this.pos += 3;
    const tail = long[idx]!.slice(3).toLowerCase();
    if (tail && this.text.slice(this.pos, this.pos + tail.length).toLowerCase() === tail) this.pos += tail.length;
    return idx;
  }
  /** `±hh[:]mm`; `permissive` also takes `Z` and a missing minute part (`%#z`). */
  offset(permissive: boolean): number {
    const t = this.text;
    const c = t[this.pos];
    if (permissive && (c === 'Z' || c === 'z')) {
      this.pos++;
      return 0;
    }
    if (c !== '+' && c !== '-') this.fail();
    this.pos++;
    const hh = this.fixedDigits(2);
    let mm = 0;
    const save = this.pos;
    if (t[this.pos] === ':') this.pos++;
    const d = t.charCodeAt(this.pos);
    if (d >= 48 && d <= 57) mm = this.fixedDigits(2);
    else if (!permissive) this.fail();
    else this.pos = save;
    if (mm >= 60) throw new TimestampParseError(OUT_OF_RANGE);
    return (c === '-' ? -1 : 1) * (hh * 3600 + mm * 60);
  }
}

function setField<K extends keyof Parsed>(p: Parsed, k: K, v: NonNullable<Parsed[K]>): void {
  if (p[k] !== undefined && p[k] !== v) throw new TimestampParseError(IMPOSSIBLE);
  p[k] = v;
}

function parseNum(it: Item & { t: 'num' }, c: Cursor, p: Parsed): void {
  c.skipSpace();
  const t = c.text;
  if (it.f === 'Y' || it.f === 's' || it.f === 'G') {
    const sign = t[c.pos];
    if (sign === '+' || sign === '-') {
      c.pos++;
      const v = c.digits(it.f === 's' ? 20 : 9);
      const signed = sign === '-' ? -v : v;
      if (it.f === 'Y') setField(p, 'year', signed);
      else if (it.f === 's') setField(p, 'timestamp', signed);
      return;
    }
  }
  const v = c.digits(it.f === 's' ? 20 : it.width);
  switch (it.f) {
    case 'Y': return setField(p, 'year', v);
    case 'C': return setField(p, 'century', v);
    case 'y': return setField(p, 'yearMod100', v);
    case 'm':
      if (v < 1 || v > 12) throw new TimestampParseError(OUT_OF_RANGE);
      return setField(p, 'month', v);
    case 'd':
      if (v < 1 || v > 31) throw new TimestampParseError(OUT_OF_RANGE);
      return setField(p, 'day', v);
    case 'H':
      if (v > 23) throw new TimestampParseError(OUT_OF_RANGE);
      return setField(p, 'hour', v);
    case 'I':
      if (v < 1 || v > 12) throw new TimestampParseError(OUT_OF_RANGE);
      return setField(p, 'hour12', v);
    case 'M':
      if (v > 59) throw new TimestampParseError(OUT_OF_RANGE);
      return setField(p, 'minute', v);
    case 'S':
      if (v > 60) throw new TimestampParseError(OUT_OF_RANGE);
      return setField(p, 'second', v);
    case 'j':
      if (v < 1 || v > 366) throw new TimestampParseError(OUT_OF_RANGE);
      return setField(p, 'ordinal', v);
    case 'u':
      if (v < 1 || v > 7) throw new TimestampParseError(OUT_OF_RANGE);
      return setField(p, 'weekday', v % 7);
    case 'w':
      if (v > 6) throw new TimestampParseError(OUT_OF_RANGE);
      return setField(p, 'weekday', v);
    case 's': return setField(p, 'timestamp', v);
    case 'U':
    case 'W':
      if (v > 53) throw new TimestampParseError(OUT_OF_RANGE);
      return setField(p, it.f === 'U' ? 'weekSun' : 'weekMon', v);
    case 'V':
      if (v < 1 || v > 53) throw new TimestampParseError(OUT_OF_RANGE);
      return setField(p, 'isoWeek', v);
    case 'G':
      return setField(p, 'isoYear', v);
    case 'g':
      return setField(p, 'isoYearMod100', v);
  }
}

function parseFixed(f: FixedField, c: Cursor, p: Parsed): void {
  const t = c.text;
  switch (f) {
    case 'a':
    case 'A':
      return setField(p, 'weekday', c.name(SHORT_DAYS, LONG_DAYS));
    case 'b':
    case 'B':
      return setField(p, 'month', c.name(SHORT_MONTHS, LONG_MONTHS) + 1);
    case 'p':
    case 'P': {
      const s = t.slice(c.pos, c.pos + 2).toLowerCase();
      if (s !== 'am' && s !== 'pm') c.fail();
      c.pos += 2;
      return setField(p, 'pm', s === 'pm');
    }
    case 'frac':
      return setField(p, 'nanos', c.nanos());
    case '.f':
    case '.3f':
    case '.6f':
    case '.9f':
      // chrono: every `%.Nf` reads an optional dot and any number of digits when parsing
      if (t[c.pos] === '.') {
        c.pos++;
        setField(p, 'nanos', c.nanos());
      }
      return;
    case '3f':
    case '6f':
    case '9f': {
      const n = Number(f[0]);
      return setField(p, 'nanos', c.fixedDigits(n) * 10 ** (9 - n));
    }
    case 'z':
    case ':z':
    case '::z':
    case ':::z':
      c.skipSpace();
      return setField(p, 'offset', c.offset(false));
    case '#z':
      c.skipSpace();
      return setField(p, 'offset', c.offset(true));
    case 'Z': {
      c.skipSpace();
      const start = c.pos;
      while (c.pos < t.length && /[A-Za-z_/]/.test(t[c.pos]!)) c.pos++;
      const name = t.slice(start, c.pos);
      if (!name) {
        // a numeric offset in place of a name (`+0200`)
        setField(p, 'offset', c.offset(true));
        return;
      }
      const abbr = ZONE_ABBREVIATIONS[name.toUpperCase()];
      if (abbr !== undefined) return setField(p, 'offset', abbr);
      try {
        p.zone = getZone(name);
      } catch {
        c.pos = start;
        throw new TimestampParseError(INVALID);
      }
      return;
    }
    case '+': {
      p.year = c.fixedDigits(4);
      expect(c, '-');
      setMonth(p, c.fixedDigits(2));
      expect(c, '-');
      setDay(p, c.fixedDigits(2));
      const sep = t[c.pos];
      if (sep !== 'T' && sep !== 't' && sep !== ' ') c.fail();
      c.pos++;
      setHour(p, c.fixedDigits(2));
      expect(c, ':');
      setMinute(p, c.fixedDigits(2));
      expect(c, ':');
      setSecond(p, c.fixedDigits(2));
      if (t[c.pos] === '.') {
        c.pos++;
        p.nanos = c.nanos();
      }
      return setField(p, 'offset', c.offset(true));
    }
  }
}

function expect(c: Cursor, ch: string): void {
  if (c.text[c.pos] !== ch) c.fail();
  c.pos++;
}
function setMonth(p: Parsed, v: number): void {
  if (v < 1 || v > 12) throw new TimestampParseError(OUT_OF_RANGE);
  setField(p, 'month', v);
}
function setDay(p: Parsed, v: number): void {
  if (v < 1 || v > 31) throw new TimestampParseError(OUT_OF_RANGE);
  setField(p, 'day', v);
}
function setHour(p: Parsed, v: number): void {
  if (v > 23) throw new TimestampParseError(OUT_OF_RANGE);
  setField(p, 'hour', v);
}
function setMinute(p: Parsed, v: number): void {
  if (v > 59) throw new TimestampParseError(OUT_OF_RANGE);
  setField(p, 'minute', v);
}
function setSecond(p: Parsed, v: number): void {
  if (v > 60) throw new TimestampParseError(OUT_OF_RANGE);
  setField(p, 'second', v);
}

function toTimestamp(secs: number, nanos: number): Timestamp {
  const ms = secs * 1000 + Math.floor(nanos / 1_000_000);
  return new Timestamp(ms, nanos % 1_000_000);
}

/** Resolves parsed fields into an instant; naive times are read in `zone`. */
function resolve(p: Parsed, zone: Zone): Timestamp {
  const nanos = p.nanos ?? 0;
  if (p.timestamp !== undefined) return toTimestamp(p.timestamp, nanos);
  let year = p.year;
  // an ISO week date (`%G-W%V-%u`) needs no calendar year
  if (p.isoWeek !== undefined && p.weekday !== undefined && (p.isoYear !== undefined || p.isoYearMod100 !== undefined) && p.month === undefined && p.ordinal === undefined) {
    const isoYear = p.isoYear ?? (p.isoYearMod100! < 69 ? 2000 + p.isoYearMod100! : 1900 + p.isoYearMod100!);
    const jan4 = daysFromCivil(isoYear, 1, 4);
    const week1Monday = jan4 - ((((jan4 + 3) % 7) + 7) % 7); // days + 3 mod 7 = 0 on Mondays
    if (p.isoWeek > weeksInYear(isoYear)) throw new TimestampParseError(OUT_OF_RANGE);
    return finish(p, zone, week1Monday + (p.isoWeek - 1) * 7 + ((p.weekday + 6) % 7));
  }
  if (p.yearMod100 !== undefined) {
    const y = p.century !== undefined ? p.century * 100 + p.yearMod100 : p.yearMod100 < 69 ? 2000 + p.yearMod100 : 1900 + p.yearMod100;
    if (year !== undefined && year !== y) throw new TimestampParseError(IMPOSSIBLE);
    year = y;
  } else if (year === undefined && p.century !== undefined) throw new TimestampParseError(NOT_ENOUGH);
  if (year === undefined) throw new TimestampParseError(NOT_ENOUGH);
  let days: number;
  if (p.month !== undefined && p.day !== undefined) {
    if (p.day > daysInMonth(year, p.month)) throw new TimestampParseError(OUT_OF_RANGE);
    days = daysFromCivil(year, p.month, p.day);
    if (p.ordinal !== undefined && days - daysFromCivil(year, 1, 1) + 1 !== p.ordinal) throw new TimestampParseError(IMPOSSIBLE);
  } else if (p.ordinal !== undefined) {
    if (p.ordinal > (isLeapYear(year) ? 366 : 365)) throw new TimestampParseError(OUT_OF_RANGE);
    days = daysFromCivil(year, 1, 1) + p.ordinal - 1;
  } else if (p.weekday !== undefined && (p.weekSun !== undefined || p.weekMon !== undefined)) {
    // %U weeks start on the first Sunday, %W weeks on the first Monday; week 0 precedes them
    const jan1 = daysFromCivil(year, 1, 1);
    const jan1Wday = (((jan1 + 4) % 7) + 7) % 7;
    if (p.weekSun !== undefined) days = jan1 + ((7 - jan1Wday) % 7) + (p.weekSun - 1) * 7 + p.weekday;
    else days = jan1 + ((8 - jan1Wday) % 7) + (p.weekMon! - 1) * 7 + ((p.weekday + 6) % 7);
    if (days < jan1 || days >= jan1 + (isLeapYear(year) ? 366 : 365)) throw new TimestampParseError(OUT_OF_RANGE);
  } else throw new TimestampParseError(NOT_ENOUGH);
  if (p.weekday !== undefined && (((days + 4) % 7) + 7) % 7 !== p.weekday) throw new TimestampParseError(IMPOSSIBLE);
  return finish(p, zone, days);
}

/** Adds the time of day to a day number and converts to UTC. */
function finish(p: Parsed, zone: Zone, days: number): Timestamp {
  const nanos = p.nanos ?? 0;

  let hour: number;
  if (p.hour12 !== undefined) {
    if (p.pm === undefined) throw new TimestampParseError(NOT_ENOUGH);
    hour = (p.hour12 % 12) + (p.pm ? 12 : 0);
    if (p.hour !== undefined && p.hour !== hour) throw new TimestampParseError(IMPOSSIBLE);
  } else if (p.hour !== undefined) {
    hour = p.hour;
    if (p.pm !== undefined && p.pm !== hour >= 12) throw new TimestampParseError(IMPOSSIBLE);
  } else if (p.minute === undefined && p.second === undefined && p.nanos === undefined) {
    hour = 0; // a date alone means its midnight
  } else throw new TimestampParseError(NOT_ENOUGH);
  let minute = p.minute;
  if (minute === undefined) {
    if (p.hour !== undefined || p.hour12 !== undefined) throw new TimestampParseError(NOT_ENOUGH);
    minute = 0;
  }
  const local = days * 86400 + hour * 3600 + minute * 60 + (p.second ?? 0);
  let utc: number;
  if (p.offset !== undefined) utc = local - p.offset;
  else utc = localToUtc(p.zone ?? zone, local);
  return toTimestamp(utc, nanos);
}

/** A compiled format: reusable, no per-call work on the format string. */
export interface CompiledFormat {
  /** The format string as given. */
  readonly source: string;
  /** True when the format carries a zone (`%z`, `%:z`, `%#z`, `%Z`, `%+`) or an epoch (`%s`). */
  readonly hasZone: boolean;
  /** Formats an instant in `tz` (undefined = UTC, `local`, IANA name, `+hh:mm`). */
  format(ts: Timestamp, tz?: string): string;
  /** Parses text; naive times are read in `tz`. Throws {@link TimestampParseError}. */
  parse(text: string, tz?: string): Timestamp;
}

const compiled = new Map<string, CompiledFormat>();

/** Compiles a format once (cached); throws {@link FormatError} for an unsupported specifier. */
export function compileFormat(format: string): CompiledFormat {
  let cf = compiled.get(format);
  if (cf) return cf;
  const items = compileItems(format);
  const hasZone = items.some((it) => (it.t === 'fixed' && ZONED.has(it.f)) || (it.t === 'num' && it.f === 's'));
  cf = {
    source: format,
    hasZone,
    format(ts: Timestamp, tz?: string): string {
      breakDown(ts, getZone(tz), scratch);
      let out = '';
      for (let i = 0; i < items.length; i++) out += formatItem(items[i]!, scratch);
      return out;
    },
    parse(text: string, tz?: string): Timestamp {
      const zone = getZone(tz);
      const c = new Cursor(text);
      const p: Parsed = {};
      for (let i = 0; i < items.length; i++) {
        const it = items[i]!;
        switch (it.t) {
          case 'space':
            c.skipSpace();
            break;
          case 'lit':
            if (!text.startsWith(it.s, c.pos)) {
              if (text.length - c.pos < it.s.length) throw new TimestampParseError(TOO_SHORT);
              throw new TimestampParseError(INVALID);
            }
            c.pos += it.s.length;
            break;
          case 'num':
            parseNum(it, c, p);
            break;
          case 'fixed':
            parseFixed(it.f, c, p);
            break;
        }
      }
      if (c.pos < text.length) throw new TimestampParseError(TOO_LONG);
      return resolve(p, zone);
    },
  };
  if (compiled.size > 1000) compiled.clear();
  compiled.set(format, cf);
  return cf;
}

/** Formats an instant with a strftime format in `tz` (undefined = UTC). */
export function formatTimestamp(ts: Timestamp, format: string, tz?: string): string {
  return compileFormat(format).format(ts, tz);
}

/**
 * Parses text with a strftime format; a text without offset is read in `tz` (undefined = UTC).
 * Throws {@link TimestampParseError} (chrono's reasons) or {@link FormatError}.
 */
export function parseTimestamp(text: string, format: string, tz?: string): Timestamp {
  return compileFormat(format).parse(text, tz);
}

/** True when a format contains at least one specifier (`%…` other than `%%`, `%n`, `%t`). */
export function hasSpecifiers(format: string): boolean {
  return compileItems(format).some((it) => it.t === 'num' || it.t === 'fixed');
}
