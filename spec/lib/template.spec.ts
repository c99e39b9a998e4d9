import { expect } from 'chai';
import { EventMetadata, LogEvent, MetricEvent, logEvent } from '../../lib/event.js';
import { TemplateError, compileTemplate } from '../../lib/template.js';
import { Float, Timestamp } from '../../lib/value.js';

const T = Timestamp.parse('2024-05-01T22:30:00.123Z')!;
const log = (): LogEvent =>
  logEvent({
    message: 'hello',
    timestamp: T,
    host: 'web-1',
    n: 42,
    f: new Float(1.5),
    ok: true,
    nil: null,
    nested: { a: { b: 'deep' } },
    list: [1, 'two'],
    obj: { x: 1 },
    'odd key': 'odd',
  });

describe('lib/template', () => {
  describe('rendering', () => {
    const cases: [string, string | undefined][] = [
      ['static', 'static'],
      ['{{ host }}', 'web-1'],
      ['{{host}}', 'web-1'],
      ['{{   .host   }}', 'web-1'],
      ['app-{{ host }}-logs', 'app-web-1-logs'],
      ['{{ nested.a.b }}', 'deep'],
      ['{{ list[1] }}', 'two'],
      ['{{ ."odd key" }}', 'odd'],
      ['{{ n }}/{{ f }}/{{ ok }}', '42/1.5/true'],
      ['{{ nil }}', ''],
      ['{{ obj }}', '{"x":1}'],
      ['{{ list }}', '[1,"two"]'],
      ['{{ timestamp }}', '2024-05-01T22:30:00.123Z'],
      ['logs-%Y-%m-%d', 'logs-2024-05-01'],
      ['%F/{{ host }}/%H', '2024-05-01/web-1/22'],
      ['100%% {{ host }}', '100% web-1'],
      ['{{ missing }}', undefined],
      ['x-{{ host }}-{{ nested.a.zz }}', undefined],
      ['{{ nested.a.b.c }}', undefined],
    ];
    for (const [text, want] of cases) {
      it(`${JSON.stringify(text)} -> ${JSON.stringify(want)}`, () => {
        expect(compileTemplate(text).render(log())).to.equal(want);
      });
    }

    it('renders strftime items in the given zone', () => {
      const t = compileTemplate('%F %H:%M');
      expect(t.render(log())).to.equal('2024-05-01 22:30');
      expect(t.render(log(), 'Asia/Tokyo')).to.equal('2024-05-02 07:30');
    });
    it('uses now when the event has no timestamp (or a non-timestamp one)', () => {
      const t = compileTemplate('%Y');
      const year = String(new Date().getUTCFullYear());
      expect(t.render(logEvent({ message: 'x' }))).to.equal(year);
      expect(t.render(logEvent({ timestamp: '1999-01-01' }))).to.equal(year);
    });
    it('reads metric name, namespace, tags and timestamp', () => {
      const m = new MetricEvent('reqs', 'incremental', { type: 'counter', value: 1 }, new EventMetadata('s', 't'), 'app', {
        host: 'h1',
        multi: ['a', null, 'b'],
        bare: null,
        'k8s.pod': 'p-1',
      }, T);
      expect(compileTemplate('{{ tags.k8s.pod }}').render(m)).to.equal('p-1');
      expect(compileTemplate('{{ namespace }}.{{ name }}@{{ tags.host }}').render(m)).to.equal('app.reqs@h1');
      expect(compileTemplate('{{ tags.multi }}').render(m)).to.equal('b');
      expect(compileTemplate('{{ tags.bare }}').render(m)).to.equal(undefined);
      expect(compileTemplate('{{ tags.nope }}').render(m)).to.equal(undefined);
      expect(compileTemplate('%Y-%m-%d').render(m)).to.equal('2024-05-01');
      expect(compileTemplate('{{ message }}').render(m)).to.equal(undefined);
    });
    it('reads the % metadata tree', () => {
      const e = log();
      e.meta.value = { kafka: { topic: 'orders' } };
      expect(compileTemplate('{{ %kafka.topic }}').render(e)).to.equal('orders');
      expect(compileTemplate('{{ %nope }}').render(e)).to.equal(undefined);
    });
    it('lists missing fields', () => {
      expect(compileTemplate('{{ host }}{{ a }}{{ nested.a.b }}{{ b.c }}').missingFields(log())).to.deep.equal(['a', 'b.c']);
    });
  });

  describe('compilation', () => {
    it('reports dynamism and fields', () => {
      expect(compileTemplate('plain').isDynamic).to.equal(false);
      expect(compileTemplate('').isDynamic).to.equal(false);
      expect(compileTemplate('100%%').isDynamic).to.equal(false);
      expect(compileTemplate('100%%').render(log())).to.equal('100%');
      expect(compileTemplate('%Y').isDynamic).to.equal(true);
      const t = compileTemplate('{{ a }}-{{ .b.c }}');
      expect(t.isDynamic).to.equal(true);
      expect(t.fields).to.deep.equal(['a', '.b.c']);
    });
    it('static templates render their text for any event', () => {
      const t = compileTemplate('fixed');
      expect(t.render(logEvent({}))).to.equal('fixed');
    });
    for (const bad of ['{{ host', 'a {{ }} b', '{{}}', '{{ a..b }}', '{{ [x] }}', 'x %Q', 'tail %']) {
      it(`rejects ${JSON.stringify(bad)} with TemplateError`, () => {
        expect(() => compileTemplate(bad)).to.throw(TemplateError);
      });
    }
  });
});
