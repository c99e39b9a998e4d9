import { expect } from 'chai';
import { appendFileSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { catalog, pipelineWorkerEntry } from '../../../connectors/index.js';
import { configFromObject } from '../../../lib/config/load.js';
import { LogRoot } from '../../../lib/log.js';
import { Topology } from '../../../lib/topology/topology.js';
import { type TestServer, startTestServer } from '../../helpers/http-test-server.js';
import { until } from '../../helpers/wait.js';

/** file -> remap -> http(ndjson): cut and decoded in pipeline workers with threads > 1. */
async function pipeline(threads: number, server: TestServer, dirs: { logs: string; data: string }, source: Record<string, unknown> = {}, sink: Record<string, unknown> = {}) {
  const config = configFromObject(
    {
      data_dir: dirs.data,
      sources: { in: { type: 'file', include: [join(dirs.logs, '*.log')], offset_key: 'offset', glob_minimum_cooldown_ms: 50, ...source } },
      transforms: { parse: { type: 'remap', inputs: ['in'], source: '.len = length(string!(.message))\ndel(.timestamp)' } },
      sinks: { out: { type: 'http', inputs: ['parse'], uri: server.url, encoding: { codec: 'ndjson' }, healthcheck: { enabled: false }, request: { concurrency: 1 }, ...sink } },
    },
    catalog,
  );
  const topology = new Topology({ log: new LogRoot('error', { write() {} }), threads, workerEntry: pipelineWorkerEntry });
  await topology.start(config);
  expect(topology.threadedSegments).to.equal(threads > 1 ? 1 : 0);
  return topology;
}

type Record_ = { message: string; file: string; offset: number; host: string; len: number; source_type: string };
const records = (server: TestServer) => server.requests.flatMap((r) => r.body.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record_));
const counters = ['component_received_events_total', 'component_sent_events_total', 'component_received_event_bytes_total', 'component_sent_event_bytes_total', 'component_errors_total', 'component_discarded_events_total', 'component_received_bytes_total'];

/** The lines of a file and each one's byte offset. */
function linesOf(path: string): { line: string; offset: number }[] {
  const text = readFileSync(path, 'utf8');
  const out: { line: string; offset: number }[] = [];
  let offset = 0;
  for (const line of text.split('\n').slice(0, -1)) {
    out.push({ line, offset });
    offset += Buffer.byteLength(line) + 1;
  }
  return out;
}

describe('file source in pipeline threads (docs/threads.md)', function () {
  this.timeout(120_000);
  let server: TestServer;
  let dirs: { logs: string; data: string };
  beforeEach(async () => {
    server = await startTestServer();
    dirs = { logs: mkdtempSync(join(tmpdir(), 'weir-file-threads-')), data: mkdtempSync(join(tmpdir(), 'weir-file-threads-data-')) };
  });
  afterEach(async () => {
    await server.close();
    rmSync(dirs.logs, { recursive: true, force: true });
    rmSync(dirs.data, { recursive: true, force: true });
  });

  it('delivers every line once, in file order, with the fields and counters of --threads 1; long lines discarded within and across reads', async () => {
    // lines longer than max_line_bytes (1000): 1500 bytes (within one read, or completed by the
    // next read: cut in a worker) and 5000 bytes (held past the limit across reads: on the main thread)
    const longs = new Set<number>();
    for (const [f, n] of [['a', 6000], ['b', 3000]] as const) {
      const lines: string[] = [];
      for (let i = 0; i < n; i++) {
        if (i % 500 === 250) {
          longs.add(lines.length);
          lines.push(`${f}${i} ${'x'.repeat(i % 1000 === 250 ? 1500 : 5000)}`);
        } else lines.push(i % 7 === 0 ? `${f} line ${i} ü "quoted" \\ ${'y'.repeat(i % 300)}` : `${f} line ${i} ${'z'.repeat(i % 90)}`);
      }
      writeFileSync(join(dirs.logs, `${f}.log`), `${lines.join('\n')}\n`);
    }
    const expected = 6000 + 3000 - 12 - 6;
    const results: { records: Record_[]; totals: Record<string, number> }[] = [];
    for (const threads of [1, 2]) {
      server.requests.length = 0;
      rmSync(dirs.data, { recursive: true, force: true });
      const topology = await pipeline(threads, server, dirs, { max_line_bytes: 1000, max_read_bytes: 4096 });
      await until(() => topology.registry.sum('component_sent_events_total', { component_id: 'out' }) >= expected, 60_000, 'every line sent');
      await topology.stop(5000);
      const totals: Record<string, number> = {};
      for (const id of ['in', 'parse', 'out']) for (const c of counters) totals[`${id} ${c}`] = topology.registry.sum(c, { component_id: id });
      results.push({ records: records(server), totals });
    }
    const [one, two] = results as [(typeof results)[0], (typeof results)[0]];
    expect(one.records.length).to.equal(expected);
    expect(one.totals['in component_discarded_events_total']).to.equal(18);
    expect(two.totals).to.deep.equal(one.totals);
    for (const f of ['a', 'b']) {
      const path = join(dirs.logs, `${f}.log`);
      const want = linesOf(path).filter((l) => l.line.length <= 1000);
      const got = two.records.filter((r) => r.file === path);
      // the file's lines, once each, in order, each at its byte offset
      expect(got.map((r) => [r.message, r.offset])).to.deep.equal(want.map((l) => [l.line, l.offset]));
      expect(got.map((r) => r.host)).to.deep.equal(one.records.filter((r) => r.file === path).map((r) => r.host));
      // the remap ran on each event
      expect(got.every((r) => r.source_type === 'file' && typeof r.len === 'number' && r.len > 0)).to.equal(true);
    }
    // the same records, files interleaved alike
    expect(two.records.map((r) => JSON.stringify(r)).sort()).to.deep.equal(one.records.map((r) => JSON.stringify(r)).sort());
  });

  it('without transforms, records as with --threads 1 (lines copied as they are without offset_key); an unterminated last line goes out when its file is let go', async () => {
    for (const source of [{}, { offset_key: 'offset' }, { file_key: 'path', host_key: '', offset_key: 'at' }]) {
      const results: Record_[][] = [];
      for (const threads of [1, 2]) {
        server.requests.length = 0;
        rmSync(dirs.data, { recursive: true, force: true });
        const path = join(dirs.logs, 'plain.log');
        writeFileSync(path, `${Array.from({ length: 3000 }, (_, i) => (i % 5 === 0 ? `ü "${i}"` : `plain ${i}`)).join('\n')}\nthe unterminated end`);
        const config = configFromObject(
          {
            data_dir: dirs.data,
            sources: { in: { type: 'file', include: [join(dirs.logs, '*.log')], glob_minimum_cooldown_ms: 50, ...source } },
            sinks: { out: { type: 'http', inputs: ['in'], uri: server.url, encoding: { codec: 'ndjson', except_fields: ['timestamp'] }, healthcheck: { enabled: false } } },
          },
          catalog,
        );
        const topology = new Topology({ log: new LogRoot('error', { write() {} }), threads, workerEntry: pipelineWorkerEntry });
        await topology.start(config);
        expect(topology.threadedSegments).to.equal(threads > 1 ? 1 : 0);
        await until(() => topology.registry.sum('component_sent_events_total', { component_id: 'out' }) >= 3000, 60_000, 'the terminated lines');
        // rotated away: read to its end once no discovery finds it, its last line with it
        renameSync(path, join(dirs.logs, 'plain.old'));
        await until(() => topology.registry.sum('component_sent_events_total', { component_id: 'out' }) >= 3001, 60_000, 'the last line');
        await topology.stop(5000);
        rmSync(join(dirs.logs, 'plain.old'));
        results.push(records(server));
      }
      expect(results[0]!.length).to.equal(3001);
      expect(results[0]![3000]!.message).to.equal('the unterminated end');
      // the field keys as configured ("" leaves the host out)
      const keys = 'file_key' in source ? ['at', 'message', 'path', 'source_type'] : 'offset_key' in source ? ['file', 'host', 'message', 'offset', 'source_type'] : ['file', 'host', 'message', 'source_type'];
      expect(Object.keys(results[1]![3000]!).sort()).to.deep.equal(keys);
      expect(results[1]).to.deep.equal(results[0]);
    }
  });

  it('reads gzip files as their content, offsets in decompressed bytes, as with --threads 1', async () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `zipped line ${i} ${'q'.repeat(i % 150)}`);
    writeFileSync(join(dirs.logs, 'old.log.gz'), gzipSync(`${lines.join('\n')}\n`));
    const results: Record_[][] = [];
    for (const threads of [1, 2]) {
      server.requests.length = 0;
      rmSync(dirs.data, { recursive: true, force: true });
      const topology = await pipeline(threads, server, dirs, { include: [join(dirs.logs, '*.gz')] });
      await until(() => topology.registry.sum('component_sent_events_total', { component_id: 'out' }) >= lines.length, 60_000, 'every line sent');
      await topology.stop(5000);
      results.push(records(server));
    }
    let offset = 0;
    const want = lines.map((line) => [line, (offset += Buffer.byteLength(line) + 1) - Buffer.byteLength(line) - 1]);
    expect(results[1]!.map((r) => [r.message, r.offset])).to.deep.equal(want);
    expect(results[1]).to.deep.equal(results[0]);
  });

  it('with acknowledgements the checkpoint waits for delivery; a restart resumes there, no line lost or sent twice', async () => {
    const path = join(dirs.logs, 'acked.log');
    const lines = Array.from({ length: 20_000 }, (_, i) => `acked line ${i}`);
    writeFileSync(path, `${lines.join('\n')}\n`);
    const checkpoint = () => {
      try {
        const json = JSON.parse(readFileSync(join(dirs.data, 'in', 'checkpoints.json'), 'utf8')) as { checkpoints: { position: number }[] };
        return json.checkpoints[0]?.position ?? 0;
      } catch {
        return 0;
      }
    };
    // the sink fails every request (retried): nothing is delivered, the checkpoint stays
    server.reply = () => 503;
    const sink = { acknowledgements: { enabled: true }, batch: { max_events: 1000, timeout_secs: 0.05 }, request: { concurrency: 1, retry_initial_backoff_secs: 1, retry_max_duration_secs: 1 } };
    let topology = await pipeline(2, server, dirs, {}, sink);
    await until(() => server.requests.length >= 5 && topology.registry.sum('component_received_events_total', { component_id: 'in' }) > 0, 30_000, 'requests refused');
    // checkpoints are written at least every second
    await new Promise((r) => setTimeout(r, 1500));
    expect(checkpoint()).to.equal(0);
    // delivered from now on: the checkpoint moves with the deliveries
    server.reply = () => 200;
    await until(() => checkpoint() > 0, 30_000, 'a checkpoint');
    await topology.stop(5000);
    const stoppedAt = checkpoint();
    const firstRun = new Set(records(server).map((r) => r.message));
    // what the checkpoint covers was delivered
    const covered = linesOf(path).filter((l) => l.offset < stoppedAt);
    expect(covered.every((l) => firstRun.has(l.line))).to.equal(true);

    // more lines, then a restart: it reads from the checkpoint on
    appendFileSync(path, Array.from({ length: 1000 }, (_, i) => `appended ${i}\n`).join(''));
    const before = server.requests.length;
    topology = await pipeline(2, server, dirs, {}, sink);
    await until(() => records({ ...server, requests: server.requests.slice(before) }).some((r) => r.message === 'appended 999'), 60_000, 'the appended lines');
    await topology.stop(5000);
    const second = records({ ...server, requests: server.requests.slice(before) }).map((r) => r.message);
    // the restart reads from the checkpoint: nothing it covers again, everything after it
    expect(second[0]).to.equal(linesOf(path).find((l) => l.offset === stoppedAt)!.line);
    expect(new Set(second).size).to.equal(second.length);
    const all = new Set([...firstRun, ...second]);
    expect(all.size).to.equal(21_000);
  });
});
