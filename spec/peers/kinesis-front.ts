/**
 * Kinesis Data Streams for tests: kinesalite (in process, loopback) stores and serves the records,
 * and a strict front in its place does what kinesalite does not (it never checks
 * signatures and never fails a record). The front verifies SigV4 (service `kinesis`), records
 * every PutRecords call, injects faults (status, reset, stall) and fails chosen records of a
 * PutRecords call with the service's per-record answer, forwarding only the others, so what
 * kinesalite holds is exactly what the service would have stored.
 */
import { CreateStreamCommand, DescribeStreamSummaryCommand, GetRecordsCommand, GetShardIteratorCommand, KinesisClient, ListShardsCommand } from '@aws-sdk/client-kinesis';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { createRequire } from 'node:module';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type HttpPeer, type PeerRequest, type PeerResponse, json, startHttpPeer } from './http-peer.js';
import { type SigV4Key, verifySigV4 } from './sigv4.js';

/** A kinesalite server on 127.0.0.1 and a client to set streams up and read them back. */
export interface Kinesalite {
  readonly url: string;
  readonly client: KinesisClient;
  createStream(name: string, shards?: number): Promise<void>;
  /** Every record of the stream, shard by shard, in sequence order. */
  readAll(name: string): Promise<{ data: Buffer; partitionKey: string; shardId: string }[]>;
  close(): Promise<void>;
}

const kinesaliteFactory = createRequire(import.meta.url)('kinesalite') as (opts: Record<string, unknown>) => Server;

/** Starts kinesalite in memory; streams become active at once. */
export async function startKinesalite(): Promise<Kinesalite> {
  const server = kinesaliteFactory({ createStreamMs: 0, deleteStreamMs: 0, updateStreamMs: 0, shardLimit: 100 });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new KinesisClient({ endpoint: url, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' }, requestHandler: new NodeHttpHandler(), maxAttempts: 1 });
  return {
    url,
    client,
    async createStream(name, shards = 2) {
      await client.send(new CreateStreamCommand({ StreamName: name, ShardCount: shards }));
      for (let i = 0; i < 200; i++) {
        const s = await client.send(new DescribeStreamSummaryCommand({ StreamName: name }));
        if (s.StreamDescriptionSummary?.StreamStatus === 'ACTIVE') return;
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error(`stream ${name} did not become active`);
    },
    async readAll(name) {
      const out: { data: Buffer; partitionKey: string; shardId: string }[] = [];
      const shards = (await client.send(new ListShardsCommand({ StreamName: name }))).Shards ?? [];
      for (const shard of shards) {
        let iterator = (await client.send(new GetShardIteratorCommand({ StreamName: name, ShardId: shard.ShardId, ShardIteratorType: 'TRIM_HORIZON' }))).ShardIterator;
        while (iterator) {
          const res = await client.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 10_000 }));
          for (const r of res.Records ?? []) out.push({ data: Buffer.from(r.Data ?? new Uint8Array()), partitionKey: r.PartitionKey ?? '', shardId: shard.ShardId ?? '' });
          if ((res.Records ?? []).length === 0) break;
          iterator = res.NextShardIterator;
        }
      }
      return out;
    },
    async close() {
      client.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** One PutRecords call as the front saw it. */
export interface PutRecordsCall {
  readonly stream: string;
  readonly records: { readonly data: Buffer; readonly partitionKey: string }[];
  /** Indexes the front failed, with their codes. */
  readonly failed: ReadonlyMap<number, string>;
}

export interface KinesisFront extends HttpPeer {
  /** Accepted PutRecords calls (signature fine, no fault injected), in arrival order. */
  readonly puts: PutRecordsCall[];
  /** Which records of PutRecords call `n` (0-based among accepted calls) fail, and with which code. */
  failRecords: ((call: Omit<PutRecordsCall, 'failed'>, n: number) => ReadonlyMap<number, string> | undefined) | undefined;
}

const AMZ_JSON = { 'content-type': 'application/x-amz-json-1.1' };
const awsError = (status: number, type: string, message: string): PeerResponse => json(status, { __type: type, message }, AMZ_JSON);

/** Starts the front before `backend` (a kinesalite URL); clients sign with one of `keys`. */
export async function startKinesisFront(backend: string, keys: readonly SigV4Key[]): Promise<KinesisFront> {
  const puts: PutRecordsCall[] = [];
  const forward = async (req: PeerRequest, body: Buffer): Promise<PeerResponse> => {
    const headers: Record<string, string> = {};
    for (const [k, val] of Object.entries(req.headers)) if (val !== undefined && k !== 'host' && k !== 'content-length' && k !== 'connection') headers[k] = Array.isArray(val) ? val.join(',') : val;
    const res = await fetch(backend + req.path, { method: req.method, headers, body });
    return { status: res.status, body: Buffer.from(await res.arrayBuffer()), headers: { 'content-type': res.headers.get('content-type') ?? AMZ_JSON['content-type'] } };
  };
  const front: KinesisFront = Object.assign(
    await startHttpPeer(async (req) => {
      const sig = verifySigV4({ method: req.method, url: req.path, headers: req.headers, body: req.raw }, { service: 'kinesis', keys });
      if (!sig.ok) return awsError(sig.status, sig.code, sig.message);
      if (req.headers['content-type'] !== AMZ_JSON['content-type']) return awsError(400, 'SerializationException', `content type ${String(req.headers['content-type'])}`);
      if (req.headers['x-amz-target'] !== 'Kinesis_20131202.PutRecords') return forward(req, req.raw);
      const body = JSON.parse(req.raw.toString('utf8')) as { StreamName: string; Records: { Data: string; PartitionKey: string }[] };
      const records = body.Records.map((r) => ({ data: Buffer.from(r.Data, 'base64'), partitionKey: r.PartitionKey }));
      const failed = front.failRecords?.({ stream: body.StreamName, records }, puts.length) ?? new Map<number, string>();
      puts.push({ stream: body.StreamName, records, failed });
      if (failed.size === 0) return forward(req, req.raw);
      const kept = body.Records.filter((_, i) => !failed.has(i));
      let keptResults: { SequenceNumber?: string; ShardId?: string; ErrorCode?: string }[] = [];
      if (kept.length > 0) {
        const res = await forward(req, Buffer.from(JSON.stringify({ ...body, Records: kept })));
        if (res.status !== 200) return res;
        keptResults = (JSON.parse(String(res.body)) as { Records: typeof keptResults }).Records;
      }
      let k = 0;
      const results = body.Records.map((_, i) => {
        const code = failed.get(i);
        return code === undefined ? keptResults[k++] : { ErrorCode: code, ErrorMessage: code === 'ProvisionedThroughputExceededException' ? 'Rate exceeded for shard shardId-000000000000 in stream.' : 'Record failed.' };
      });
      return json(200, { FailedRecordCount: failed.size, Records: results }, AMZ_JSON);
    }),
    { puts, failRecords: undefined },
  );
  return front;
}
