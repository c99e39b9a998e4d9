/**
 * The `kafka` source and sink in the real daemon against the repository's test broker
 * (spec/peers/kafka-broker.ts, started once for this file), with kcat (librdkafka) on the other
 * side: Vector's fields on records kcat produced, offsets committed only after delivery across a
 * kill -9, two daemons sharing a group, and `weir validate` naming missing options.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { freePort } from '../helpers/free-port.js';
import { type WeirProcess, runWeir, startWeir } from '../helpers/weir-process.js';
import { type KafkaBroker, sharedKafkaBroker } from '../peers/kafka-broker.js';
import { kcat } from '../peers/kcat.js';

async function until(check: () => boolean, what: string, limitMs = 60_000, proc?: WeirProcess): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${proc ? `\n${proc.stderr().slice(-3000)}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const lines = (path: string): Array<Record<string, unknown>> =>
  existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
    : [];

let serial = 0;

describe('kafka source and sink in the daemon (test broker, kcat)', function () {
  this.timeout(180_000);
  let broker: KafkaBroker;
  let dir: string;
  const running: WeirProcess[] = [];
  before(async () => {
    broker = await sharedKafkaBroker();
    dir = mkdtempSync(join(tmpdir(), 'weir-kafka-'));
  });
  afterEach(() => {
    for (const p of running.splice(0)) p.child.kill('SIGKILL');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const name = (what: string) => `it-${what}-${process.pid}-${++serial}`;
  const sourceToml = (id: string, topic: string, group: string, extra = '') =>
    [`[sources.${id}]`, 'type = "kafka"', `bootstrap_servers = "${broker.address}"`, `topics = ["${topic}"]`, `group_id = "${group}"`, 'auto_offset_reset = "earliest"', 'commit_interval_ms = 200', 'session_timeout_ms = 3000', extra].join('\n');
  const fileSink = (input: string, path: string) => [`[sinks.out]`, 'type = "file"', `inputs = ["${input}"]`, `path = "${path}"`, 'encoding.codec = "json"', 'acknowledgements.enabled = true'].join('\n');
  const start = (config: string) => {
    const cfg = join(dir, `${name('cfg')}.toml`);
    writeFileSync(cfg, config);
    const p = startWeir(['--config', cfg]);
    running.push(p);
    return p;
  };

  it('source: records kcat produced (keys, headers) arrive with Vector\'s fields', async () => {
    const topic = name('fields');
    broker.createTopic(topic, 2);
    const produced = await kcat(['-b', broker.address, '-P', '-t', topic, '-K:', '-H', 'trace=abc', '-H', 'tenant=t1'], 'k1:first\nk2:second\n');
    expect(produced.code, produced.stderr).to.equal(0);
    const out = join(dir, `${topic}.json`);
    const p = start(`${sourceToml('in', topic, `${topic}-g`)}\n\n${fileSink('in', out)}\n`);
    await until(() => lines(out).length === 2, 'two events', 60_000, p);
    const events = lines(out).sort((a, b) => String(a.message).localeCompare(String(b.message)));
    const first = events[0]!;
    expect(first.message).to.equal('first');
    expect(first.message_key).to.equal('k1');
    expect(first.topic).to.equal(topic);
    expect(first.headers).to.deep.equal({ trace: 'abc', tenant: 't1' });
    expect(first.source_type).to.equal('kafka');
    expect(first.offset).to.equal(0);
    expect([0, 1]).to.include(first.partition);
    expect(Date.parse(String(first.timestamp))).to.be.closeTo(Date.now(), 120_000);
  });

  it('source: a failing sink, kill -9, a restart with a healthy sink: every record arrives and no offset passed an undelivered one', async () => {
    const topic = name('acks');
    const group = `${topic}-g`;
    broker.createTopic(topic, 3);
    const input = Array.from({ length: 30 }, (_, i) => `k${i}:record-${i}`).join('\n');
    expect((await kcat(['-b', broker.address, '-P', '-t', topic, '-K:'], `${input}\n`)).code).to.equal(0);
    const closed = await freePort();
    const failing = [`[sinks.out]`, 'type = "http"', 'inputs = ["in"]', `uri = "http://127.0.0.1:${closed}/"`, 'encoding.codec = "json"', 'acknowledgements.enabled = true', 'healthcheck.enabled = false'].join('\n');
    const first = start(`${sourceToml('in', topic, group)}\n\n${failing}\n`);
    await until(() => broker.group(group)?.state === 'Stable', 'the first daemon to join', 60_000, first);
    // many commit intervals pass with nothing delivered: nothing may be committed
    await new Promise((r) => setTimeout(r, 2_000));
    expect([...broker.committed(group)]).to.deep.equal([]);
    first.child.kill('SIGKILL');
    await first.exited;
    const out = join(dir, `${topic}.json`);
    const second = start(`${sourceToml('in', topic, group)}\n\n${fileSink('in', out)}\n`);
    await until(() => new Set(lines(out).map((e) => e.message)).size === 30, 'all 30 records', 90_000, second);
    await until(() => [0, 1, 2].every((p) => broker.committed(group).get(`${topic}/${p}`)?.offset === broker.endOffset(topic, p) - 1 || broker.endOffset(topic, p) === 0), 'the offsets to be committed', 30_000, second);
    expect(lines(out)).to.have.length(30);
  });

  it('source: two daemons in one group split the partitions, and one leaving hands its partitions over with nothing lost', async () => {
    const topic = name('group');
    const group = `${topic}-g`;
    broker.createTopic(topic, 4);
    const [outA, outB] = [join(dir, `${topic}-a.json`), join(dir, `${topic}-b.json`)];
    const a = start(`${sourceToml('in', topic, group)}\n\n${fileSink('in', outA)}\n`);
    await until(() => broker.group(group)?.state === 'Stable' && broker.group(group)?.members.length === 1, 'the first member', 60_000, a);
    const b = start(`${sourceToml('in', topic, group)}\n\n${fileSink('in', outB)}\n`);
    await until(() => broker.group(group)?.state === 'Stable' && broker.group(group)?.members.length === 2, 'the second member', 60_000, b);
    // time for both to fetch from their new partitions
    await new Promise((r) => setTimeout(r, 1_000));
    const produce = async (from: number) =>
      expect((await kcat(['-b', broker.address, '-P', '-t', topic, '-K:'], `${Array.from({ length: 40 }, (_, i) => `key${from + i}:r${from + i}`).join('\n')}\n`)).code).to.equal(0);
    await produce(0);
    const all = () => [...lines(outA), ...lines(outB)];
    await until(() => new Set(all().map((e) => e.message)).size === 40, 'the first 40 records', 60_000, b);
    expect(all()).to.have.length(40);
    expect(lines(outA).length).to.be.greaterThan(0);
    expect(lines(outB).length).to.be.greaterThan(0);
    // each partition read by one daemon
    const partitionsA = new Set(lines(outA).map((e) => e.partition));
    expect(lines(outB).some((e) => partitionsA.has(e.partition))).to.equal(false);
    a.child.kill('SIGTERM');
    await a.exited;
    await until(() => broker.group(group)?.state === 'Stable' && broker.group(group)?.members.length === 1, 'the survivor to own every partition', 60_000, b);
    await produce(40);
    await until(() => new Set(all().map((e) => e.message)).size === 80, 'all 80 records', 60_000, b);
    const late = lines(outB).filter((e) => Number(String(e.message).slice(1)) >= 40);
    expect(new Set(late.map((e) => e.message)).size).to.equal(40);
  });

  it('sink: the daemon writes a socket\'s lines to Kafka, read back once each with kcat', async () => {
    const topic = name('sink');
    broker.createTopic(topic, 3);
    const port = await freePort();
    const p = start(
      [
        '[sources.in]',
        'type = "socket"',
        'mode = "tcp"',
        `address = "127.0.0.1:${port}"`,
        '',
        '[sinks.k]',
        'type = "kafka"',
        'inputs = ["in"]',
        `bootstrap_servers = "${broker.address}"`,
        `topic = "${topic}"`,
        'key_field = "message"',
        'encoding.codec = "text"',
        'compression = "gzip"',
        '',
      ].join('\n'),
    );
    const { connect } = await import('node:net');
    await until(() => /started|Started|listening/i.test(p.stderr() + p.stdout()), 'the daemon to start', 60_000, p);
    await new Promise<void>((resolve, reject) => {
      const attempt = (left: number) => {
        const s = connect(port, '127.0.0.1', () => {
          s.end(`${Array.from({ length: 25 }, (_, i) => `line-${i}`).join('\n')}\n`);
          resolve();
        });
        s.on('error', (err) => (left > 0 ? setTimeout(() => attempt(left - 1), 200) : reject(err)));
      };
      attempt(50);
    });
    await until(() => broker.allRecords(topic).length === 25, '25 records', 60_000, p);
    const read = await kcat(['-b', broker.address, '-C', '-t', topic, '-e', '-f', '%k %s\n']);
    const got = read.stdout.trim().split('\n').sort();
    expect(got).to.deep.equal(Array.from({ length: 25 }, (_, i) => `line-${i} line-${i}`).sort());
  });

  it('weir validate refuses a missing bootstrap_servers, topic or group_id, naming the option', async () => {
    const cases: Array<[string, string]> = [
      ['[sources.in]\ntype = "kafka"\ntopics = ["t"]\ngroup_id = "g"\n[sinks.out]\ntype = "blackhole"\ninputs = ["in"]\n', 'bootstrap_servers'],
      ['[sources.in]\ntype = "kafka"\nbootstrap_servers = "h:9092"\ntopics = ["t"]\n[sinks.out]\ntype = "blackhole"\ninputs = ["in"]\n', 'group_id'],
      ['[sources.in]\ntype = "stdin"\n[sinks.out]\ntype = "kafka"\ninputs = ["in"]\nbootstrap_servers = "h:9092"\nencoding.codec = "json"\n', 'topic'],
      ['[sources.in]\ntype = "stdin"\n[sinks.out]\ntype = "kafka"\ninputs = ["in"]\ntopic = "t"\nencoding.codec = "json"\n', 'bootstrap_servers'],
    ];
    for (const [config, option] of cases) {
      const cfg = join(dir, `${name('validate')}.toml`);
      writeFileSync(cfg, config);
      const r = await runWeir(['validate', '--no-environment', cfg]);
      expect(r.code, r.stdout + r.stderr).to.not.equal(0);
      expect(r.stdout + r.stderr).to.match(new RegExp(`\\.${option}\\b`));
    }
  });
});
