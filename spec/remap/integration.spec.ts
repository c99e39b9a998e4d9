/** The remap transform, vrl conditions and the `weir vrl` command, end to end. */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { lastValueFrom, of, toArray } from 'rxjs';
import { compileCondition } from '../../operators/conditions/index.js';
import { type Event, type EventBatch, type RoutedBatch, logEvent } from '../../lib/event.js';
import { remapTransform } from '../../connectors/transforms/remap/index.js';
import { runVrlCommand } from '../../bin/cli/vrl.js';
import { configIssues, parseConfig, transformContext } from '../connectors/transforms/context.js';

async function runTransform(options: Record<string, unknown>, events: Event[]) {
  const ctx = transformContext('remap');
  const config = parseConfig(remapTransform, options);
  const out = await lastValueFrom(of(events as EventBatch).pipe(remapTransform.build(config, ctx), toArray()));
  return { out, ctx };
}

const fieldsOf = (b: EventBatch | RoutedBatch): unknown[] =>
  (Array.isArray(b) ? b : b.events).map((e) => (e.type === 'log' ? e.fields : null));

async function vrl(opts: Parameters<typeof runVrlCommand>[0], stdinText?: string) {
  let out = '';
  let err = '';
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.on('data', (c) => (out += String(c)));
  stderr.on('data', (c) => (err += String(c)));
  const stdin = stdinText === undefined ? Object.assign(Readable.from([]), { isTTY: true }) : Readable.from([stdinText]);
  const code = await runVrlCommand(opts, { stdin, stdout, stderr });
  return { code, out, err };
}

describe('remap transform', () => {
  it('modifies events in place', async () => {
    const { out } = await runTransform({ source: '.b = upcase!(.a)' }, [logEvent({ a: 'x' })]);
    expect(out.map(fieldsOf)).to.deep.equal([[{ a: 'x', b: 'X' }]]);
  });

  it('turns an array result into one event per element (non-objects become message)', async () => {
    const { out } = await runTransform({ source: '. = [{"a": 1}, "two"]' }, [logEvent({})]);
    expect(out.map(fieldsOf)).to.deep.equal([[{ a: 1 }, { message: 'two' }]]);
  });

  it('forwards the original event on error unless drop_on_error, and counts the error', async () => {
    const src = '.changed = true; .x = parse_json!(.raw)';
    const kept = await runTransform({ source: src }, [logEvent({ raw: 'nope' })]);
    expect(kept.out.map(fieldsOf)).to.deep.equal([[{ raw: 'nope' }]]);
    expect(kept.ctx.registry.sum('component_errors_total')).to.equal(1);
    const dropped = await runTransform({ source: src, drop_on_error: true }, [logEvent({ raw: 'nope' })]);
    expect(dropped.out).to.deep.equal([]);
    expect(dropped.ctx.registry.sum('component_discarded_events_total')).to.equal(1);
  });

  it('reroutes dropped events to the dropped output with the reason in metadata', async () => {
    const { out } = await runTransform({ source: 'abort "no"', reroute_dropped: true }, [logEvent({ a: 1 })]);
    expect(out).to.have.length(1);
    const routed = out[0] as RoutedBatch;
    expect(routed.output).to.equal('dropped');
    expect(routed.events[0]!.meta.value).to.deep.include({ dropped: { reason: 'abort', message: 'no', component_id: 'remap', component_type: 'remap', component_kind: 'transform' } });
  });

  it('turns a non-object result into the message field and passes metrics through', async () => {
    const { out } = await runTransform({ source: '. = "plain"' }, [logEvent({ a: 1 })]);
    expect(out.map(fieldsOf)).to.deep.equal([['{"message":"plain"}'].map((s) => JSON.parse(s))]);
  });

  it('merges with |= without sharing containers with the merged value', async () => {
    const { out } = await runTransform({ source: '. |= .inner; .x.y = 2' }, [logEvent({ inner: { x: { y: 1 } } })]);
    expect(out.map(fieldsOf)).to.deep.equal([[{ inner: { x: { y: 1 } }, x: { y: 2 } }]]);
  });

  it('reads the program from a file and rejects a program that does not compile', () => {
    const dir = mkdtempSync(join(tmpdir(), 'remap-'));
    const file = join(dir, 'p.vrl');
    writeFileSync(file, '.a = 1');
    const ctx = transformContext('remap');
    expect(() => remapTransform.build(parseConfig(remapTransform, { file }), ctx)).to.not.throw();
    expect(() => remapTransform.build(parseConfig(remapTransform, { source: 'parse_json("x")' }), ctx)).to.throw(/E100/);
    expect(configIssues(remapTransform, {})).to.have.length(1);
    expect(configIssues(remapTransform, { source: '.', file })).to.have.length(1);
  });
});

describe('vrl conditions', () => {
  it('evaluates a boolean program without changing the event', () => {
    const test = compileCondition({ type: 'vrl', source: '.status == 200 && exists(.host)' });
    expect(test(logEvent({ status: 200, host: 'h' }))).to.equal(true);
    expect(test(logEvent({ status: 500, host: 'h' }))).to.equal(false);
    const mutating = compileCondition('.seen = true; true');
    const e = logEvent({});
    expect(mutating(e)).to.equal(true);
    expect(e.fields).to.deep.equal({});
  });

  it('rejects non-boolean and invalid programs at build time', () => {
    expect(() => compileCondition('.a')).to.throw(/boolean/);
    expect(() => compileCondition('upcase(.a) == "X"')).to.throw(/E110/);
  });
});

describe('weir vrl command', () => {
  it('runs once on {} without input', async () => {
    const r = await vrl({ program: '.a = 1.0; 2' });
    expect(r).to.deep.equal({ code: 0, out: '{"result":2,"object":{"a":1.0}}\n', err: '' });
  });

  it('runs per NDJSON line and reports aborts', async () => {
    const r = await vrl({ program: 'if .n == 2 { abort "big" }; .n' }, '{"n": 1}\n{"n": 2}\n');
    expect(r.code).to.equal(0);
    expect(r.out.trim().split('\n')).to.deep.equal(['{"result":1,"object":{"n":1}}', '{"aborted":true,"error":"big"}']);
  });

  it('prints timestamps as RFC 3339 UTC and names failing functions', async () => {
    const r = await vrl({ program: 't = t\'2021-01-01T00:00:00.500+01:00\'; .x = to_int!(.s); t' }, '{"s": "a"}\n');
    expect(JSON.parse(r.out)).to.deep.equal({ aborted: true, error: 'function call error for "to_int" at (43:54): Invalid integer "a": invalid digit found in string' });
    const ok = await vrl({ program: "t'2021-01-01T00:00:00.500+01:00'" });
    expect(ok.out).to.equal('{"result":"2020-12-31T23:00:00.500Z","object":{}}\n');
  });

  it('exits 2 with diagnostics on stderr for a program that does not compile', async () => {
    const r = await vrl({ program: 'upcase(.a)' });
    expect(r.code).to.equal(2);
    expect(r.out).to.equal('');
    expect(r.err).to.contain('error[E110]');
  });
});

describe('remap timezone option', () => {
  it('rejects an unknown zone at build time and formats in the configured zone', async () => {
    const ctx = transformContext('remap');
    expect(() => remapTransform.build(parseConfig(remapTransform, { source: '.', timezone: 'Mars/Base' }), ctx)).to.throw(/unknown time zone/);
    const { out } = await runTransform({ source: '.t = format_timestamp!(t\'2021-01-01T12:00:00Z\', "%H:%M")', timezone: 'Europe/Berlin' }, [logEvent({})]);
    expect(out.map(fieldsOf)).to.deep.equal([[{ t: '13:00' }]]);
  });
});
