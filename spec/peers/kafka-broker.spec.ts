/**
 * The test broker against two independent clients, before any weir test trusts it: Debian's kcat
 * (librdkafka 2.0, the classic encodings) and @platformatic/kafka (the flexible encodings), as
 * producers, plain consumers and group members, with compression, keys, headers, SASL, and the
 * rebalance of a two-member group. And its strictness: a corrupt batch, an unadvertised version.
 */
import { spawn } from 'node:child_process';
import { Socket } from 'node:net';
import { expect } from 'chai';
import { Consumer, type MessagesStream, Producer, stringDeserializers, stringSerializers } from '@platformatic/kafka';
import { describeKafkaError } from '../../connectors/shared/kafka/client.js';
import { KCAT, ensureKcat, kcat } from './kcat.js';
import { KAFKA_USER, type KafkaBroker, sharedKafkaBroker } from './kafka-broker.js';
import { BatchError, checkBatches, crc32c } from './kafka/records.js';


async function until(check: () => boolean, what: string, limitMs = 20_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

let topicCount = 0;
const topicName = (what: string) => `broker-${what}-${process.pid}-${++topicCount}`;

describe('test peer: Kafka broker', function () {
  this.timeout(120_000);
  let broker: KafkaBroker;
  before(async () => {
    broker = await sharedKafkaBroker();
  });

  it('kcat lists the metadata: one broker leading every partition', async () => {
    const topic = topicName('meta');
    broker.createTopic(topic, 3);
    const { stdout } = await kcat(['-b', broker.address, '-L', '-t', topic]);
    expect(stdout).to.contain('broker 1 at 127.0.0.1');
    expect(stdout).to.contain(`topic "${topic}" with 3 partitions`);
  });

  for (const codec of ['none', 'gzip', 'snappy', 'lz4'])
    it(`stores kcat's ${codec} batches with keys and headers, and kcat reads them back`, async () => {
      const topic = topicName(codec);
      broker.createTopic(topic, 2);
      // values long enough that librdkafka keeps the compressed form
      const lines = Array.from({ length: 20 }, (_, i) => `key${i % 4}:value-${i}-${'x'.repeat(200)}`);
      const produced = await kcat(['-b', broker.address, '-P', '-t', topic, '-K:', '-H', 'origin=kcat', '-z', codec], `${lines.join('\n')}\n`);
      expect(produced.code, produced.stderr).to.equal(0);
      const stored = broker.allRecords(topic);
      expect(stored).to.have.length(20);
      expect(stored.every((r) => r.headers.length === 1 && r.headers[0]![0] === 'origin' && r.headers[0]![1]!.toString() === 'kcat')).to.equal(true);
      // the same key always lands in the same partition
      const partitionOf = new Map<string, Set<number>>();
      for (const r of stored) partitionOf.set(r.key!.toString(), (partitionOf.get(r.key!.toString()) ?? new Set()).add(r.partition));
      expect([...partitionOf.values()].every((s) => s.size === 1)).to.equal(true);
      const read = await kcat(['-b', broker.address, '-C', '-t', topic, '-e', '-f', '%k=%s\n']);
      expect(read.stdout.trim().split('\n').sort()).to.deep.equal(lines.map((l) => l.replace(':', '=')).sort());
    });

  it('refuses a batch whose CRC does not match, and closes a connection asking an unadvertised version', async () => {
    const topic = topicName('strict');
    broker.createTopic(topic, 1);
    const p = new Producer({ clientId: 'strict', bootstrapBrokers: [broker.address], serializers: stringSerializers, retries: 0 });
    await p.send({ messages: [{ topic, key: 'a', value: 'ok', partition: 0 }] });
    await p.close();
    expect(broker.records(topic, 0)).to.have.length(1);
    const batch = broker.records(topic, 0);
    expect(batch[0]!.value!.toString()).to.equal('ok');
    expect(crc32c(Buffer.from('123456789'))).to.equal(0xe3069283); // the CRC-32C check value
    // Produce v2 (message sets) is below the advertised range: the broker hangs up
    const socket = new Socket();
    await new Promise<void>((resolve) => socket.connect(broker.port, '127.0.0.1', resolve));
    const body = Buffer.alloc(14);
    body.writeInt32BE(10, 0);
    body.writeInt16BE(0, 4);
    body.writeInt16BE(2, 6);
    body.writeInt32BE(7, 8);
    body.writeInt16BE(-1, 12);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write(body);
    await closed;
  });

  it('refuses a produced batch with a corrupt CRC with CORRUPT_MESSAGE', async () => {
    const topic = topicName('crc');
    broker.createTopic(topic, 1);
    const p = new Producer({ clientId: 'crc', bootstrapBrokers: [broker.address], serializers: stringSerializers });
    await p.send({ messages: [{ topic, value: 'v', partition: 0 }] });
    await p.close();
    const good = Buffer.from(broker.topics.get(topic)!.partitions[0]!.batches[0]!.bytes);
    expect(checkBatches(good)).to.have.length(1);
    good.writeUInt8(good.readUInt8(good.length - 1) ^ 0xff, good.length - 1);
    expect(() => checkBatches(good)).to.throw(BatchError).with.property('code', 2);
  });

  it('serves the JS client: produce with gzip, then a group of two splits the partitions and the survivor takes over', async () => {
    const topic = topicName('js-group');
    broker.createTopic(topic, 4);
    const producer = new Producer({ clientId: 'js', bootstrapBrokers: [broker.address], serializers: stringSerializers, compression: 'gzip' });
    const send = (from: number, n: number) => producer.send({ messages: Array.from({ length: n }, (_, i) => ({ topic, key: `k${(from + i) % 8}`, value: `v${from + i}`, headers: { h: 'x' } })) });
    await send(0, 40);
    const seen: Array<{ who: string; partition: number; value: string }> = [];
    const member = async (who: string) => {
      const c = new Consumer({ clientId: who, groupId: `${topic}-g`, bootstrapBrokers: [broker.address], deserializers: stringDeserializers, sessionTimeout: 6000, heartbeatInterval: 200 });
      const s: MessagesStream<string, string, string, string> = await c.consume({ topics: [topic], mode: 'committed', fallbackMode: 'earliest', autocommit: false, maxWaitTime: 200 });
      s.on('data', (m) => {
        seen.push({ who, partition: m.partition, value: m.value });
        void m.commit();
      });
      return { c, s };
    };
    const a = await member('a');
    await until(() => seen.length === 40, 'the first member to read everything');
    const b = await member('b');
    await until(() => broker.group(`${topic}-g`)?.members.length === 2 && broker.group(`${topic}-g`)?.state === 'Stable' && (a.c.assignments?.[0]?.partitions.length ?? 0) === 2, 'the group to split');
    expect([...a.c.assignments![0]!.partitions, ...b.c.assignments![0]!.partitions].sort()).to.deep.equal([0, 1, 2, 3]);
    await send(40, 40);
    const unique = () => new Set(seen.map((s) => s.value)).size;
    await until(() => unique() === 80, 'the second round');
    const second = seen.filter((s) => Number(s.value.slice(1)) >= 40);
    expect(new Set(second.map((s) => s.who))).to.deep.equal(new Set(['a', 'b']));
    // each member read the partitions it was given (a fetch under way at the rebalance may add a few of the other's)
    expect(second.filter((s) => a.c.assignments![0]!.partitions.includes(s.partition)).every((s) => s.who === 'a') || second.length > 40).to.equal(true);
    await a.s.close();
    await a.c.close();
    await until(() => broker.group(`${topic}-g`)?.members.length === 1 && broker.group(`${topic}-g`)?.state === 'Stable', 'the survivor to own the group');
    await send(80, 40);
    await until(() => unique() === 120, 'the third round');
    expect(seen.filter((s) => Number(s.value.slice(1)) >= 80).every((s) => s.who === 'b')).to.equal(true);
    await b.s.close();
    await b.c.close();
    await producer.close();
  });

  it('serves a kcat group consumer (-G) reading what the JS client produced', async () => {
    const topic = topicName('kcat-group');
    broker.createTopic(topic, 3);
    const producer = new Producer({ clientId: 'js', bootstrapBrokers: [broker.address], serializers: stringSerializers });
    await producer.send({ messages: Array.from({ length: 30 }, (_, i) => ({ topic, key: `k${i}`, value: `v${i}`, headers: { n: String(i) } })) });
    await producer.close();
    ensureKcat();
    const child = spawn(KCAT, ['-b', broker.address, '-u', '-G', `${topic}-g`, '-o', 'beginning', '-f', '%k %s %h\n', topic]);
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    try {
      await until(() => out.trim().split('\n').length >= 30, 'kcat to read 30 records');
    } finally {
      child.kill('SIGTERM');
    }
    const lines = out.trim().split('\n');
    expect(new Set(lines)).to.have.property('size', 30);
    expect(lines).to.include('k7 v7 n=7');
    expect(broker.group(`${topic}-g`)).to.not.equal(undefined);
  });

  describe('with SASL', () => {
    let secure: KafkaBroker;
    before(async () => {
      secure = await sharedKafkaBroker('sasl');
      secure.createTopic('sasl-topic', 1);
    });

    for (const mechanism of ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'] as const) {
      it(`${mechanism}: kcat and the JS client log in; a wrong password gets the broker's error`, async () => {
        const ok = await kcat(['-b', secure.address, '-X', 'security.protocol=SASL_PLAINTEXT', '-X', `sasl.mechanisms=${mechanism}`, '-X', `sasl.username=${KAFKA_USER.username}`, '-X', `sasl.password=${KAFKA_USER.password}`, '-L']);
        expect(ok.stdout).to.contain('topic "sasl-topic"');
        const producer = new Producer({ clientId: 'sasl', bootstrapBrokers: [secure.address], serializers: stringSerializers, sasl: { mechanism, username: KAFKA_USER.username, password: KAFKA_USER.password } });
        await producer.send({ messages: [{ topic: 'sasl-topic', value: mechanism }] });
        await producer.close();
        const bad = new Producer({ clientId: 'sasl', bootstrapBrokers: [secure.address], serializers: stringSerializers, retries: 0, sasl: { mechanism, username: KAFKA_USER.username, password: 'wrong' } });
        const err = await bad.metadata({ topics: ['sasl-topic'] }).then(() => undefined, (e: unknown) => e as Error);
        await bad.close();
        expect(err).to.be.instanceOf(Error);
        expect(describeKafkaError(err)).to.match(/Authentication failed/);
      });
    }

    it('answers nothing but the SASL exchange before a client logged in', async () => {
      const before = secure.records('sasl-topic', 0).length;
      const r = await kcat(['-b', secure.address, '-m', '3000', '-L'], undefined, 6000);
      expect(r.stdout).to.not.contain('sasl-topic');
      expect(secure.records('sasl-topic', 0)).to.have.length(before);
    });
  });
});
