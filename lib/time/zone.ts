/**
 * Time zones for formatting and parsing: UTC, fixed offsets and IANA names through Intl.
 * Offsets are looked up per 15-minute slot and cached, so per-event work is a map lookup.
 */

/** A resolved zone: `offsetAt` gives seconds east of UTC at an instant (epoch ms). */
export interface Zone {
  /** The configured name (`UTC`, `Europe/Berlin`, `+02:00`). */
  readonly name: string;
  offsetAt(utcMs: number): number;
  /** Abbreviation for `%Z` (`UTC`, `EST`, `GMT+1`). */
  abbreviationAt(utcMs: number): string;
}

const SLOT_MS = 15 * 60_000;
const MAX_CACHE = 20_000;

/** The system zone as Intl sees it (honours the TZ environment variable). */
export function systemTimezone(): string {
  return new Intl.DateTimeFormat().resolvedOptions().timeZone ?? 'UTC';
}

const FIXED = /^([+-])(\d{2}):?(\d{2})$/;
const UTC_NAMES = new Set(['utc', 'etc/utc', 'z', 'gmt', 'etc/gmt', 'universal', 'etc/universal', 'zulu', 'etc/zulu', 'uct', 'etc/uct']);

/**
 * Normalises a configured zone: undefined stays undefined (UTC), `local` becomes the system zone,
 * UTC spellings become undefined, IANA names are checked. Throws Error for an unknown zone.
 */
export function resolveTimezone(tz?: string): string | undefined {
  if (tz === undefined || tz === '') return undefined;
  let name = tz.trim();
  if (name.toLowerCase() === 'local') name = systemTimezone();
  if (UTC_NAMES.has(name.toLowerCase())) return undefined;
  if (FIXED.test(name)) return name;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    throw new Error(`unknown time zone "${tz}"`);
  }
}

class UtcZone implements Zone {
  readonly name = 'UTC';
  offsetAt(): number {
    return 0;
  }
  abbreviationAt(): string {
    return 'UTC';
  }
}

class FixedZone implements Zone {
  constructor(
    readonly name: string,
    readonly offset: number,
  ) {}
  offsetAt(): number {
    return this.offset;
  }
  abbreviationAt(): string {
    return formatOffset(this.offset, ':');
  }
}

class IanaZone implements Zone {
  private readonly parts: Intl.DateTimeFormat;
  private abbrevFmts: Intl.DateTimeFormat[] | undefined;
  private readonly offsets = new Map<number, number>();
  private readonly abbrevs = new Map<number, string>();
  constructor(readonly name: string) {
    this.parts = new Intl.DateTimeFormat('en-US', {
      timeZone: name,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  }
  offsetAt(utcMs: number): number {
    const slot = Math.floor(utcMs / SLOT_MS);
    let off = this.offsets.get(slot);
    if (off === undefined) {
      off = this.compute(slot * SLOT_MS);
      if (this.offsets.size >= MAX_CACHE) this.offsets.clear();
      this.offsets.set(slot, off);
    }
    return off;
  }
  private compute(utcMs: number): number {
    let y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, bc = false;
    for (const p of this.parts.formatToParts(new Date(utcMs))) {
      switch (p.type) {
        case 'year': y = Number(p.value); break;
        case 'month': mo = Number(p.value); break;
        case 'day': d = Number(p.value); break;
        case 'hour': h = Number(p.value); break;
        case 'minute': mi = Number(p.value); break;
        case 'second': s = Number(p.value); break;
        case 'era': bc = p.value.startsWith('B'); break;
      }
    }
    if (bc) y = 1 - y;
    const local = daysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s;
    return local - Math.floor(utcMs / 1000);
  }
  abbreviationAt(utcMs: number): string {
    const slot = Math.floor(utcMs / SLOT_MS);
    let a = this.abbrevs.get(slot);
    if (a === undefined) {
      a = this.computeAbbreviation(slot * SLOT_MS);
      if (this.abbrevs.size >= MAX_CACHE) this.abbrevs.clear();
      this.abbrevs.set(slot, a);
    }
    return a;
  }
  /**
   * The tz database abbreviation (`CEST`, `EDT`, `JST`): Intl gives it only in the locale that
   * uses it, so a few locales are asked; without one the offset reads as tzdb writes it (`+04`).
   */
  private computeAbbreviation(utcMs: number): string {
    this.abbrevFmts ??= ABBREVIATION_LOCALES.map((l) => new Intl.DateTimeFormat(l, { timeZone: this.name, timeZoneName: 'short' }));
    const d = new Date(utcMs);
    for (const f of this.abbrevFmts) {
      const v = f.formatToParts(d).find((p) => p.type === 'timeZoneName')?.value;
      if (v && /^[A-Z]{2,5}$/.test(v)) return v;
    }
    const off = this.offsetAt(utcMs);
    return off % 3600 === 0 ? formatOffset(off, '').slice(0, 3) : formatOffset(off, '');
  }
}

const ABBREVIATION_LOCALES = ['en-US', 'en-GB', 'en-AU', 'en-IN', 'ja-JP'];

const UTC: Zone = new UtcZone();
const zones = new Map<string, Zone>();

/** The zone for a configured name (see {@link resolveTimezone}); cached. Throws for unknown zones. */
export function getZone(tz?: string): Zone {
  if (tz === undefined) return UTC;
  let z = zones.get(tz);
  if (z) return z;
  const name = resolveTimezone(tz);
  if (name === undefined) z = UTC;
  else {
    const m = FIXED.exec(name);
    z = m ? new FixedZone(name, (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 3600 + Number(m[3]) * 60)) : new IanaZone(name);
  }
  zones.set(tz, z);
  return z;
}

/**
 * Converts a wall-clock time (seconds since the epoch as if the zone were UTC) to UTC seconds.
 * In a gap (spring forward) the time is read with the offset before the gap; in an overlap the
 * earlier instant wins.
 */
export function localToUtc(zone: Zone, localSecs: number): number {
  if (zone === UTC) return localSecs;
  const off1 = zone.offsetAt((localSecs - 86400) * 1000);
  const off2 = zone.offsetAt((localSecs + 86400) * 1000);
  // Try the earlier offset first: in an overlap the larger offset gives the earlier instant.
  const first = Math.max(off1, off2);
  const second = Math.min(off1, off2);
  for (const off of [first, second]) {
    const utc = localSecs - off;
    if (zone.offsetAt(utc * 1000) === off) return utc;
  }
  // In a gap no offset fits: read the wall time with the offset in force before the gap.
  return localSecs - off1;
}

/** `+hhmm` (sep '') or `+hh:mm` (sep ':'), with `:ss` when the offset has seconds and sep is set. */
export function formatOffset(offsetSecs: number, sep: string, withSeconds = false): string {
  const sign = offsetSecs < 0 ? '-' : '+';
  const a = Math.abs(offsetSecs);
  const hh = Math.floor(a / 3600);
  const mm = Math.floor((a % 3600) / 60);
  const ss = a % 60;
  let out = sign + pad2(hh) + sep + pad2(mm);
  if (withSeconds) out += sep + pad2(ss);
  return out;
}

function pad2(n: number): string {
  return n < 10 ? '0' + n : String(n);
}

/** Days since 1970-01-01 for a proleptic Gregorian date (month 1-12). */
export function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** Inverse of {@link daysFromCivil}: writes year, month (1-12), day into `out`. */
export function civilFromDays(z: number, out: { year: number; month: number; day: number }): void {
  z += 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  out.year = yoe + era * 400 + (m <= 2 ? 1 : 0);
  out.month = m;
  out.day = d;
}

/** Gregorian leap year. */
export function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

/** Days in a month (1-12) of a year. */
export function daysInMonth(y: number, m: number): number {
  return m === 2 ? (isLeapYear(y) ? 29 : 28) : m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}
