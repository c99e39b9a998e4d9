/**
 * A program knows whether a run can fail after it wrote to the event or its metadata: when it
 * cannot, the remap transform forwards a failed event without having copied it first. The
 * invariant: a program that claims so leaves event and metadata as they were on every failed run.
 */
import { expect } from 'chai';
import { lastValueFrom, of, toArray } from 'rxjs';
import { type EventBatch, type LogEvent, logEvent } from '../../lib/event.js';
import type { ObjectValue } from '../../lib/value.js';
import { remapTransform } from '../../connectors/transforms/remap/index.js';
import { compile } from '../../remap/index.js';
import { parseConfig, transformContext } from '../connectors/transforms/context.js';

const APACHE = String.raw`^(?P<host>\S+) (?P<user>\S+) "(?P<path>\S+)"$`;

/** Programs that fail on `{ raw: 'nope', arr: [1, 2] }` and whether a failure can follow a write. */
const programs: readonly [string, boolean][] = [
  [`. |= parse_regex!(.raw, r'${APACHE}')`, false],
  ['.x = parse_json!(.raw)', false],
  ['. = parse_json!(.raw)', false],
  ['%m = parse_json!(.raw)', false],
  ['y = parse_json!(.raw); .y = y', false],
  ['if false { .a = 1 }; .x = parse_json!(.raw)', true],
  ['.changed = true; .x = parse_json!(.raw)', true],
  ['%changed = true; .x = parse_json!(.raw)', true],
  ['del(.raw); abort', true],
  ['.x = 1; abort "stop"', true],
  ['for_each(array!(.arr)) -> |_i, v| { .last = v; if v == 2 { abort } }', true],
  ['for_each(array!(.arr)) -> |_i, v| { if v == 2 { abort }; .last = v }', true],
  ['abort', false],
];

function run(source: string): { readonly before: unknown; readonly after: unknown; readonly ok: boolean; readonly claims: boolean } {
  const event: ObjectValue = { raw: 'nope', arr: [1, 2] };
  const meta: ObjectValue = { m0: 1 };
  const before = structuredClone({ event, meta });
  const program = compile(source);
  const r = program.run(event, meta);
  return { before, after: { event, meta }, ok: r.ok, claims: program.abortsAfterWrite };
}

describe('remap: failures after writes', () => {
  for (const [source, expected] of programs) {
    it(`${source}: ${expected ? 'may fail after a write' : 'fails before any write'}`, () => {
      const { before, after, ok, claims } = run(source);
      expect(ok, 'the run fails').to.equal(false);
      expect(claims).to.equal(expected);
      if (!claims) expect(after).to.deep.equal(before);
    });
  }

  it('programs that cannot abort never fail after a write', () => {
    expect(compile('.a = 1; .b, err = parse_json(.raw)').abortsAfterWrite).to.equal(false);
  });

  it('the transform forwards a failed event unchanged either way', async () => {
    for (const [source] of programs) {
      const ctx = transformContext('remap');
      const config = parseConfig(remapTransform, { source, drop_on_abort: false });
      const event = logEvent({ raw: 'nope', arr: [1, 2] });
      event.meta.value = { m0: 1 };
      const out = await lastValueFrom(of([event] as EventBatch).pipe(remapTransform.build(config, ctx), toArray()));
      const forwarded = (out[0] as EventBatch)[0] as LogEvent;
      expect(forwarded.fields, source).to.deep.equal({ raw: 'nope', arr: [1, 2] });
      expect(forwarded.meta.value, source).to.deep.equal({ m0: 1 });
    }
  });
});
