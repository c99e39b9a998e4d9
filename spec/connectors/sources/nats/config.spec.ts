/** The nats source's options, and what `weir validate` says about them. */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import * as v from 'valibot';
import { validateCommand } from '../../../../bin/cli/validate.js';
import { NatsSourceConfig } from '../../../../connectors/sources/nats/config.js';

const base = { type: 'nats', url: 'nats://127.0.0.1:4222', connection_name: 'weir', subject: 'logs.>' };
const dir = mkdtempSync(join(tmpdir(), 'weir-nats-validate-'));
let n = 0;

/** Runs `weir validate` on a config of a nats source `in` (TOML lines) and a nats sink `out` (TOML lines). */
async function validate(source: string, sink = 'url = "nats://127.0.0.1:4222"\nsubject = "x"\nencoding.codec = "json"'): Promise<{ code: number; out: string }> {
  const file = join(dir, `c${n++}.toml`);
  writeFileSync(file, `[sources.in]\ntype = "nats"\n${source}\n\n[sinks.out]\ntype = "nats"\ninputs = ["in"]\n${sink}\n`);
  let out = '';
  const w = new Writable({
    write(chunk, _enc, cb) {
      out += chunk;
      cb();
    },
  });
  const code = await validateCommand({ files: [file], environment: false, skipHealthchecks: true, denyWarnings: false }, w);
  return { code, out };
}

describe('nats source options', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('defaults as Vector does: subject field "subject", bytes decoding and framing, pulls of 200 without a byte limit', () => {
    const c = v.parse(NatsSourceConfig, base);
    expect(c.subject_key_field).to.equal('subject');
    expect(c.decoding).to.deep.equal({ codec: 'bytes' });
    expect(c.queue).to.equal(undefined);
    expect(c.jetstream).to.equal(undefined);
    expect(v.parse(NatsSourceConfig, { ...base, jetstream: { stream: 'S', consumer: 'C' } }).jetstream).to.deep.equal({
      stream: 'S',
      consumer: 'C',
      batch_config: { batch: 200, max_bytes: 0 },
    });
  });

  it('refuses a jetstream without its stream or consumer, and unknown options', () => {
    expect(v.safeParse(NatsSourceConfig, { ...base, jetstream: { stream: 'S' } }).success).to.equal(false);
    expect(v.safeParse(NatsSourceConfig, { ...base, subscriber_capacity: 10 }).success).to.equal(false);
    expect(v.safeParse(NatsSourceConfig, { ...base, subject_key_field: 'a..b' }).success).to.equal(false);
  });

  it('weir validate names a missing url, subject and connection_name of the source, and url and subject of the sink', async () => {
    const r = await validate('', 'encoding.codec = "json"');
    expect(r.code).to.equal(78);
    for (const key of ['sources.in.url', 'sources.in.subject', 'sources.in.connection_name', 'sinks.out.url', 'sinks.out.subject']) expect(r.out).to.include(key);
    const ok = await validate('url = "nats://127.0.0.1:4222"\nconnection_name = "weir"\nsubject = "a.*"');
    expect(ok.code, ok.out).to.equal(0);
  });

  it('weir validate locates a bad server address and an unknown auth strategy', async () => {
    const r = await validate('url = "nats://a:4222,http://b"\nconnection_name = "weir"\nsubject = "a"\nauth.strategy = "kerberos"');
    expect(r.code).to.equal(78);
    expect(r.out).to.match(/sources\.in\.url: "http:\/\/b": the scheme must be nats:\/\/ or tls:\/\//);
    expect(r.out).to.match(/sources\.in\.auth\.strategy: strategy must be/);
  });
});
