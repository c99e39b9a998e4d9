/**
 * A strict single-node Kafka broker for the `kafka` source and sink tests, written from Apache
 * Kafka's protocol guide and message schemas (no Kafka broker installs here). Node 1 leads every
 * partition; topics live in memory, so a broker stopped with {@link KafkaBroker.stop} and started
 * again keeps its logs, groups and committed offsets, as a restarted Kafka node keeps its disk.
 *
 * Strict means: requests are decoded field by field for the version asked (a stray or missing byte
 * fails the connection), produced batches are checked (magic 2, CRC-32C, lengths, record count,
 * codec), group requests are checked against the generation and member, an API or version it does
 * not advertise closes the connection as Kafka does, and a connection that must authenticate gets
 * nothing but ApiVersions and the SASL exchange before it has. zstd batches are refused with
 * UNSUPPORTED_COMPRESSION_TYPE (Node 20's zlib has no zstd), transactional ones as unauthorized. With
 * `tls` it serves TLS only.
 * {@link sharedKafkaBroker} starts one broker per test process.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type Server, type Socket, createServer } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { type Struct, Reader, Writer, readStruct, skipTags, writeStruct } from './kafka/codec.js';
import { type Committed, GroupCoordinator, type GroupView } from './kafka/group.js';
import { BatchError, type KafkaRecord, checkBatches, readRecords } from './kafka/records.js';
import { type SaslExchange, type SaslMechanism, saslExchange } from './kafka/sasl.js';
import { type ApiSchema, APIS, API_VERSIONS, ERR } from './kafka/schemas.js';

export type { KafkaRecord } from './kafka/records.js';

const NODE_ID = 1;
/** Kafka's `num.partitions` for topics created on first use. */
const DEFAULT_PARTITIONS = 3;

export interface KafkaBrokerOptions {
  /** Users and the mechanisms they may log in with; absent: no authentication. */
  readonly sasl?: { readonly mechanisms: readonly SaslMechanism[]; readonly users: Readonly<Record<string, string>> };
  /** Create a topic a client asks for (metadata with auto creation, as `auto.create.topics.enable`). */
  readonly autoCreateTopics?: boolean;
  /** Serve TLS with this certificate and key (PEM file paths). */
  readonly tls?: { readonly certFile: string; readonly keyFile: string };
  /** Port to listen on; 0 picks a free one (kept across stop and start). */
  readonly port?: number;
}

interface StoredBatch {
  readonly base: number;
  readonly last: number;
  readonly bytes: Buffer;
  readonly maxTimestamp: number;
}

class PartitionLog {
  readonly batches: StoredBatch[] = [];
  end = 0;

  append(bytes: Buffer, count: number, maxTimestamp: number): number {
    const base = this.end;
    bytes.writeBigInt64BE(BigInt(base), 0);
    this.batches.push({ base, last: base + count - 1, bytes, maxTimestamp });
    this.end += count;
    return base;
  }

  /** Whole batches holding `offset` and after, at least one, then up to `maxBytes`. */
  read(offset: number, maxBytes: number): Buffer[] {
    const out: Buffer[] = [];
    let size = 0;
    for (const b of this.batches) {
      if (b.last < offset) continue;
      if (out.length > 0 && size + b.bytes.length > maxBytes) break;
      out.push(b.bytes);
      size += b.bytes.length;
    }
    return out;
  }
}

interface Topic {
  readonly id: string;
  readonly partitions: PartitionLog[];
}

interface Conn {
  readonly socket: Socket;
  authenticated: boolean;
  mechanism: SaslMechanism | undefined;
  exchange: SaslExchange | undefined;
  queue: Promise<void>;
}

/** A request as the broker handles it: the decoded body, its version and the client's id. */
interface Request {
  readonly body: Struct;
  readonly version: number;
  readonly clientId: string;
  readonly conn: Conn;
}

export class KafkaBroker {
  readonly topics = new Map<string, Topic>();
  readonly groups = new GroupCoordinator();
  private server: Server | undefined;
  private readonly conns = new Set<Conn>();
  private readonly waiters = new Set<() => void>();
  private readonly users: ReadonlyMap<string, string>;
  port: number;
  /** Every request handled: API name and version (tests check which versions clients chose). */
  readonly requests: Array<{ api: string; version: number }> = [];

  constructor(private readonly options: KafkaBrokerOptions = {}) {
    this.port = options.port ?? 0;
    this.users = new Map(Object.entries(options.sasl?.users ?? {}));
  }

  /** `127.0.0.1:<port>`, the bootstrap address. */
  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const tlsFiles = this.options.tls;
    const server =
      tlsFiles === undefined
        ? createServer((socket) => this.accept(socket))
        : createTlsServer({ cert: readFileSync(tlsFiles.certFile), key: readFileSync(tlsFiles.keyFile) }, (socket) => this.accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }

  /** Closes the listener and every connection; the logs, groups and offsets stay for {@link start}. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const c of this.conns) c.socket.destroy();
    this.conns.clear();
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Stops and forgets the group timers (end of a test run). */
  async close(): Promise<void> {
    await this.stop();
    this.groups.close();
  }

  createTopic(name: string, partitions: number): void {
    if (this.topics.has(name)) throw new Error(`topic ${name} exists`);
    this.topics.set(name, { id: randomBytes(16).toString('hex'), partitions: Array.from({ length: partitions }, () => new PartitionLog()) });
  }

  /** Every record of a topic partition, decoded. */
  records(topic: string, partition: number): KafkaRecord[] {
    const log = this.topics.get(topic)?.partitions[partition];
    if (log === undefined) throw new Error(`no partition ${topic}/${partition}`);
    return log.batches.flatMap((b) => readRecords(b.bytes, b.base));
  }

  /** Every record of a topic, with its partition. */
  allRecords(topic: string): Array<KafkaRecord & { partition: number }> {
    const t = this.topics.get(topic);
    if (t === undefined) return [];
    return t.partitions.flatMap((_, p) => this.records(topic, p).map((r) => ({ ...r, partition: p })));
  }

  /** The log end offset of a partition. */
  endOffset(topic: string, partition: number): number {
    return this.topics.get(topic)?.partitions[partition]?.end ?? 0;
  }

  committed(group: string): ReadonlyMap<string, Committed> {
    return this.groups.committed(group);
  }

  group(id: string): GroupView | undefined {
    return this.groups.view(id);
  }

  private accept(socket: Socket): void {
    const conn: Conn = { socket, authenticated: this.options.sasl === undefined, mechanism: undefined, exchange: undefined, queue: Promise.resolve() };
    this.conns.add(conn);
    socket.setNoDelay(true);
    let pending: Buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      while (pending.length >= 4) {
        const size = pending.readInt32BE(0);
        if (size < 0 || size > 100 * 1024 * 1024) return this.drop(conn, `frame size ${size}`);
        if (pending.length < 4 + size) break;
        const frame = pending.subarray(4, 4 + size);
        pending = pending.subarray(4 + size);
        // one request at a time per connection, answered in order, as Kafka does
        conn.queue = conn.queue.then(() => this.handle(conn, frame)).catch((err: unknown) => this.drop(conn, (err as Error).message));
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => this.conns.delete(conn));
  }

  private drop(conn: Conn, why: string): void {
    if (process.env.KAFKA_BROKER_DEBUG) process.stderr.write(`kafka-broker: closing a connection: ${why}\n`);
    conn.socket.destroy();
  }

  private async handle(conn: Conn, frame: Buffer): Promise<void> {
    if (conn.socket.destroyed) return;
    const r = new Reader(frame);
    const key = r.int16();
    const version = r.int16();
    const correlationId = r.int32();
    const idLength = r.int16();
    const clientId = idLength < 0 ? '' : r.raw(idLength).toString('utf8');
    const api = APIS.get(key);
    if (api === undefined) return this.drop(conn, `API key ${key} is not served`);
    if (version < api.min || version > api.max) {
      if (api === API_VERSIONS) return this.send(conn, correlationId, api, 0, { error_code: ERR.UNSUPPORTED_VERSION, api_keys: this.apiKeys() });
      return this.drop(conn, `${api.name} v${version} is not advertised (v${api.min}-${api.max})`);
    }
    const flexible = version >= api.flexibleFrom;
    if (flexible) skipTags(r);
    const body = readStruct(r, api.request, version, flexible);
    if (r.remaining !== 0) return this.drop(conn, `${api.name} v${version}: ${r.remaining} bytes after the request`);
    this.requests.push({ api: api.name, version });
    if (!conn.authenticated && api.key !== 18 && api.key !== 17 && api.key !== 36) return this.drop(conn, `${api.name} before authentication`);
    const response = await this.dispatch(api, { body, version, clientId, conn });
    if (response !== null) this.send(conn, correlationId, api, version, response);
    if (response !== null && api.key === 36 && response.error_code !== 0) conn.socket.end();
  }

  private send(conn: Conn, correlationId: number, api: ApiSchema, version: number, body: Struct): void {
    const w = new Writer();
    w.int32(0).int32(correlationId);
    const flexible = version >= api.flexibleFrom;
    // ApiVersions answers with header v0 whatever its version, so any client can read it
    if (flexible && api !== API_VERSIONS) w.uvarint(0);
    writeStruct(w, api.response, body, version, flexible);
    const out = w.done();
    out.writeInt32BE(out.length - 4, 0);
    if (!conn.socket.destroyed) conn.socket.write(out);
  }

  private apiKeys(): Struct[] {
    return [...APIS.values()].map((a) => ({ api_key: a.key, min_version: a.min, max_version: a.max }));
  }

  private dispatch(api: ApiSchema, req: Request): Promise<Struct | null> | Struct | null {
    switch (api.name) {
      case 'ApiVersions':
        return { error_code: 0, api_keys: this.apiKeys(), throttle_time_ms: 0 };
      case 'Metadata':
        return this.metadata(req);
      case 'Produce':
        return this.produce(req);
      case 'Fetch':
        return this.fetch(req);
      case 'ListOffsets':
        return this.listOffsets(req);
      case 'FindCoordinator':
        return this.findCoordinator(req);
      case 'JoinGroup':
        return new Promise((resolve) => this.groups.group(req.body.group_id as string).join(req.body, req.version, req.clientId, resolve));
      case 'SyncGroup':
        return this.sync(req);
      case 'Heartbeat': {
        const g = this.groups.find(req.body.group_id as string);
        return { error_code: g === undefined ? ERR.UNKNOWN_MEMBER_ID : g.heartbeat(req.body) };
      }
      case 'LeaveGroup':
        return this.leave(req);
      case 'OffsetCommit':
        return this.offsetCommit(req);
      case 'OffsetFetch':
        return this.offsetFetch(req);
      case 'SaslHandshake':
        return this.saslHandshake(req);
      case 'SaslAuthenticate':
        return this.saslAuthenticate(req);
      default:
        throw new Error(`${api.name} has no handler`);
    }
  }

  private metadata({ body, version }: Request): Struct {
    const asked = body.topics as Array<{ name: string | null }> | null;
    // before v4 the broker's own setting decides; from v4 the client says whether to create
    const create = this.options.autoCreateTopics === true && (version < 4 || body.allow_auto_topic_creation === true);
    const names = asked === null ? [...this.topics.keys()] : asked.map((t) => t.name ?? '');
    const topics = names.map((name) => {
      if (!this.topics.has(name) && create && validTopic(name)) this.createTopic(name, DEFAULT_PARTITIONS);
      const t = this.topics.get(name);
      if (t === undefined) return { error_code: validTopic(name) ? ERR.UNKNOWN_TOPIC_OR_PARTITION : ERR.INVALID_TOPIC_EXCEPTION, name, is_internal: false, partitions: [], topic_authorized_operations: -2147483648 };
      return {
        error_code: 0,
        name,
        topic_id: t.id,
        is_internal: false,
        partitions: t.partitions.map((_, i) => ({ error_code: 0, partition_index: i, leader_id: NODE_ID, leader_epoch: 0, replica_nodes: [NODE_ID], isr_nodes: [NODE_ID], offline_replicas: [] })),
        topic_authorized_operations: -2147483648,
      };
    });
    return {
      throttle_time_ms: 0,
      brokers: [{ node_id: NODE_ID, host: '127.0.0.1', port: this.port, rack: null }],
      cluster_id: 'weir-test-cluster',
      controller_id: NODE_ID,
      topics,
      cluster_authorized_operations: -2147483648,
    };
  }

  private produce({ body }: Request): Struct | null {
    const acks = body.acks as number;
    const answer = (code: number, message: string | null = null, base = -1) => ({ error_code: code, base_offset: base, log_append_time_ms: -1, log_start_offset: 0, record_errors: [], error_message: message });
    const responses = (body.topic_data as Array<{ name: string; partition_data: Array<{ index: number; records: Buffer | null }> }>).map((t) => ({
      name: t.name,
      partition_responses: t.partition_data.map((p) => {
        const partition = { index: p.index };
        if (acks !== 0 && acks !== 1 && acks !== -1) return { ...partition, ...answer(ERR.INVALID_REQUIRED_ACKS) };
        if (body.transactional_id !== null) return { ...partition, ...answer(ERR.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, 'transactions are not supported by this broker') };
        const log = this.topics.get(t.name)?.partitions[p.index];
        if (log === undefined) return { ...partition, ...answer(ERR.UNKNOWN_TOPIC_OR_PARTITION) };
        if (p.records === null) return { ...partition, ...answer(ERR.CORRUPT_MESSAGE, 'null records') };
        try {
          const batches = checkBatches(p.records);
          const base = batches.map((b) => log.append(b.bytes, b.count, b.maxTimestamp))[0]!;
          return { ...partition, ...answer(0, null, base) };
        } catch (err) {
          if (err instanceof BatchError) return { ...partition, ...answer(err.code, err.message) };
          throw err;
        }
      }),
    }));
    for (const wake of [...this.waiters]) wake();
    return acks === 0 ? null : { responses, throttle_time_ms: 0 };
  }

  private async fetch({ body }: Request): Promise<Struct> {
    const sessionEpoch = (body.session_epoch as number | undefined) ?? -1;
    if ((body.session_id as number | undefined) !== undefined && (body.session_id !== 0 || (sessionEpoch !== -1 && sessionEpoch !== 0)))
      // this broker creates no fetch sessions, so a client can only ask for full fetches
      return { throttle_time_ms: 0, error_code: ERR.FETCH_SESSION_ID_NOT_FOUND, session_id: 0, responses: [] };
    const topics = body.topics as Array<{ topic?: string; topic_id?: string; partitions: Array<{ partition: number; fetch_offset: number; partition_max_bytes: number }> }>;
    // from v13 topics are named by id
    const byId = new Map([...this.topics].map(([name, t]) => [t.id, name]));
    const collect = () => {
      let size = 0;
      const responses = topics.map((t) => ({
        topic: t.topic,
        topic_id: t.topic_id,
        partitions: t.partitions.map((p) => {
          const name = t.topic ?? byId.get(t.topic_id ?? '');
          const log = name === undefined ? undefined : this.topics.get(name)?.partitions[p.partition];
          const base = { partition_index: p.partition, last_stable_offset: log?.end ?? -1, log_start_offset: 0, aborted_transactions: null, preferred_read_replica: -1 };
          if (log === undefined) return { ...base, error_code: name === undefined ? ERR.UNKNOWN_TOPIC_ID : ERR.UNKNOWN_TOPIC_OR_PARTITION, high_watermark: -1, records: null };
          if (p.fetch_offset > log.end || p.fetch_offset < 0) return { ...base, error_code: ERR.OFFSET_OUT_OF_RANGE, high_watermark: log.end, records: null };
          const batches = log.read(p.fetch_offset, p.partition_max_bytes);
          const records: Buffer = Buffer.concat(batches);
          size += records.length;
          return { ...base, error_code: 0, high_watermark: log.end, records };
        }),
      }));
      return { size, responses };
    };
    let result = collect();
    const deadline = Date.now() + (body.max_wait_ms as number);
    while (result.size < Math.max(1, body.min_bytes as number) && Date.now() < deadline && !this.isStopped()) {
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, Math.max(0, deadline - Date.now()));
        this.waiters.add(wake);
      });
      result = collect();
    }
    return { throttle_time_ms: 0, error_code: 0, session_id: 0, responses: result.responses };
  }

  private isStopped(): boolean {
    return this.server === undefined;
  }

  private listOffsets({ body }: Request): Struct {
    const topics = (body.topics as Array<{ name: string; partitions: Array<{ partition_index: number; timestamp: number }> }>).map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => {
        const log = this.topics.get(t.name)?.partitions[p.partition_index];
        if (log === undefined) return { partition_index: p.partition_index, error_code: ERR.UNKNOWN_TOPIC_OR_PARTITION, timestamp: -1, offset: -1, leader_epoch: -1 };
        let offset: number;
        if (p.timestamp === -1) offset = log.end;
        else if (p.timestamp === -2) offset = 0;
        else offset = readAll(log).find((r) => r.timestamp >= p.timestamp)?.offset ?? log.end;
        return { partition_index: p.partition_index, error_code: 0, timestamp: -1, offset, leader_epoch: 0 };
      }),
    }));
    return { throttle_time_ms: 0, topics };
  }

  private findCoordinator({ body, version }: Request): Struct {
    const keyType = (body.key_type as number | undefined) ?? 0;
    const where = { node_id: NODE_ID, host: '127.0.0.1', port: this.port };
    // group coordinators only: transaction coordinators (key type 1) are not served
    const error = keyType === 0 ? ERR.NONE : ERR.COORDINATOR_NOT_AVAILABLE;
    if (version >= 4)
      return { throttle_time_ms: 0, coordinators: (body.coordinator_keys as string[]).map((key) => ({ key, ...where, error_code: error, error_message: error === 0 ? null : 'only group coordinators' })) };
    return { throttle_time_ms: 0, error_code: error, error_message: null, ...where };
  }

  private sync(req: Request): Promise<Struct> {
    const g = this.groups.find(req.body.group_id as string);
    if (g === undefined) return Promise.resolve({ error_code: ERR.UNKNOWN_MEMBER_ID, assignment: Buffer.alloc(0) });
    return new Promise((resolve) => g.sync(req.body, resolve));
  }

  private leave({ body, version }: Request): Struct {
    const g = this.groups.find(body.group_id as string);
    const ids = version >= 3 ? (body.members as Array<{ member_id: string; group_instance_id: string | null }>) : [{ member_id: body.member_id as string, group_instance_id: null }];
    const members = ids.map((m) => ({ ...m, error_code: g === undefined ? ERR.UNKNOWN_MEMBER_ID : g.leave(m.member_id) }));
    return { throttle_time_ms: 0, error_code: version >= 3 ? 0 : members[0]!.error_code, members };
  }

  private offsetCommit({ body, version }: Request): Struct {
    const group = body.group_id as string;
    const error = group === '' ? ERR.INVALID_GROUP_ID : this.groups.group(group).commitError(body, version);
    const topics = (body.topics as Array<{ name: string; partitions: Array<{ partition_index: number; committed_offset: number; committed_metadata: string | null }> }>).map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => {
        let code: number = error;
        if (code === 0 && this.topics.get(t.name)?.partitions[p.partition_index] === undefined) code = ERR.UNKNOWN_TOPIC_OR_PARTITION;
        if (code === 0) this.groups.group(group).offsets.set(`${t.name}/${p.partition_index}`, { offset: p.committed_offset, metadata: p.committed_metadata });
        return { partition_index: p.partition_index, error_code: code };
      }),
    }));
    return { throttle_time_ms: 0, topics };
  }

  private offsetFetch({ body, version }: Request): Struct {
    const one = (group: string, asked: Array<{ name: string; partition_indexes: number[] }> | null) => {
      const committed = this.groups.committed(group);
      const list =
        asked ??
        [...new Set([...committed.keys()].map((k) => k.slice(0, k.lastIndexOf('/'))))].map((name) => ({
          name,
          partition_indexes: [...committed.keys()].filter((k) => k.startsWith(`${name}/`)).map((k) => Number(k.slice(name.length + 1))),
        }));
      return list.map((t) => ({
        name: t.name,
        partitions: t.partition_indexes.map((p) => {
          const c = committed.get(`${t.name}/${p}`);
          return { partition_index: p, committed_offset: c?.offset ?? -1, committed_leader_epoch: -1, metadata: c?.metadata ?? '', error_code: 0 };
        }),
      }));
    };
    if (version >= 8)
      return {
        throttle_time_ms: 0,
        groups: (body.groups as Array<{ group_id: string; topics: Array<{ name: string; partition_indexes: number[] }> | null }>).map((g) => ({ group_id: g.group_id, topics: one(g.group_id, g.topics), error_code: 0 })),
      };
    return { throttle_time_ms: 0, topics: one(body.group_id as string, body.topics as Array<{ name: string; partition_indexes: number[] }> | null), error_code: 0 };
  }

  private saslHandshake({ body, conn, version }: Request): Struct {
    // v0 is followed by raw SASL frames outside Kafka's framing, which this broker does not read
    if (version === 0) throw new Error('SaslHandshake v0 (raw SASL frames) is not served');
    const offered = this.options.sasl?.mechanisms ?? [];
    const mechanism = body.mechanism as SaslMechanism;
    if (conn.authenticated || !offered.includes(mechanism)) return { error_code: conn.authenticated ? ERR.ILLEGAL_SASL_STATE : ERR.UNSUPPORTED_SASL_MECHANISM, mechanisms: [...offered] };
    conn.mechanism = mechanism;
    conn.exchange = saslExchange(mechanism, this.users);
    return { error_code: 0, mechanisms: [...offered] };
  }

  private saslAuthenticate({ body, conn }: Request): Struct {
    if (conn.exchange === undefined) return { error_code: ERR.ILLEGAL_SASL_STATE, error_message: 'SaslAuthenticate before SaslHandshake', auth_bytes: Buffer.alloc(0), session_lifetime_ms: 0 };
    const step = conn.exchange.step(body.auth_bytes as Buffer);
    if (process.env.KAFKA_BROKER_DEBUG) process.stderr.write(`sasl: ${(body.auth_bytes as Buffer).toString()} -> ${JSON.stringify(step)}\n`);
    if ('error' in step) return { error_code: ERR.SASL_AUTHENTICATION_FAILED, error_message: step.error, auth_bytes: Buffer.alloc(0), session_lifetime_ms: 0 };
    if (step.done) {
      conn.authenticated = true;
      conn.exchange = undefined;
    }
    return { error_code: 0, error_message: null, auth_bytes: step.reply, session_lifetime_ms: 0 };
  }
}

function validTopic(name: string): boolean {
  return /^[a-zA-Z0-9._-]{1,249}$/.test(name) && name !== '.' && name !== '..';
}

function readAll(log: PartitionLog): KafkaRecord[] {
  return log.batches.flatMap((b) => readRecords(b.bytes, b.base));
}

/** Starts a broker on a free loopback port. */
export async function startKafkaBroker(options: KafkaBrokerOptions = {}): Promise<KafkaBroker> {
  const broker = new KafkaBroker(options);
  await broker.start();
  return broker;
}

/** The users of the shared broker's SASL instance. */
export const KAFKA_USER = { username: 'weir', password: 'weir-secret' } as const;

const shared = new Map<string, Promise<KafkaBroker>>();

/** One broker per test process and mode (open, or SASL PLAIN/SCRAM), closed at exit. */
export function sharedKafkaBroker(mode: 'open' | 'sasl' = 'open'): Promise<KafkaBroker> {
  let p = shared.get(mode);
  if (p === undefined) {
    p = startKafkaBroker(
      mode === 'sasl' ? { sasl: { mechanisms: ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'], users: { [KAFKA_USER.username]: KAFKA_USER.password } } } : { autoCreateTopics: true },
    );
    shared.set(mode, p);
    p.then((b) => process.once('exit', () => void b.close()), () => undefined);
  }
  return p;
}
