import { expect } from 'chai';
import * as v from 'valibot';
import { journalctlArgs } from '../../../../connectors/sources/journal/command.js';
import { JournalSourceConfig, unitMatches } from '../../../../connectors/sources/journal/config.js';
import { LOCAL_HOST, parseRecord, priorityName, recordFilter, recordToEvent } from '../../../../connectors/sources/journal/record.js';
import type { JournalRecord } from '../../../../connectors/sources/journal/record.js';
import { toJSON } from '../../../../lib/value.js';

const KEYS = { message: 'message', host: 'host', timestamp: 'timestamp', sourceType: 'source_type' };
const parse = (o: Record<string, unknown>) => v.parse(JournalSourceConfig, { type: 'journal', ...o });
const rec = (line: string) => parseRecord(line) as JournalRecord;

describe('journal source: records, filters, command line', () => {
  it('builds the reference example field by field, in order, without __CURSOR', () => {
    const line = '{"__CURSOR":"s=ab;i=1","__REALTIME_TIMESTAMP":"1714557600000000","_HOSTNAME":"h1","MESSAGE":"started","PRIORITY":"6","_SYSTEMD_UNIT":"ntpd.service"}';
    const r = rec(line);
    expect(r.cursor).to.equal('s=ab;i=1');
    const e = recordToEvent(r, KEYS, false, 'in');
    expect(JSON.stringify(toJSON(e.fields))).to.equal(
      '{"message":"started","host":"h1","timestamp":"2024-05-01T10:00:00Z","__REALTIME_TIMESTAMP":"1714557600000000","PRIORITY":"6","_SYSTEMD_UNIT":"ntpd.service","source_type":"journal"}',
    );
    expect(e.meta.sourceType).to.equal('journal');
  });
  it('_SOURCE_REALTIME_TIMESTAMP wins; microseconds kept; no MESSAGE, no message; no _HOSTNAME, the local host', () => {
    const e = recordToEvent(rec('{"__REALTIME_TIMESTAMP":"1714557600000000","_SOURCE_REALTIME_TIMESTAMP":"1714557599123456","X":"y"}'), KEYS, false, 'in');
    expect(toJSON(e.fields)).to.deep.equal({ host: LOCAL_HOST, timestamp: '2024-05-01T09:59:59.123456Z', __REALTIME_TIMESTAMP: '1714557600000000', _SOURCE_REALTIME_TIMESTAMP: '1714557599123456', X: 'y', source_type: 'journal' });
    const noTs = recordToEvent(rec('{"__REALTIME_TIMESTAMP":"soon","MESSAGE":"m"}'), KEYS, false, 'in');
    expect(noTs.fields.timestamp).to.equal(undefined);
  });
  it('log_schema keys place message, host, timestamp and source_type', () => {
    const e = recordToEvent(rec('{"__REALTIME_TIMESTAMP":"1714557600000000","_HOSTNAME":"h1","MESSAGE":"m"}'), { message: 'msg', host: 'hn', timestamp: 'ts', sourceType: 'st' }, false, 'in');
    expect(Object.keys(e.fields)).to.deep.equal(['msg', 'hn', 'ts', '__REALTIME_TIMESTAMP', 'st']);
  });
  it('byte arrays decode lossily, other arrays become JSON text, null or numbers make the record invalid', () => {
    const r = rec('{"MESSAGE":[98,97,100,32,255,254],"BIN":[104,105],"MULTI":["a","b"],"MIXED":[[1,2],"c"]}');
    expect(r.fields).to.deep.equal({ MESSAGE: 'bad \uFFFD\uFFFD', BIN: 'hi', MULTI: '["a","b"]', MIXED: '[[1,2],"c"]' });
    expect(parseRecord('{"A":null}')).to.be.a('string');
    expect(parseRecord('{"A":5}')).to.be.a('string');
    expect(parseRecord('not json')).to.be.a('string');
    expect(parseRecord('[1]')).to.be.a('string');
  });
  it('remap_priority names 0..7, UNKNOWN above, leaves text alone', () => {
    expect(['0', '3', '6', '7', '8', 'x', '-1'].map(priorityName)).to.deep.equal(['EMERG', 'ERR', 'INFO', 'DEBUG', 'UNKNOWN', 'x', '-1']);
    const e = recordToEvent(rec('{"PRIORITY":"4"}'), KEYS, true, 'in');
    expect(e.fields.PRIORITY).to.equal('WARNING');
    expect(recordToEvent(rec('{"PRIORITY":"4"}'), KEYS, false, 'in').fields.PRIORITY).to.equal('4');
  });
  it('units get .service when they have no dot and merge into the matches', () => {
    const m = unitMatches({ _SYSTEMD_UNIT: ['x.socket'], PRIORITY: ['3'] }, ['sshd', 'cron.timer']);
    expect([...m.get('_SYSTEMD_UNIT')!]).to.deep.equal(['x.socket', 'sshd.service', 'cron.timer']);
  });
  it('include keeps a record with any matching pair; exclude drops on any pair; both combine', () => {
    const keep = recordFilter(unitMatches({ PRIORITY: ['3'] }, ['a']), unitMatches({ SYSLOG_IDENTIFIER: ['noisy'] }, []));
    expect(keep({ _SYSTEMD_UNIT: 'a.service', PRIORITY: '6' })).to.equal(true);
    expect(keep({ _SYSTEMD_UNIT: 'b.service', PRIORITY: '3' })).to.equal(true);
    expect(keep({ _SYSTEMD_UNIT: 'b.service', PRIORITY: '6' })).to.equal(false);
    expect(keep({ _SYSTEMD_UNIT: 'a.service', SYSLOG_IDENTIFIER: 'noisy' })).to.equal(false);
    expect(recordFilter(new Map(), new Map())({})).to.equal(true);
  });
  it('rejects a unit or a pair that is both included and excluded', () => {
    expect(v.safeParse(JournalSourceConfig, { type: 'journal', include_units: ['a'], exclude_units: ['a.service'] }).success).to.equal(false);
    expect(v.safeParse(JournalSourceConfig, { type: 'journal', include_matches: { P: ['1'] }, exclude_matches: { P: ['1'] } }).success).to.equal(false);
    expect(v.safeParse(JournalSourceConfig, { type: 'journal', include_units: ['a'], exclude_matches: { _SYSTEMD_UNIT: ['a.service'] } }).success).to.equal(false);
  });
  it('defaults: batch_size 16, current boot only, not since now, journalctl from PATH', () => {
    const c = parse({});
    expect([c.batch_size, c.current_boot_only, c.since_now, c.journalctl_path, c.remap_priority]).to.deep.equal([16, true, false, 'journalctl', false]);
  });
  it('command line: directory, boot flag by systemd version, start flag by checkpoint and since_now', () => {
    const base = ['--follow', '--all', '--show-cursor', '--output=json'];
    expect(journalctlArgs(parse({}), 252, 'all')).to.deep.equal([...base, '--since=2000-01-01']);
    expect(journalctlArgs(parse({ journal_directory: '/j' }), 249, 'now')).to.deep.equal([...base, '--directory=/j', '--boot', '--since=now']);
    expect(journalctlArgs(parse({ current_boot_only: false }), 252, { cursor: 's=1' })).to.deep.equal([...base, '--merge', '--after-cursor=s=1']);
    expect(journalctlArgs(parse({ current_boot_only: false }), 258, 'all')).to.deep.equal([...base, '--boot=all', '--since=2000-01-01']);
    expect(journalctlArgs(parse({ current_boot_only: false }), 249, 'all')).to.deep.equal([...base, '--since=2000-01-01']);
  });
});
