import { expect } from 'chai';
import {
  FormatError,
  TimestampParseError,
  compileFormat,
  formatTimestamp,
  parseTimestamp,
  resolveTimezone,
} from '../../../lib/time/strftime.js';
import { Timestamp } from '../../../lib/value.js';

const ts = (s: string): Timestamp => Timestamp.parse(s)!;
// Sunday 2001-07-08T00:34:59.026490Z (chrono's documentation instant, without the leap second)
const T = ts('2001-07-08T00:34:59.026490Z');

describe('lib/time/strftime', () => {
  describe('formatTimestamp', () => {
    const cases: [string, string, string | undefined, string][] = [
      ['%Y-%m-%d', '', undefined, '2001-07-08'],
      ['%C %y', '', undefined, '20 01'],
      ['%b %B %h', '', undefined, 'Jul July Jul'],
      ['%a %A %u %w', '', undefined, 'Sun Sunday 7 0'],
      ['%e|%-d|%_m|%0e', '', undefined, ' 8|8| 7|08'],
      ['%j', '', undefined, '189'],
      ['%U %W %V %G %g', '', undefined, '27 27 27 2001 01'],
      ['%H %k %I %l %p %P', '', undefined, '00  0 12 12 AM am'],
      ['%M %S', '', undefined, '34 59'],
      ['%f', '', undefined, '026490000'],
      ['%.f|%.3f|%.6f|%.9f', '', undefined, '.026490|.026|.026490|.026490000'],
      ['%3f|%6f|%9f', '', undefined, '026|026490|026490000'],
      ['%z %:z %::z %:::z %#z', '', undefined, '+0000 +00:00 +00:00:00 +00 +0000'],
      ['%Z', '', undefined, 'UTC'],
      ['%s', '', undefined, '994552499'],
      ['%T|%X|%R', '', undefined, '00:34:59|00:34:59|00:34'],
      ['%D|%x|%F|%v', '', undefined, '07/08/01|07/08/01|2001-07-08| 8-Jul-2001'],
      ['%r', '', undefined, '12:34:59 AM'],
      ['%c', '', undefined, 'Sun Jul  8 00:34:59 2001'],
      ['%+', '', undefined, '2001-07-08T00:34:59.026490+00:00'],
      ['a%%b%nc%td', '', undefined, 'a%b\nc\td'],
      ['%F %T %z', 'in Kolkata', 'Asia/Kolkata', '2001-07-08 06:04:59 +0530'],
      ['%+', 'in New York (DST)', 'America/New_York', '2001-07-07T20:34:59.026490-04:00'],
      ['%Z', 'zone abbreviation', 'America/New_York', 'EDT'],
      ['%Z', 'European abbreviation', 'Europe/Berlin', 'CEST'],
      ['%Z', 'Asian abbreviation', 'Asia/Tokyo', 'JST'],
      ['%Z', 'fixed offset zone', '+05:30', '+05:30'],
      ['%F %T %:z', 'fixed offset zone', '-03:30', '2001-07-07 21:04:59 -03:30'],
      ['%a %U %W', 'weekday after the zone shift', 'America/New_York', 'Sat 26 27'],
    ];
    for (const [fmt, note, tz, want] of cases) {
      it(`${fmt} ${note || ''}${tz ? ` tz=${tz}` : ''} -> ${JSON.stringify(want)}`, () => {
        expect(formatTimestamp(T, fmt, tz)).to.equal(want);
      });
    }

    it('%.f prints as few of 0, 3, 6 or 9 digits as represent the value', () => {
      expect(formatTimestamp(ts('2020-01-01T00:00:00Z'), '%S%.f')).to.equal('00');
      expect(formatTimestamp(ts('2020-01-01T00:00:00.5Z'), '%S%.f')).to.equal('00.500');
      expect(formatTimestamp(ts('2020-01-01T00:00:00.000001Z'), '%S%.f')).to.equal('00.000001');
      expect(formatTimestamp(ts('2020-01-01T00:00:00.000000001Z'), '%S%.f')).to.equal('00.000000001');
    });
    it('handles dates before the epoch and ISO week years', () => {
      expect(formatTimestamp(ts('1969-12-31T23:59:59.5Z'), '%F %T%.3f %s')).to.equal('1969-12-31 23:59:59.500 -1');
      expect(formatTimestamp(ts('2021-01-02T00:00:00Z'), '%G-W%V %U %W')).to.equal('2020-W53 00 00');
      expect(formatTimestamp(ts('2024-02-29T12:00:00Z'), '%j %A')).to.equal('060 Thursday');
    });
    it('12-hour clock around noon and midnight', () => {
      expect(formatTimestamp(ts('2020-01-01T12:05:00Z'), '%I %p')).to.equal('12 PM');
      expect(formatTimestamp(ts('2020-01-01T13:05:00Z'), '%l%P')).to.equal(' 1pm');
    });
    it('local follows the system zone', () => {
      expect(formatTimestamp(T, '%F %T', 'local')).to.equal(formatTimestamp(T, '%F %T', resolveTimezone('local')));
    });
    it('rejects unknown specifiers with FormatError', () => {
      for (const f of ['%Q', 'abc %', '%.2f', '%::y', '%#y']) expect(() => compileFormat(f), f).to.throw(FormatError);
    });
    it('rejects unknown zones', () => {
      expect(() => formatTimestamp(T, '%F', 'Mars/Olympus')).to.throw(/unknown time zone/);
    });
  });

  describe('parseTimestamp', () => {
    const ok: [string, string, string | undefined, string][] = [
      ['2019-11-29 13:22:11', '%F %T', undefined, '2019-11-29T13:22:11Z'],
      ['2019-11-29 13:22:11', '%F %T', 'Europe/Berlin', '2019-11-29T12:22:11Z'],
      ['2019-07-29 13:22:11', '%F %T', 'Europe/Berlin', '2019-07-29T11:22:11Z'],
      ['29-Nov-2019 13:22:11', '%v %T', undefined, '2019-11-29T13:22:11Z'],
      ['2019-11-29T13:22:11', '%FT%T', undefined, '2019-11-29T13:22:11Z'],
      ['Fri, 29 Nov 2019 13:22:11', '%a, %d %b %Y %T', undefined, '2019-11-29T13:22:11Z'],
      ['Fri 29 Nov 13:22:11 2019', '%a %d %b %T %Y', undefined, '2019-11-29T13:22:11Z'],
      ['Fri Nov  1 13:22:11 2019', '%a %b %e %T %Y', undefined, '2019-11-01T13:22:11Z'],
      ['Friday 29 November 13:22:11 2019', '%A %d %B %T %Y', undefined, '2019-11-29T13:22:11Z'],
      ['FRI nov 29 13:22:11 2019', '%a %b %d %T %Y', undefined, '2019-11-29T13:22:11Z'],
      ['1574999999', '%s', 'Europe/Berlin', '2019-11-29T03:59:59Z'],
      ['-1', '%s', undefined, '1969-12-31T23:59:59Z'],
      ['2019-11-29T13:22:11Z', '%FT%TZ', undefined, '2019-11-29T13:22:11Z'],
      ['2019-11-29T13:22:11.123456789+01:00', '%+', undefined, '2019-11-29T12:22:11.123456789Z'],
      ['2019-11-29t13:22:11z', '%+', 'Asia/Tokyo', '2019-11-29T13:22:11Z'],
      ['Fri 29 Nov 13:22:11 CET 2019', '%a %d %b %T %Z %Y', undefined, '2019-11-29T12:22:11Z'],
      ['Fri 29 Nov 13:22:11 UTC 2019', '%a %d %b %T %Z %Y', 'Asia/Tokyo', '2019-11-29T13:22:11Z'],
      ['Fri 29 Nov 13:22:11 America/New_York 2019', '%a %d %b %T %Z %Y', undefined, '2019-11-29T18:22:11Z'],
      ['Fri 29 Nov 13:22:11 +0230 2019', '%a %d %b %T %z %Y', undefined, '2019-11-29T10:52:11Z'],
      ['Fri 29 Nov 13:22:11 -05:00 2019', '%a %d %b %T %z %Y', undefined, '2019-11-29T18:22:11Z'],
      ['Fri 29 Nov 13:22:11 +02 2019', '%a %d %b %T %#z %Y', undefined, '2019-11-29T11:22:11Z'],
      ['Fri 29 Nov 13:22:11 +02:30 2019', '%a %d %b %T %#z %Y', undefined, '2019-11-29T10:52:11Z'],
      ['29/Nov/2019:13:22:11 -0700', '%d/%b/%Y:%T %z', undefined, '2019-11-29T20:22:11Z'],
      ['11/29/2019:13:22:11', '%m/%d/%Y:%T', undefined, '2019-11-29T13:22:11Z'],
      ['2019-11-29 13:22:11.5', '%F %T%.f', undefined, '2019-11-29T13:22:11.500Z'],
      ['2019-11-29 13:22:11', '%F %T%.f', undefined, '2019-11-29T13:22:11Z'],
      ['2019-11-29 13:22:11.1234567891', '%F %T%.3f', undefined, '2019-11-29T13:22:11.123456789Z'],
      ['13:22:11.042 2019-11-29', '%T.%3f %F', undefined, '2019-11-29T13:22:11.042Z'],
      ['20191129 132211 000000042', '%Y%m%d %H%M%S %f', undefined, '2019-11-29T13:22:11.000000042Z'],
      ['2019-333 01:02', '%Y-%j %R', undefined, '2019-11-29T01:02:00Z'],
      ['11/29/19 01:02:03 PM', '%D %I:%M:%S %p', undefined, '2019-11-29T13:02:03Z'],
      ['12/01/69 12:00:00 am', '%D %r', undefined, '1969-12-01T00:00:00Z'],
      ['2019-11-29', '%F', undefined, '2019-11-29T00:00:00Z'],
      ['2019-3-5 1:2:3', '%Y-%m-%d %H:%M:%S', undefined, '2019-03-05T01:02:03Z'],
      ['2019-11-29    13:22:11', '%F %T', undefined, '2019-11-29T13:22:11Z'],
      ['2016-12-31 23:59:60', '%F %T', undefined, '2017-01-01T00:00:00Z'],
      ['2024-03-31 02:30:00', '%F %T', 'Europe/Berlin', '2024-03-31T01:30:00Z'],
      ['2024-10-27 02:30:00', '%F %T', 'Europe/Berlin', '2024-10-27T00:30:00Z'],
      ['0099-01-01 00:00:00', '%F %T', undefined, '0099-01-01T00:00:00Z'],
    ];
    for (const [text, fmt, tz, want] of ok) {
      it(`${JSON.stringify(text)} with ${fmt}${tz ? ` in ${tz}` : ''} -> ${want}`, () => {
        expect(parseTimestamp(text, fmt, tz).toString()).to.equal(want);
      });
    }

    const bad: [string, string, RegExp][] = [
      ['2019-11-29', '%F %T', /premature end of input/],
      ['2019-11-29 13:22:11 x', '%F %T', /trailing input/],
      ['2019/11/29 13:22:11', '%F %T', /invalid characters/],
      ['Thu, 29 Nov 2019 13:22:11', '%a, %d %b %Y %T', /no possible date and time/],
      ['2019-02-29 00:00:00', '%F %T', /out of range/],
      ['2019-13-01 00:00:00', '%F %T', /out of range/],
      ['2019-11-29 24:00:00', '%F %T', /out of range/],
      ['13:22:11', '%T', /not enough/],
      ['2019-11-29 13', '%F %H', /not enough/],
      ['11/29/19 01:02:03', '%D %I:%M:%S', /not enough/],
      ['Fri 29 Nov 13:22:11 Nowhere 2019', '%a %d %b %T %Z %Y', /invalid characters/],
      ['Fri 29 Nov 13:22:11 +2 2019', '%a %d %b %T %z %Y', /premature end|invalid characters/],
      ['Fri 29 Nov 13:22:11 +02 2019', '%a %d %b %T %z %Y', /invalid characters/],
      ['Foo 29 Nov 13:22:11 2019', '%a %d %b %T %Y', /invalid characters/],
      ['', '%s', /premature end of input/],
    ];
    for (const [text, fmt, re] of bad) {
      it(`rejects ${JSON.stringify(text)} with ${fmt}`, () => {
        expect(() => parseTimestamp(text, fmt)).to.throw(TimestampParseError, re);
      });
    }

    it('round-trips format and parse at nanosecond precision in a zone', () => {
      const f = compileFormat('%Y-%m-%dT%H:%M:%S%.9f %z');
      const t = new Timestamp(1_700_000_000_123, 456_789);
      const text = f.format(t, 'Australia/Adelaide');
      expect(text).to.equal('2023-11-15T08:43:20.123456789 +1030');
      expect(f.parse(text).equals(t)).to.equal(true);
    });
    it('parses ISO week dates and %U/%W week numbers (round trip over two years of days)', () => {
      const start = Date.UTC(2020, 11, 20);
      for (let d = 0; d < 730; d += 3) {
        const t = new Timestamp(start + d * 86_400_000 + 36_000_000);
        for (const f of ['%G-W%V-%u %T', '%Y %U %w %T', '%Y %W %a %T', '%g %V %A %T']) {
          expect(parseTimestamp(formatTimestamp(t, f), f).toString(), `${t} ${f}`).to.equal(t.toString());
        }
      }
      expect(parseTimestamp('2020-W53-6 00:00:00', '%G-W%V-%u %T').toString()).to.equal('2021-01-02T00:00:00Z');
      expect(() => parseTimestamp('2021-W53-1 00:00:00', '%G-W%V-%u %T')).to.throw(/out of range/);
    });
    it('reports whether a format carries a zone', () => {
      expect(compileFormat('%F %T').hasZone).to.equal(false);
      for (const f of ['%z', '%:z', '%#z', '%Z', '%+', '%s']) expect(compileFormat(f).hasZone, f).to.equal(true);
    });
  });

  describe('resolveTimezone', () => {
    it('maps undefined and UTC spellings to undefined', () => {
      expect(resolveTimezone()).to.equal(undefined);
      expect(resolveTimezone('UTC')).to.equal(undefined);
      expect(resolveTimezone('Etc/UTC')).to.equal(undefined);
    });
    it('keeps IANA names and fixed offsets, rejects unknown names', () => {
      expect(resolveTimezone('Europe/Berlin')).to.equal('Europe/Berlin');
      expect(resolveTimezone('+05:30')).to.equal('+05:30');
      expect(() => resolveTimezone('Not/AZone')).to.throw(/unknown time zone "Not\/AZone"/);
    });
    it('local is the system zone', () => {
      const sys = new Intl.DateTimeFormat().resolvedOptions().timeZone;
      const want = ['UTC', 'Etc/UTC'].includes(sys) ? undefined : sys;
      expect(resolveTimezone('local')).to.equal(want);
    });
  });
});
