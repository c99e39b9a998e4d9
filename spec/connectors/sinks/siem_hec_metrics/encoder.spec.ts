import { expect } from 'chai';
import { createSiemEncoder } from '../../../../connectors/sinks/siem_hec_metrics/encoder.js';
import { type TestSinkContext, testSinkContext } from '../../../helpers/sink-context.js';
import { counter, gauge, otherKinds } from '../../shared/hec/harness.js';
import { siemConfig } from './harness.js';

const NOW = 1_700_000_005_250;

describe('connectors/sinks/siem_hec_metrics: metric envelopes', () => {
  let ctx: TestSinkContext;
  beforeEach(() => {
    ctx = testSinkContext('siem_hec_metrics');
  });
  const encoder = (extra: Record<string, unknown> = {}, tz?: string) => createSiemEncoder(siemConfig('http://127.0.0.1:1', extra), ctx, tz, () => NOW);
  const text = (extra: Record<string, unknown>, e: Parameters<ReturnType<typeof createSiemEncoder>['encode']>[0]) => encoder(extra).encode(e).text;

  it('counter: tags and the measurement in sorted fields, time in seconds with milliseconds, host from the host tag', () => {
    const out = encoder().encode(counter('requests', 3, { namespace: 'app', tags: { host: 'h1', env: 'prod' } }));
    expect(out.text).to.equal('{"event":"metric","fields":{"_value":3,"env":"prod","host":"h1","metric_name":"app.requests"},"time":1700000000.123,"host":"h1"}');
    expect(out.size).to.equal(Buffer.byteLength(out.text));
    expect(out.key).to.equal(undefined);
  });

  it('gauge: an absolute value sent as is; without a timestamp the time is now; no host tag, no host', () => {
    expect(text({}, gauge('load', 0.75, { timestamp: null }))).to.equal('{"event":"metric","fields":{"_value":0.75,"metric_name":"load"},"time":1700000005.25}');
  });

  it('incremental and absolute values go out unchanged (no normalisation)', () => {
    const e = encoder();
    expect(e.encode(counter('c', 5, { kind: 'absolute' })).text).to.contain('"_value":5,');
    expect(e.encode(gauge('g', -2, { kind: 'incremental' })).text).to.contain('"_value":-2,');
  });

  it('set, distribution, aggregated_histogram and aggregated_summary are refused (each event alone)', () => {
    const e = encoder();
    for (const m of otherKinds()) expect(() => e.encode(m), m.value.type).to.throw(`the collector takes counters and gauges only, not ${m.value.type}`);
  });

  it('default_namespace prefixes names without a namespace only', () => {
    const e = encoder({ default_namespace: 'svc' });
    expect(e.encode(counter('a', 1)).text).to.contain('"metric_name":"svc.a"');
    expect(e.encode(counter('a', 1, { namespace: 'own' })).text).to.contain('"metric_name":"own.a"');
  });

  it('host_key names the tag the host comes from; the tag stays in fields', () => {
    const out = text({ host_key: 'node' }, counter('a', 1, { tags: { node: 'n7', host: 'h1' } }));
    expect(out).to.equal('{"event":"metric","fields":{"_value":1,"host":"h1","metric_name":"a","node":"n7"},"time":1700000000.123,"host":"n7"}');
  });

  it('index, source and sourcetype render per metric; the tags they name leave fields', () => {
    const e = encoder({ index: 'metrics-{{ tags.env }}', source: '{{ tags.region }}/{{ name }}', sourcetype: 'weir' });
    const out = e.encode(counter('a', 1, { namespace: 'ns', tags: { env: 'prod', region: 'eu', keep: 'k', name: 'dropped-as-templated' } })).text;
    expect(out).to.equal('{"event":"metric","fields":{"_value":1,"keep":"k","metric_name":"ns.a"},"time":1700000000.123,"index":"metrics-prod","source":"eu/a","sourcetype":"weir"}');
  });

  it('a template that does not render leaves its member out, sends the metric and counts the failure', () => {
    const out = text({ index: '{{ tags.missing }}', source: 'fixed' }, counter('a', 1));
    expect(out).to.equal('{"event":"metric","fields":{"_value":1,"metric_name":"a"},"time":1700000000.123,"source":"fixed"}');
    expect(ctx.metric('component_errors_total', { error_type: 'template_failed', stage: 'processing' })).to.equal(1);
  });

  it('strftime items in templates use the metric time in the given zone', () => {
    const e = createSiemEncoder(siemConfig('http://127.0.0.1:1', { index: 'm-%Y-%m-%d-%H' }), ctx, 'Asia/Tokyo', () => NOW);
    expect(e.encode(counter('a', 1)).text).to.contain('"index":"m-2023-11-15-07"');
    const utc = createSiemEncoder(siemConfig('http://127.0.0.1:1', { index: 'm-%Y-%m-%d-%H' }), ctx, undefined, () => NOW);
    expect(utc.encode(counter('a', 1)).text).to.contain('"index":"m-2023-11-14-22"');
  });

  it('a tag with several values sends its last non-null one; a bare tag is left out; a tag named like a measurement loses to it', () => {
    const out = text({}, counter('a', 2, { tags: { multi: ['x', 'y', null], bare: null, metric_name: 'shadow', _value: 'shadow' } }));
    expect(out).to.equal('{"event":"metric","fields":{"_value":2,"metric_name":"a","multi":"y"},"time":1700000000.123}');
  });

  it('a log event is refused', async () => {
    const { logEvent } = await import('../../../../lib/event.js');
    expect(() => encoder().encode(logEvent({ message: 'x' }))).to.throw('metric events only');
  });
});
