/** Vector's own remap functions: secrets, set_semantic_meaning, reverse_dns (Vector's behavior tests among them). */
import { expect } from 'chai';
import { lastValueFrom, of, toArray } from 'rxjs';
import { remapTransform } from '../../connectors/transforms/remap/index.js';
import { type Event, type EventBatch, LogEvent, logEvent } from '../../lib/event.js';
import { reverseLookupSync } from '../../lib/net/reverse-dns.js';
import { CompileError, compile } from '../../remap/index.js';
import { parseConfig, transformContext } from '../connectors/transforms/context.js';

async function runTransform(source: string, events: Event[]): Promise<LogEvent[]> {
  const config = parseConfig(remapTransform, { source });
  const out = await lastValueFrom(of(events as EventBatch).pipe(remapTransform.build(config, transformContext('remap')), toArray()));
  return out.flatMap((b) => (Array.isArray(b) ? b : b.events)) as LogEvent[];
}

function compileError(src: string): string {
  try {
    compile(src);
  } catch (e) {
    if (e instanceof CompileError) return e.message;
    throw e;
  }
  throw new Error(`compiled: ${src}`);
}

describe('remap: Vector functions', function () {
  this.timeout(20_000);

  describe('get_secret, set_secret, remove_secret', () => {
    it("Vector's remap_metadata behavior test", async () => {
      const source = [
        'set_secret("datadog_api_key", "iamanapikey")',
        '.key = get_secret("datadog_api_key")',
        'remove_secret("datadog_api_key")',
        '.empty_key = get_secret("datadog_api_key")',
        'set_secret("splunk_hec_token", "iamasplunkhectoken")',
        '.splunk_hec_token = get_secret("splunk_hec_token")',
        'remove_secret("splunk_hec_token")',
        '.empty_splunk_hec_token = get_secret("splunk_hec_token")',
      ].join('\n');
      const [e] = await runTransform(source, [logEvent({})]);
      expect(e!.fields).to.deep.equal({ key: 'iamanapikey', empty_key: null, splunk_hec_token: 'iamasplunkhectoken', empty_splunk_hec_token: null });
    });

    it('secrets stay in the event metadata, apart from the event and `%`, and reach the next remap', async () => {
      const [e] = await runTransform('set_secret("token", "s3cr3t"); %seen = true', [logEvent({ a: 1 })]);
      expect(e!.fields).to.deep.equal({ a: 1 });
      expect(e!.meta.value).to.deep.equal({ seen: true });
      expect([...e!.meta.secrets!]).to.deep.equal([['token', 's3cr3t']]);
      const [next] = await runTransform('.token = get_secret("token"); .missing = get_secret("other")', [e!]);
      expect(next!.fields).to.deep.equal({ a: 1, token: 's3cr3t', missing: null });
    });

    it('a failed run leaves the secrets as they were; copies of an event keep them', async () => {
      const first = (await runTransform('set_secret("k", "v1")', [logEvent({})]))[0]!;
      const [kept] = await runTransform('set_secret("k", "v2"); .x = parse_json!("nope")', [first]);
      expect([...kept!.meta.secrets!]).to.deep.equal([['k', 'v1']]);
      expect([...kept!.meta.clone().secrets!]).to.deep.equal([['k', 'v1']]);
      const split = await runTransform('set_secret("k", "v3"); . = [{"n": 1}, {"n": 2}]', [kept!]);
      expect(split.map((x) => x.meta.secrets?.get('k'))).to.deep.equal(['v3', 'v3']);
    });

    it('set_secret and remove_secret as statements draw no unused-expression warning', () => {
      expect(compile('set_secret("a", "b")\nremove_secret("a")\n.x = 1').warnings).to.deep.equal([]);
    });

    it('names are plain keys; get_secret is infallible and typed string or null', () => {
      const r = compile('set_secret("__proto__", "p"); [get_secret("__proto__"), get_secret("toString"), type_def(get_secret("x"))]').run({});
      expect(r.ok && r.value).to.deep.equal(['p', null, { bytes: true, null: true }]);
    });

    it('a program without secret functions returns no secrets; one with them starts from the given ones', () => {
      expect(compile('.a = 1').run({}, {}, new Map([['k', 'v']])).secrets).to.equal(undefined);
      const given = new Map([['k', 'v']]);
      const r = compile('remove_secret("k"); get_secret("k")').run({}, {}, given);
      expect(r.ok && r.value).to.equal(null);
      expect([...r.secrets!]).to.deep.equal([]);
      expect([...given]).to.deep.equal([['k', 'v']]);
    });
  });

  describe('set_semantic_meaning', () => {
    it('compiles for an event or metadata field and does nothing at run time', () => {
      const r = compile('.message = "hi"\nset_semantic_meaning(.message, "message")\nset_semantic_meaning(%host, "host")').run({}, { host: 'h' });
      expect(r.ok && r.value).to.equal(null);
      expect(r.target).to.deep.equal({ message: 'hi' });
      expect(r.meta).to.deep.equal({ host: 'h' });
    });
    it('refuses a local variable, a non-literal meaning and a field known not to exist', () => {
      expect(compileError('x = {"a": 1}\nset_semantic_meaning(x.a, "m")')).to.include('semantic meaning is not valid for local variables');
      expect(compileError('set_semantic_meaning(.a, upcase(string!(.m)))')).to.include('expected a string literal');
      expect(compileError('. = {}\nset_semantic_meaning(.b, "m")')).to.include('semantic meaning defined for non-existing field').and.include('".b"');
    });
  });

  it('set_semantic_meaning: one meaning may not name two different fields in one program', () => {
    const text = compileError('.a = 1\n.b = 2\nset_semantic_meaning(.a, "host")\nset_semantic_meaning(meaning: "host", target: .b)');
    expect(text).to.include('semantic meaning referencing two different fields');
    expect(text).to.include('semantic meaning "host" must reference a single field').and.include('already referencing field ".a"');
    expect(compile('.a = 1\nset_semantic_meaning(.a, "host")\nset_semantic_meaning(.a, "host")\nset_semantic_meaning(.a, "other")').warnings).to.deep.equal([]);
  });

  describe('reverse_dns', () => {
    it("Vector's remap_function_reverse_dns behavior test: 127.0.0.1 is localhost (hosts file)", async () => {
      const [e] = await runTransform('.host = reverse_dns!(.ip)', [logEvent({ ip: '127.0.0.1' })]);
      expect(e!.fields.host).to.equal('localhost');
    });
    it('is fallible: a malformed address is an error, as is a lookup that fails', () => {
      expect(compileError('reverse_dns("127.0.0.1")')).to.include('error[E100]');
      const r = compile('reverse_dns!("not an ip")').run({});
      expect(r.ok).to.equal(false);
      expect(!r.ok && r.error).to.include('unable to parse IP address: invalid IP address syntax');
    });
    it('waits at most its timeout', () => {
      expect(() => reverseLookupSync('127.0.0.1', 50, 60_000)).to.throw('timed out after 50 ms');
      // the late answer (localhost, after 200 ms) to a timed-out lookup is dropped, not taken for
      // the next one's: ::1 answers what ::1 answers without the wait
      const outcome = (hold: number): string => {
        try {
          return `host ${reverseLookupSync('::1', 10_000, hold)}`;
        } catch (e) {
          return `error ${(e as Error).message}`;
        }
      };
      expect(() => reverseLookupSync('127.0.0.1', 10, 200)).to.throw('timed out after 10 ms');
      expect(outcome(400)).to.equal(outcome(0));
      expect(reverseLookupSync('127.0.0.1')).to.equal('localhost');
    });
  });
});
