/** The exact syslog parse (Vector's syslog source and codec) beside the lenient one. */
import { expect } from 'chai';
import { parseSyslog, parseSyslogExact } from '../../../lib/codecs/index.js';
import { Timestamp } from '../../../lib/value.js';

const NOW = () => Date.UTC(2024, 4, 1);

describe('syslog parse: exact', () => {
  const refused = ['just some text', '<13>no timestamp here', '<13>', 'Jan', '<13>Foo 12 10:00:00 host app: x', ''];
  for (const text of refused) {
    it(`refuses ${JSON.stringify(text)}; the lenient parse keeps the text after the PRI as the message`, () => {
      expect(parseSyslogExact(text, { now: NOW })).to.equal(undefined);
      expect(parseSyslog(text, { now: NOW }).message).to.equal(text.replace(/^<\d+>/, ''));
    });
  }

  it('accepts RFC 5424, with nil values', () => {
    expect(parseSyslogExact('<13>1 - - - - - - hello')).to.deep.equal({ facility: 'user', severity: 'notice', version: 1, message: 'hello' });
  });

  it('accepts an RFC 3164 header without PRI', () => {
    expect(parseSyslogExact('Oct 11 22:14:15 mymachine su: hi', { now: NOW })).to.deep.include({ hostname: 'mymachine', appname: 'su', message: 'hi' });
  });

  it('accepts an RFC 3164 line with an RFC 3339 timestamp, and with `-` in its place', () => {
    const iso = parseSyslogExact('<13>2024-05-01T10:00:00Z web app[3]: iso', { now: NOW })!;
    expect(iso.timestamp).to.deep.equal(Timestamp.parse('2024-05-01T10:00:00Z'));
    expect(iso).to.deep.include({ hostname: 'web', appname: 'app', procid: 3, message: 'iso' });
    const nil = parseSyslogExact('<13>- web app: nil time', { now: NOW })!;
    expect(nil.timestamp).to.equal(undefined);
    expect(nil).to.deep.include({ hostname: 'web', appname: 'app', message: 'nil time' });
  });

  it('reads `Mmm dd yyyy hh:mm:ss` with its own year', () => {
    const m = parseSyslogExact('<189>Mar  3 2021 08:09:10 router sshd[9]: login', { now: NOW })!;
    expect(m.timestamp!.toString()).to.equal('2021-03-03T08:09:10Z');
    expect(m).to.deep.include({ facility: 'local7', severity: 'notice', hostname: 'router', appname: 'sshd', procid: 9, message: 'login' });
  });

  it('drops every space between the structured data and an RFC 5424 message', () => {
    expect(parseSyslogExact('<13>1 2024-05-01T10:00:00Z vm app 42 - -  two spaces')!.message).to.equal('two spaces');
    expect(parseSyslog('<13>1 - vm app - - [a b="c"]   three')!.message).to.equal('three');
  });
});
