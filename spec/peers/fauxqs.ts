/**
 * The queue emulator (fauxqs 1.9.2, in process, on 127.0.0.1) and an official SDK client to set
 * up queues and read back what a component sent. Start once per test file.
 */
import {
  type Message,
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  SQSClient,
  SendMessageBatchCommand,
} from '@aws-sdk/client-sqs';
import { buildApp } from 'fauxqs';
import type { AddressInfo } from 'node:net';
import type { SigV4Options } from './sigv4.js';

export interface Fauxqs {
  /** `http://127.0.0.1:PORT`, the endpoint components are configured with. */
  readonly endpoint: string;
  readonly client: SQSClient;
  /** Creates a queue (`.fifo` names make FIFO queues) and returns its URL. */
  createQueue(name: string, attributes?: Record<string, string>): Promise<string>;
  /** Sends bodies in batches of 10. */
  send(queueUrl: string, bodies: readonly string[]): Promise<void>;
  /** Receives until `n` messages arrived (each deleted), or throws after `timeoutMs`. */
  receive(queueUrl: string, n: number, timeoutMs?: number): Promise<Message[]>;
  /** Visible plus in-flight messages. */
  depth(queueUrl: string): Promise<{ visible: number; inFlight: number }>;
  purge(queueUrl: string): Promise<void>;
  close(): Promise<void>;
}

/** Credentials the emulator accepts (it checks none). */
export const TEST_KEYS = { access_key_id: 'AKIDTEST', secret_access_key: 'secret' } as const;
/** The signature check a proxy in front of the emulator applies: the test keys, region us-east-1. */
export const SQS_SIGV4: SigV4Options = { service: 'sqs', region: 'us-east-1', keys: [{ accessKeyId: TEST_KEYS.access_key_id, secretAccessKey: TEST_KEYS.secret_access_key }] };

export async function startFauxqs(): Promise<Fauxqs> {
  const app = buildApp({ logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const endpoint = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const client = new SQSClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: TEST_KEYS.access_key_id, secretAccessKey: TEST_KEYS.secret_access_key } });
  return {
    endpoint,
    client,
    async createQueue(name, attributes = {}) {
      const fifo = name.endsWith('.fifo') ? { FifoQueue: 'true' } : {};
      const res = await client.send(new CreateQueueCommand({ QueueName: name, Attributes: { ...fifo, ...attributes } }));
      return res.QueueUrl!;
    },
    async send(queueUrl, bodies) {
      for (let i = 0; i < bodies.length; i += 10) {
        const entries = bodies.slice(i, i + 10).map((b, j) => ({ Id: String(j), MessageBody: b }));
        const res = await client.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
        if (res.Failed && res.Failed.length > 0) throw new Error(`send failed: ${JSON.stringify(res.Failed)}`);
      }
    },
    async receive(queueUrl, n, timeoutMs = 15_000) {
      const out: Message[] = [];
      const end = Date.now() + timeoutMs;
      while (out.length < n) {
        if (Date.now() > end) throw new Error(`received ${out.length} of ${n} messages`);
        const res = await client.send(
          new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1, MessageSystemAttributeNames: ['All'] }),
        );
        const msgs = res.Messages ?? [];
        if (msgs.length === 0) continue;
        out.push(...msgs);
        await client.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: msgs.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })) }));
      }
      return out;
    },
    async depth(queueUrl) {
      const res = await client.send(
        new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
      );
      return { visible: Number(res.Attributes?.ApproximateNumberOfMessages ?? 0), inFlight: Number(res.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0) };
    },
    async purge(queueUrl) {
      await client.send(new PurgeQueueCommand({ QueueUrl: queueUrl }));
    },
    async close() {
      client.destroy();
      await app.close();
    },
  };
}
