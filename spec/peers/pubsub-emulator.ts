/**
 * The real Pub/Sub emulator (Debian's google-cloud-cli-pubsub-emulator, Java) on a loopback port,
 * once per spec file, and a reader: the official @google-cloud/pubsub client through
 * PUBSUB_EMULATOR_HOST, on a subscription the test creates. The emulator keeps everything in
 * memory, so after `restart()` its topics and subscriptions must be created again.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { type Message, PubSub, type Subscription } from '@google-cloud/pubsub';
import { freePort } from '../helpers/free-port.js';

/** The project every test uses (the emulator takes any valid id). */
export const PROJECT = 'weir-test';

/** The emulator's start script; `PUBSUB_EMULATOR_BIN` overrides the lookup. */
export function pubsubEmulatorBin(): string | undefined {
  const env = process.env.PUBSUB_EMULATOR_BIN;
  if (env) return existsSync(env) ? env : undefined;
  const known = '/usr/lib/google-cloud-sdk/platform/pubsub-emulator/bin/cloud-pubsub-emulator';
  if (existsSync(known)) return known;
  try {
    return execFileSync('dpkg', ['-L', 'google-cloud-cli-pubsub-emulator'], { encoding: 'utf8' }).split('\n').find((l) => l.endsWith('bin/cloud-pubsub-emulator'));
  } catch {
    return undefined;
  }
}

/**
 * Whether the specs can run: the emulator is there. Under `CI=true` a missing emulator throws, so
 * the run fails instead of skipping (it cannot be installed from the package repositories).
 */
export function requirePubsubEmulator(): true {
  if (pubsubEmulatorBin()) return true;
  // it cannot be installed from the package repositories: say what is missing rather than skip
  throw new Error('the Pub/Sub emulator is not installed (Debian package google-cloud-cli-pubsub-emulator, with a Java 17 runtime); the cloudg_pubsub emulator specs need it');
}

export interface PubsubEmulator {
  /** host:port, as PUBSUB_EMULATOR_HOST. */
  readonly host: string;
  /** http://host:port, as the sink's `endpoint`. */
  readonly url: string;
  /** The official client, pointed at the emulator. */
  readonly client: PubSub;
  /** Creates a topic and a subscription on it; collects what arrives (acked, once per message id) into `received`. */
  topic(name: string): Promise<TopicReader>;
  /** Kills the JVM; connections to the port are refused until `restart`. */
  stop(): Promise<void>;
  /** Starts a fresh emulator on the same port (empty: no topics). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export interface TopicReader {
  readonly name: string;
  readonly subscription: Subscription;
  /** Each published message once, in arrival order. */
  readonly received: Message[];
  /** Messages the emulator delivered again (acks are asynchronous). */
  readonly redelivered: number;
  close(): Promise<void>;
}

async function waitReady(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the Pub/Sub emulator exited with ${child.exitCode}: ${log()}`);
    try {
      const res = await fetch(url);
      if ((await res.text()).trim() === 'Ok') return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the Pub/Sub emulator did not answer at ${url} within 60 s: ${log()}`);
}

/** Starts the emulator on 127.0.0.1 and a free port; resolves once `GET /` answers "Ok". */
export async function startPubsubEmulator(): Promise<PubsubEmulator> {
  const bin = pubsubEmulatorBin();
  if (!bin) throw new Error('the Pub/Sub emulator is not installed');
  const port = await freePort();
  const host = `127.0.0.1:${port}`;
  const url = `http://${host}`;
  let child: ChildProcess | undefined;
  let output = '';
  const launch = async () => {
    output = '';
    // the start script execs java, so this pid is the JVM's
    const c = spawn(bin, [`--host=127.0.0.1`, `--port=${port}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    c.stdout!.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
    c.stderr!.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
    child = c;
    await waitReady(url, c, () => output);
  };
  const kill = async () => {
    const c = child;
    child = undefined;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGKILL');
    await exited;
  };
  await launch();
  process.env.PUBSUB_EMULATOR_HOST = host;
  const client = new PubSub({ projectId: PROJECT });
  const readers: TopicReader[] = [];
  return {
    host,
    url,
    client,
    async topic(name) {
      const [topic] = await client.createTopic(name);
      const [subscription] = await topic.createSubscription(`${name}-sub`);
      const received: Message[] = [];
      const seen = new Set<string>();
      const reader = { name, subscription, received, redelivered: 0, close: () => subscription.close() };
      subscription.on('message', (m: Message) => {
        m.ack();
        // delivery to subscribers is at least once: a redelivery (same message id) is not a second publish
        if (seen.has(m.id)) reader.redelivered++;
        else {
          seen.add(m.id);
          received.push(m);
        }
      });
      subscription.on('error', () => undefined); // the stream reconnects across an emulator restart
      readers.push(reader);
      return reader;
    },
    stop: kill,
    restart: launch,
    async close() {
      for (const r of readers.splice(0)) await r.close().catch(() => undefined);
      await client.close().catch(() => undefined);
      await kill();
    },
  };
}

let shared: Promise<PubsubEmulator> | undefined;

/**
 * The process-wide emulator, started on first use and killed at exit; tests use their own topics
 * and subscriptions instead of stopping it.
 */
export function sharedPubsubEmulator(): Promise<PubsubEmulator> {
  if (!shared) {
    requirePubsubEmulator();
    const p = startPubsubEmulator();
    // a failed start is not cached: the next caller tries again and sees its own error
    p.catch(() => (shared = undefined));
    p.then((emu) => process.once('exit', () => void emu.stop()), () => undefined);
    shared = p;
  }
  return shared;
}

/** A topic and a subscription on it, made over the emulator's REST API, and publishing to the topic. */
export interface RestSubscription {
  readonly topic: string;
  readonly subscription: string;
  /** Publishes messages (data as text), in calls of at most 1000; resolves to their ids. */
  publish(messages: readonly { data: string; attributes?: Record<string, string> }[]): Promise<string[]>;
  /** Messages neither acknowledged nor in flight, asked for without waiting (a pull that takes them for 1 s and leaves them). */
  peekAvailable(): Promise<number>;
}

/** Creates `<name>-topic` and `<name>-sub` with the given acknowledgement deadline. */
export async function restSubscription(emu: Pick<PubsubEmulator, 'url'>, name: string, ackDeadlineSeconds = 600): Promise<RestSubscription> {
  const base = `${emu.url}/v1/projects/${PROJECT}`;
  const call = async (method: string, path: string, body: unknown): Promise<Record<string, unknown>> => {
    const res = await fetch(`${base}/${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  const topic = `${name}-topic`;
  const subscription = `${name}-sub`;
  await call('PUT', `topics/${topic}`, {});
  await call('PUT', `subscriptions/${subscription}`, { topic: `projects/${PROJECT}/topics/${topic}`, ackDeadlineSeconds });
  return {
    topic,
    subscription,
    async publish(messages) {
      const ids: string[] = [];
      for (let i = 0; i < messages.length; i += 1000) {
        const chunk = messages.slice(i, i + 1000).map((m) => ({ data: Buffer.from(m.data).toString('base64'), ...(m.attributes ? { attributes: m.attributes } : {}) }));
        ids.push(...((await call('POST', `topics/${topic}:publish`, { messages: chunk })).messageIds as string[]));
      }
      return ids;
    },
    async peekAvailable() {
      const got = (await call('POST', `subscriptions/${subscription}:pull`, { maxMessages: 1000, returnImmediately: true })).receivedMessages as { ackId: string }[] | undefined;
      if (!got || got.length === 0) return 0;
      await call('POST', `subscriptions/${subscription}:modifyAckDeadline`, { ackIds: got.map((m) => m.ackId), ackDeadlineSeconds: 0 });
      return got.length;
    },
  };
}
