/** The option builders of lib/config/options: each check written once, with one wording and one path. */
import { expect } from 'chai';
import * as v from 'valibot';
import { CloudwStreamSinkConfig } from '../../../connectors/sinks/cloudw_stream/config.js';
import { batchSchema } from '../../../lib/config/options/batch.js';
import { bufferSchema } from '../../../lib/config/options/buffer.js';
import { httpUrlSchema } from '../../../lib/config/options/endpoint.js';
import { fieldPathProblem, fieldPathSchema } from '../../../lib/config/options/field-path.js';
import { templateProblem, templateSchema } from '../../../lib/config/options/template.js';
import { proxySchema } from '../../../lib/config/options/proxy.js';
import { requestSchema } from '../../../lib/config/options/request.js';
import { tlsSchema, urlTlsSchema } from '../../../lib/config/options/tls.js';
import { toJsonSchema } from '../../../lib/config/json-schema.js';

/** Issues of a failing parse as `path: message` lines; [] when it passes. */
const issues = (schema: v.GenericSchema, input: unknown): string[] => {
  const r = v.safeParse(schema, input);
  return r.success ? [] : r.issues.map((i) => `${(i.path ?? []).map((p) => String(p.key)).join('.')}: ${i.message}`);
};
const at = (schema: v.GenericSchema, value: unknown) => issues(v.strictObject({ o: schema }), { o: value });

describe('lib/config/options', () => {
  describe('templateSchema', () => {
    const t = templateSchema('A template.');

    it('passes a template that compiles, static or not', () => {
      for (const ok of ['plain', '{{ host }}-%Y', '', '%%']) expect(at(t, ok), ok).to.deep.equal([]);
    });

    it('reports a malformed template with the compiler\'s reason, at the option', () => {
      expect(at(t, '{{ host')).to.deep.equal(['o: invalid template "{{ host": unclosed "{{" at 0']);
      expect(at(t, 'x-{{ }}')).to.deep.equal(['o: invalid template "x-{{ }}": empty field reference at 2']);
      expect(at(t, '%Q')).to.deep.equal(['o: invalid template "%Q": unsupported strftime specifier in "%Q"']);
      expect(at(t, '{{ a..b }}')[0]).to.match(/^o: invalid template "\{\{ a\.\.b \}\}": invalid field path "a\.\.b": invalid path/);
    });

    it('nonEmpty refuses "" with one issue, and still checks the rest', () => {
      const named = templateSchema('A name.', { nonEmpty: true });
      expect(at(named, '')).to.deep.equal(['o: must not be empty']);
      expect(at(named, '{{')).to.deep.equal(['o: invalid template "{{": unclosed "{{" at 0']);
      expect(toJsonSchema(named)).to.deep.equal({ type: 'string', minLength: 1, description: 'A name.' });
    });

    it('carries its description', () => {
      expect(toJsonSchema(t)).to.deep.equal({ type: 'string', description: 'A template.' });
    });

    it('templateProblem gives the same words for checks over several values', () => {
      expect(templateProblem('{{ a }}')).to.equal(undefined);
      expect(templateProblem('{{ a')).to.equal('invalid template "{{ a": unclosed "{{" at 0');
    });
  });

  describe('fieldPathSchema', () => {
    it('passes paths, quoted names, indexes and the root by default', () => {
      const p = fieldPathSchema('A field.');
      for (const ok of ['a', '.a.b', 'a[0]', '."odd key"', 'foo-bar', '.']) expect(at(p, ok), ok).to.deep.equal([]);
    });

    it('reports the parser\'s reason by default, including for ""', () => {
      const p = fieldPathSchema('A field.');
      expect(at(p, 'a..b')).to.deep.equal(['o: invalid path "a..b" at 2: unexpected character "."']);
      expect(at(p, '')).to.deep.equal(['o: invalid path "" at 0: empty path']);
      expect(at(p, 'a[x]')).to.deep.equal(['o: invalid path "a[x]" at 2: index must be an integer']);
    });

    it('empty gives "" one issue in its own words and a minLength in the JSON schema', () => {
      const p = fieldPathSchema('A field.', { empty: 'must name a field' });
      expect(at(p, '')).to.deep.equal(['o: must name a field']);
      expect(at(p, 'a..b')).to.deep.equal(['o: invalid path "a..b" at 2: unexpected character "."']);
      expect(toJsonSchema(p)).to.deep.equal({ type: 'string', minLength: 1, description: 'A field.' });
    });

    it('invalid and notRoot: a field list refuses the root and words every refusal alike', () => {
      const p = fieldPathSchema('A field.', { invalid: 'must be a field path', notRoot: true });
      expect(at(p, '.')).to.deep.equal(['o: must be a field path']);
      expect(at(p, '')).to.deep.equal(['o: must be a field path']);
      expect(at(p, 'a..b')).to.deep.equal(['o: must be a field path']);
      expect(at(p, 'a.b')).to.deep.equal([]);
      expect(fieldPathProblem('.', { notRoot: true })).to.equal('must name a field, not the event root "."');
    });

    it('noIndexes refuses array indexes, naming the value', () => {
      const p = fieldPathSchema('A field.', { noIndexes: true });
      expect(at(p, 'a[0]')).to.deep.equal(['o: "a[0]" must not contain array indexes']);
      expect(at(p, 'a.b')).to.deep.equal([]);
    });

    it('marker: the value may start with it and is checked without it', () => {
      const p = fieldPathSchema('A field.', { marker: '#', empty: 'must not be empty', invalid: 'must be a field path' });
      expect(at(p, '#tags.env')).to.deep.equal([]);
      expect(at(p, 'tags.env')).to.deep.equal([]);
      expect(at(p, '#a..b')).to.deep.equal(['o: must be a field path']);
      expect(at(p, '#')).to.deep.equal(['o: must be a field path']);
      expect(at(p, '')).to.deep.equal(['o: must not be empty']);
    });
  });

  describe('httpUrlSchema', () => {
    const u = httpUrlSchema('An endpoint.');

    it('passes http and https URLs in any case', () => {
      for (const ok of ['http://127.0.0.1:8080', 'https://example.com/path', 'HTTPS://EXAMPLE.COM']) expect(at(u, ok), ok).to.deep.equal([]);
    });

    it('refuses other schemes, and text that is no URL with both issues, without throwing', () => {
      expect(at(u, 'ftp://example.com')).to.deep.equal(['o: must be an http or https URL']);
      expect(at(u, 'nope')).to.deep.equal(['o: must be a URL', 'o: must be an http or https URL']);
    });

    it('names the example in both messages when given one', () => {
      const e = httpUrlSchema('An endpoint.', { example: 'http://127.0.0.1:4567' });
      expect(at(e, 'nope')).to.deep.equal(['o: must be a URL, e.g. "http://127.0.0.1:4567"', 'o: must be an http or https URL, e.g. "http://127.0.0.1:4567"']);
    });

    it('a cloud sink\'s endpoint that is no URL is a config issue, not a thrown TypeError', () => {
      const base = { type: 'cloudw_stream', inputs: ['in'], stream_name: 'events', encoding: { codec: 'json' } };
      expect(() => v.safeParse(CloudwStreamSinkConfig, { ...base, endpoint: 'nope' })).to.not.throw();
      expect(issues(CloudwStreamSinkConfig, { ...base, endpoint: 'nope' })).to.include('endpoint: must be a URL, e.g. "http://127.0.0.1:4567"');
    });
  });

  describe('tls', () => {
    it('tlsSchema takes enabled and refuses a key without a certificate', () => {
      expect(at(tlsSchema, { enabled: true, verify_hostname: false })).to.deep.equal([]);
      expect(at(tlsSchema, { key_file: 'k' })).to.deep.equal(['o.key_file: key_file requires crt_file']);
    });

    it('urlTlsSchema refuses enabled, either value, at tls itself, naming the URL option', () => {
      const s = v.strictObject({ uri: v.string(), tls: urlTlsSchema('uri') });
      expect(issues(s, { uri: 'https://h', tls: { enabled: true } })).to.deep.equal(['tls: tls.enabled does not apply to this sink: the uri scheme (https) decides']);
      expect(issues(s, { uri: 'https://h', tls: { enabled: false } })).to.have.length(1);
      expect(issues(s, { uri: 'https://h', tls: { ca_file: '/ca.pem', verify_certificate: false } })).to.deep.equal([]);
      expect(issues(s, { uri: 'https://h' })).to.deep.equal([]);
    });

    it('urlTlsSchema reports enabled also beside other problems', () => {
      const s = v.strictObject({ endpoint: httpUrlSchema('E.'), tls: urlTlsSchema('endpoint') });
      expect(issues(s, { endpoint: 'nope', tls: { enabled: true, key_file: 'k' } })).to.deep.equal([
        'endpoint: must be a URL',
        'endpoint: must be an http or https URL',
        'tls.key_file: key_file requires crt_file',
        'tls: tls.enabled does not apply to this sink: the endpoint scheme (https) decides',
      ]);
    });

    it('describes every key', () => {
      const json = toJsonSchema(urlTlsSchema('endpoint')) as { properties: Record<string, { description?: string }> };
      for (const [k, p] of Object.entries(json.properties)) expect(p.description, k).to.be.a('string').and.not.equal('');
    });
  });

  describe('option groups', () => {
    /** Every leaf key of a JSON schema object (nested objects walked) without a description. */
    const undescribed = (json: unknown, prefix = ''): string[] => {
      const node = json as { properties?: Record<string, unknown>; anyOf?: unknown[]; description?: string };
      const table = node.anyOf?.find((b) => (b as { properties?: unknown }).properties);
      if (table) return undescribed(table, prefix);
      if (!node.properties) return node.description ? [] : [prefix];
      return Object.entries(node.properties).flatMap(([k, child]) => undescribed(child, prefix ? `${prefix}.${k}` : k));
    };

    it('batch, request, buffer and proxy describe every key', () => {
      expect(undescribed(toJsonSchema(batchSchema({ timeout_secs: 1 })))).to.deep.equal([]);
      expect(undescribed(toJsonSchema(requestSchema()))).to.deep.equal([]);
      expect(undescribed(toJsonSchema(bufferSchema({ allowDiskV1: true })))).to.deep.equal([]);
      expect(undescribed(toJsonSchema(proxySchema))).to.deep.equal([]);
    });

    it('batch keeps the sink\'s defaults and leaves an unset limit out', () => {
      expect(v.parse(batchSchema({ max_events: 20, timeout_secs: 1 }), undefined)).to.deep.equal({ max_events: 20, timeout_secs: 1 });
      expect(at(batchSchema({ timeout_secs: 1 }), { timeout_secs: 0 })).to.deep.equal(['o.timeout_secs: must be greater than 0']);
    });
  });
});
