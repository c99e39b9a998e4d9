/**
 * The three brokers a group of weir processes consumes from, each giving a fresh consumer per run
 * (a JetStream durable consumer, a Pub/Sub subscription, an SQS queue) with `redeliverSecs` as
 * its acknowledgement deadline, the source TOML that reads it, and a publisher.
 */
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { AckPolicy, type NatsConnection, connect, nanos } from 'nats';
import { type Fauxqs, TEST_KEYS, startFauxqs } from '../../peers/fauxqs.js';
import { sharedNatsServer } from '../../peers/nats-server.js';
import { type PubsubEmulator, restSubscription, sharedPubsubEmulator } from '../../peers/pubsub-emulator.js';

/** One consumer to share: the `[sources.in]` TOML and how to fill it. */
export interface SharedConsumer {
  readonly sourceToml: string;
  publish(bodies: readonly string[]): Promise<void>;
}

export interface Broker {
  readonly name: string;
  start(): Promise<void>;
  consumer(redeliverSecs: number): Promise<SharedConsumer>;
  close(): Promise<void>;
}

/** Runs `task` over `items` with at most `n` at once. */
async function parallel<T>(items: readonly T[], n: number, task: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (next < items.length) await task(items[next++]!);
  }));
}

const chunks = <T>(xs: readonly T[], size: number): T[][] => Array.from({ length: Math.ceil(xs.length / size) }, (_, i) => xs.slice(i * size, (i + 1) * size));

export function natsBroker(): Broker {
  let url = '';
  let nc: NatsConnection | undefined;
  let k = 0;
  return {
    name: 'one JetStream durable consumer (nats source)',
    async start() {
      url = (await sharedNatsServer('users')).url;
      nc = await connect({ servers: url });
    },
    async consumer(redeliverSecs) {
      const n = `SCALE${k++}_${process.pid}`;
      const jsm = await nc!.jetstreamManager();
      await jsm.streams.add({ name: n, subjects: [`${n}.>`] });
      await jsm.consumers.add(n, { durable_name: 'weir', ack_policy: AckPolicy.Explicit, ack_wait: nanos(redeliverSecs * 1000), max_ack_pending: 10_000 });
      const js = nc!.jetstream();
      return {
        sourceToml: `[sources.in]\ntype = "nats"\nurl = "${url}"\nconnection_name = "weir-scale"\nsubject = "${n}.>"\njetstream.stream = "${n}"\njetstream.consumer = "weir"\n`,
        publish: (bodies) => parallel(chunks(bodies, 500), 4, (c) => Promise.all(c.map((b) => js.publish(`${n}.x`, new TextEncoder().encode(b))))),
      };
    },
    close: async () => void (await nc?.close()),
  };
}

export function pubsubBroker(): Broker {
  let emu: PubsubEmulator | undefined;
  let k = 0;
  return {
    name: 'one Pub/Sub subscription (cloudg_pubsub source)',
    async start() {
      emu = await sharedPubsubEmulator();
    },
    async consumer(redeliverSecs) {
      const s = await restSubscription(emu!, `scale${k++}`, redeliverSecs);
      return {
        sourceToml: `[sources.in]\ntype = "cloudg_pubsub"\nproject = "weir-test"\nsubscription = "${s.subscription}"\nendpoint = "${emu!.url}"\napi_key = "test-key"\nack_deadline_secs = ${redeliverSecs}\n`,
        publish: (bodies) => parallel(chunks(bodies, 1000), 4, (c) => s.publish(c.map((data) => ({ data })))),
      };
    },
    close: async () => {},
  };
}

export function sqsBroker(): Broker {
  let sqs: Fauxqs | undefined;
  let k = 0;
  return {
    name: 'one SQS queue (cloudw_queue source)',
    async start() {
      sqs = await startFauxqs();
    },
    async consumer(redeliverSecs) {
      const url = await sqs!.createQueue(`scale${k++}`);
      return {
        sourceToml: `[sources.in]\ntype = "cloudw_queue"\nqueue_url = "${url}"\nendpoint = "${sqs!.endpoint}"\nregion = "us-east-1"\nauth.access_key_id = "${TEST_KEYS.access_key_id}"\nauth.secret_access_key = "${TEST_KEYS.secret_access_key}"\npoll_secs = 1\nvisibility_timeout_secs = ${redeliverSecs}\nclient_concurrency = 4\n`,
        publish: (bodies) =>
          parallel(chunks(bodies, 10), 8, async (c) => {
            const res = await sqs!.client.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: c.map((b, j) => ({ Id: String(j), MessageBody: b })) }));
            if (res.Failed && res.Failed.length > 0) throw new Error(`send failed: ${JSON.stringify(res.Failed)}`);
          }),
      };
    },
    close: async () => void (await sqs?.close()),
  };
}
