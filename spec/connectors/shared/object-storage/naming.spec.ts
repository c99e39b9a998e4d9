import { expect } from 'chai';
import * as v from 'valibot';
import { createObjectNamer, objectNamingEntries } from '../../../../connectors/shared/object-storage/index.js';
import { EventMetadata, MetricEvent, logEvent } from '../../../../lib/event.js';
import { TemplateError } from '../../../../lib/template.js';
import { Timestamp } from '../../../../lib/value.js';

const Naming = v.strictObject(objectNamingEntries);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** 2023-11-14T22:13:20Z */
const T0 = 1_700_000_000_000;

describe('connectors/shared/object-storage: object names', () => {
  it('defaults: key_prefix date=%F/, time %s, uuid appended, extension from compression', () => {
    const c = v.parse(Naming, {});
    expect(c).to.deep.equal({ key_prefix: 'date=%F/', filename_time_format: '%s', filename_append_uuid: true });
    const gz = createObjectNamer(c, 'gz');
    const e = logEvent({ message: 'a', timestamp: new Timestamp(T0 - 86_400_000) });
    const prefix = gz.prefixOf(e);
    expect(prefix).to.equal('date=2023-11-13/');
    const key = gz.keyFor(prefix, T0 + 999);
    const m = /^date=2023-11-13\/1700000000-(.+)\.log\.gz$/.exec(key);
    expect(m, key).to.not.equal(null);
    expect(m![1]).to.match(UUID);
    expect(createObjectNamer(c, '').keyFor('p/', T0)).to.match(/^p\/1700000000-[0-9a-f-]{36}\.log$/);
  });

  it('two objects of the same second get different names', () => {
    const n = createObjectNamer(v.parse(Naming, {}), '');
    expect(n.keyFor('x/', T0)).to.not.equal(n.keyFor('x/', T0));
  });

  it('filename_append_uuid = false, filename_time_format and filename_extension (which replaces the .gz too)', () => {
    const n = createObjectNamer(v.parse(Naming, { filename_append_uuid: false, filename_time_format: '%Y%m%dT%H%M%S', filename_extension: 'json' }), 'gz');
    expect(n.keyFor('a/', T0)).to.equal('a/20231114T221320.json');
    expect(createObjectNamer(v.parse(Naming, { filename_append_uuid: false, filename_extension: '' }), 'gz').keyFor('a/', T0)).to.equal('a/1700000000');
  });

  it('key_prefix renders fields and the event timestamp; metrics use theirs; events without a timestamp use now', () => {
    const n = createObjectNamer(v.parse(Naming, { key_prefix: '{{ app }}/%Y/%m/%d/%H/' }), '');
    expect(n.prefixOf(logEvent({ app: 'web', timestamp: new Timestamp(T0) }))).to.equal('web/2023/11/14/22/');
    const m = new MetricEvent('m', 'incremental', { type: 'counter', value: 1 }, new EventMetadata('', ''), undefined, undefined, new Timestamp(T0 + 3_600_000));
    expect(() => n.prefixOf(m)).to.throw(TemplateError);
    const n2 = createObjectNamer(v.parse(Naming, { key_prefix: '%Y-%H/' }), '');
    expect(n2.prefixOf(m)).to.equal('2023-23/');
    const now = new Date();
    expect(n2.prefixOf(logEvent({ message: 'no time' }))).to.equal(`${now.getUTCFullYear()}-${String(now.getUTCHours()).padStart(2, '0')}/`);
  });

  it('a prefix of strftime items alone follows every event timestamp (shared Timestamp instances included)', () => {
    const n = createObjectNamer(v.parse(Naming, {}), '');
    const day1 = new Timestamp(T0);
    const day2 = new Timestamp(T0 + 86_400_000);
    const got = [day1, day1, day2, day2, day1].map((ts) => n.prefixOf(logEvent({ timestamp: ts })));
    expect(got).to.deep.equal(['date=2023-11-14/', 'date=2023-11-14/', 'date=2023-11-15/', 'date=2023-11-15/', 'date=2023-11-14/']);
  });

  it('a missing field throws a TemplateError naming it (the sink rejects that event)', () => {
    const n = createObjectNamer(v.parse(Naming, { key_prefix: 'x/{{ tenant }}/' }), '');
    expect(() => n.prefixOf(logEvent({ message: 'a' }))).to.throw(TemplateError, /tenant/);
  });

  it('timezone (own, else the global one) applies to the prefix and the time part', () => {
    const c = v.parse(Naming, { key_prefix: '%F-%H/', filename_time_format: '%H%M', filename_append_uuid: false, timezone: 'Asia/Tokyo' });
    const n = createObjectNamer(c, '');
    const e = logEvent({ timestamp: new Timestamp(T0) });
    expect(n.keyFor(n.prefixOf(e), T0)).to.equal('2023-11-15-07/0713.log');
    const g = createObjectNamer({ ...c, timezone: undefined }, '', '+01:00');
    expect(g.keyFor(g.prefixOf(e), T0)).to.equal('2023-11-14-23/2313.log');
  });

  it('rejects malformed options at load, at their path', () => {
    const issues = v.safeParse(Naming, { key_prefix: 'a/{{ x', filename_time_format: '%Q', filename_extension: '.log', timezone: 'Mars/Base' }).issues ?? [];
    const paths = issues.map((i) => v.getDotPath(i));
    expect(paths).to.have.members(['key_prefix', 'filename_time_format', 'filename_extension', 'timezone']);
  });
});
