/**
 * The planner of threaded segments (docs/threads.md): which chains it takes, which it leaves on the
 * main thread, and what of each member's options a worker receives. It asks the component
 * definitions, so these cases pin what the catalog's socket source, remap and filter transforms
 * and http sink declare.
 */
import { expect } from 'chai';
import { catalog } from '../../../connectors/index.js';
import { configFromObject } from '../../../lib/config/load.js';
import { planSegments, workerOptions } from '../../../lib/threads/plan.js';
import { buildGraph } from '../../../lib/topology/graph.js';

const SOCKET = { type: 'socket', mode: 'tcp', address: '127.0.0.1:9000' };
const HTTP = { type: 'http', uri: 'http://127.0.0.1:9/', encoding: { codec: 'ndjson' }, healthcheck: { enabled: false } };

/** A graph of the given sections (each component's `inputs` as written). */
function graphOf(sections: Record<string, unknown>) {
  const { graph, problems } = buildGraph(configFromObject(sections, catalog));
  expect(problems).to.deep.equal([]);
  return graph!;
}

/** source `in` -> transforms (in order) -> sink `out`. */
function chain(source: Record<string, unknown>, transforms: Record<string, unknown>[], sink: Record<string, unknown> = HTTP) {
  const named: Record<string, unknown> = {};
  let at = 'in';
  transforms.forEach((t, i) => {
    named[`t${i}`] = { ...t, inputs: [at] };
    at = `t${i}`;
  });
  return graphOf({ sources: { in: source }, ...(transforms.length > 0 ? { transforms: named } : {}), sinks: { out: { ...sink, inputs: [at] } } });
}

const plan = (source: Record<string, unknown>, transforms: Record<string, unknown>[] = [], sink?: Record<string, unknown>) =>
  planSegments(chain(source, transforms, sink)).get('in');

describe('threads: segment planner', () => {
  it('takes socket (tcp, unix_stream) -> remap | filter -> http with a memory buffer', () => {
    const p = plan(SOCKET, [{ type: 'remap', source: '.a = 1' }, { type: 'filter', condition: '.a == 1' }]);
    expect(p).to.include({ source: 'in', sink: 'out' });
    expect(p!.transforms).to.deep.equal(['t0', 't1']);
    expect(plan({ type: 'socket', mode: 'unix_stream', path: '/tmp/weir-plan.sock' })).to.include({ source: 'in', sink: 'out' });
    expect(plan(SOCKET)!.transforms).to.deep.equal([]);
    expect(plan(SOCKET, [], { ...HTTP, buffer: { type: 'memory', max_events: 10 } })).to.not.equal(undefined);
  });

  it('takes explicit newline framing, even for the native codec', () => {
    expect(plan({ ...SOCKET, framing: { method: 'newline_delimited' } })).to.not.equal(undefined);
    expect(plan({ ...SOCKET, decoding: { codec: 'native' }, framing: { method: 'newline_delimited' } })).to.not.equal(undefined);
    expect(plan({ ...SOCKET, decoding: { codec: 'json' } })).to.not.equal(undefined);
  });

  it('leaves datagrams, other framings and client certificate metadata on the main thread', () => {
    expect(plan({ type: 'socket', mode: 'udp', address: '127.0.0.1:9000' })).to.equal(undefined);
    // native decoding defaults to length-delimited frames
    expect(plan({ ...SOCKET, decoding: { codec: 'native' } })).to.equal(undefined);
    expect(plan({ ...SOCKET, framing: { method: 'octet_counting' } })).to.equal(undefined);
    expect(plan({ ...SOCKET, framing: { method: 'character_delimited', character_delimited: { delimiter: ';' } } })).to.equal(undefined);
    expect(plan({ ...SOCKET, tls: { client_metadata_key: 'client' } })).to.equal(undefined);
  });

  it('takes http_server with newline framing (text, ndjson, json lines) and gives a worker only its codec and request-field options', () => {
    const HS = { type: 'http_server', address: '127.0.0.1:9001' };
    expect(plan(HS, [{ type: 'remap', source: '.a = 1' }])).to.include({ source: 'in', sink: 'out' });
    expect(plan({ ...HS, encoding: 'ndjson' })).to.not.equal(undefined);
    expect(plan({ ...HS, decoding: { codec: 'json' } })).to.not.equal(undefined);
    // a whole body as one event: nothing to cut into lines
    expect(plan({ ...HS, encoding: 'json' })).to.equal(undefined);
    expect(plan({ ...HS, framing: { method: 'bytes' } })).to.equal(undefined);
    const g = chain({ ...HS, decoding: { codec: 'json' }, auth: { username: 'u', password: 'p' }, headers: ['x-a'] }, []);
    expect(Object.keys(workerOptions(g.nodes.get('in')!.config) as object).sort()).to.deep.equal(['decoding', 'host_key', 'path_key']);
  });

  it('takes file with UTF-8 newline-ended lines, one event each, and gives a worker only its field keys and line limit', () => {
    const FILE = { type: 'file', include: ['/tmp/weir-plan/*.log'] };
    expect(plan(FILE, [{ type: 'remap', source: '.a = 1' }])).to.include({ source: 'in', sink: 'out' });
    expect(plan({ ...FILE, encoding: { charset: 'utf8' } })).to.not.equal(undefined);
    // held lines, their timeout, other charsets and delimiters stay on the main thread
    expect(plan({ ...FILE, multiline: { start_pattern: '^x', condition_pattern: '^x', mode: 'halt_before', timeout_ms: 100 } })).to.equal(undefined);
    expect(plan({ ...FILE, message_start_indicator: '^x' })).to.equal(undefined);
    expect(plan({ ...FILE, encoding: { charset: 'utf-16le' } })).to.equal(undefined);
    expect(plan({ ...FILE, encoding: { charset: 'windows-1252' } })).to.equal(undefined);
    expect(plan({ ...FILE, line_delimiter: '\r\n' })).to.equal(undefined);
    const g = chain({ ...FILE, offset_key: 'off', host_key: 'h', max_read_bytes: 8192, oldest_first: true }, []);
    expect(workerOptions(g.nodes.get('in')!.config)).to.deep.equal({ file_key: 'file', host_key: 'h', offset_key: 'off', max_line_bytes: 102_400 });
  });

  it('leaves other sources, transforms and sinks, rerouting remaps and disk buffers on the main thread', () => {
    expect(plan({ type: 'stdin' })).to.equal(undefined);
    expect(plan({ type: 'demo_logs', format: 'json' })).to.equal(undefined);
    expect(plan(SOCKET, [{ type: 'remap', source: '.a = 1', reroute_dropped: true }])).to.equal(undefined);
    expect(plan(SOCKET, [{ type: 'throttle', threshold: 10, window_secs: 1 }])).to.equal(undefined);
    expect(plan(SOCKET, [{ type: 'remap', source: '.a = 1' }, { type: 'reduce' }])).to.equal(undefined);
    expect(plan(SOCKET, [], { type: 'blackhole', print_interval_secs: 0 })).to.equal(undefined);
    expect(plan(SOCKET, [], { type: 'socket', mode: 'tcp', address: '127.0.0.1:9', encoding: { codec: 'native' } })).to.equal(undefined);
    expect(plan(SOCKET, [], { type: 'file', path: '/tmp/x.log', encoding: { codec: 'text' } })).to.equal(undefined);
    expect(plan(SOCKET, [], { ...HTTP, buffer: { type: 'disk', max_size: 268_435_488 } })).to.equal(undefined);
    const chained = [{ type: 'memory', when_full: 'overflow' }, { type: 'disk', max_size: 268_435_488 }];
    expect(plan(SOCKET, [], { ...HTTP, buffer: chained }), 'a memory stage overflowing to disk').to.equal(undefined);
  });

  it('takes the object-storage sinks and gives a worker their codec and key-prefix options, not their credentials', () => {
    const S3 = { type: 'cloudw_object_storage', bucket: 'logs', region: 'us-east-1', key_prefix: '{{ tenant }}/', auth: { access_key_id: 'k', secret_access_key: 's' }, encoding: { codec: 'ndjson' }, healthcheck: { enabled: false } };
    const GCS = { type: 'cloudg_object_storage', bucket: 'logs', credentials_path: '/dev/null', encoding: { codec: 'text' }, healthcheck: { enabled: false } };
    for (const sink of [S3, GCS]) {
      const graph = chain(SOCKET, [{ type: 'remap', source: '.a = 1' }], sink);
      expect(planSegments(graph).get('in'), sink.type).to.include({ sink: 'out' });
      const of = workerOptions(graph.nodes.get('out')!.config) as Record<string, unknown>;
      expect(of, sink.type).to.include.keys('encoding', 'key_prefix', 'filename_time_format');
      expect(of, sink.type).to.not.have.any.keys('auth', 'bucket', 'credentials_path', 'batch', 'request');
    }
    expect(plan(SOCKET, [], { ...S3, buffer: { type: 'disk', max_size: 268_435_488 } })).to.equal(undefined);
  });

  it('takes the socket sink with a text codec and gives a worker its codec and framing', () => {
    const graph = chain(SOCKET, [], { type: 'socket', mode: 'tcp', address: '127.0.0.1:9', encoding: { codec: 'json' }, framing: { method: 'length_delimited' } });
    expect(planSegments(graph).get('in')).to.include({ sink: 'out' });
    expect(workerOptions(graph.nodes.get('out')!.config)).to.have.all.keys('encoding', 'framing');
    expect(plan(SOCKET, [], { type: 'socket', mode: 'tcp', address: '127.0.0.1:9', encoding: { codec: 'text' } }), 'a copy of each line').to.equal(undefined);
    expect(plan(SOCKET, [{ type: 'remap', source: '.a = 1' }], { type: 'socket', mode: 'tcp', address: '127.0.0.1:9', encoding: { codec: 'text' } })).to.include({ sink: 'out' });
  });

  it('takes the kafka sink with a text codec and gives a worker its codec, topic, key and headers options', () => {
    const KAFKA = { type: 'kafka', bootstrap_servers: '127.0.0.1:9092', topic: 'logs-{{ app }}', key_field: 'user', headers_key: 'meta', encoding: { codec: 'json' }, healthcheck: { enabled: false } };
    const graph = chain(SOCKET, [], KAFKA);
    expect(planSegments(graph).get('in')).to.include({ sink: 'out' });
    expect(workerOptions(graph.nodes.get('out')!.config)).to.have.all.keys('encoding', 'topic', 'key_field', 'headers_key');
    expect(plan(SOCKET, [], { ...KAFKA, encoding: { codec: 'native' } }), 'a binary codec').to.equal(undefined);
  });

  it('leaves a chain that only copies each message (bytes in, text out, no transform) on the main thread', () => {
    const TEXT_KAFKA = { type: 'kafka', bootstrap_servers: '127.0.0.1:9092', topic: 'logs', encoding: { codec: 'text' }, healthcheck: { enabled: false } };
    expect(plan(SOCKET, [], TEXT_KAFKA)).to.equal(undefined);
    expect(plan(SOCKET, [], { ...HTTP, encoding: { codec: 'text' } })).to.equal(undefined);
    expect(plan({ type: 'file', include: ['/tmp/*.log'] }, [], { ...HTTP, encoding: { codec: 'text' } })).to.equal(undefined);
    // any per-event work: a transform, a decoding codec, an encoding that writes more than the message
    expect(plan(SOCKET, [{ type: 'remap', source: '.a = 1' }], TEXT_KAFKA)).to.include({ sink: 'out' });
    expect(plan({ ...SOCKET, decoding: { codec: 'json' } }, [], TEXT_KAFKA)).to.include({ sink: 'out' });
    expect(plan(SOCKET, [], { ...TEXT_KAFKA, encoding: { codec: 'json' } })).to.include({ sink: 'out' });
  });

  it('leaves fan-out and fan-in on the main thread', () => {
    const fanOut = graphOf({ sources: { in: SOCKET }, sinks: { a: { ...HTTP, inputs: ['in'] }, b: { ...HTTP, inputs: ['in'] } } });
    expect(planSegments(fanOut).size).to.equal(0);
    const fanIn = graphOf({ sources: { in: SOCKET, other: { type: 'stdin' } }, sinks: { out: { ...HTTP, inputs: ['in', 'other'] } } });
    expect(planSegments(fanIn).size).to.equal(0);
  });

  it("changes a segment's signature when a member's options change", () => {
    const a = plan(SOCKET, [{ type: 'remap', source: '.a = 1' }])!;
    const b = plan(SOCKET, [{ type: 'remap', source: '.a = 2' }])!;
    expect(a.signature).to.not.equal(b.signature);
    expect(plan(SOCKET, [{ type: 'remap', source: '.a = 1' }])!.signature).to.equal(a.signature);
  });

  it("gives a worker only the source's and the sink's framing and codec options, and a transform's all", () => {
    const graph = chain(
      { ...SOCKET, host_key: 'h', max_length: 500, connection_limit: 3 },
      [{ type: 'remap', source: '.a = 1' }],
      { ...HTTP, encoding: { codec: 'json' }, payload_prefix: '{"e":', payload_suffix: '}', batch: { max_events: 5 } },
    );
    const of = (id: string) => workerOptions(graph.nodes.get(id)!.config) as Record<string, unknown>;
    expect(of('in')).to.have.all.keys('decoding', 'host_key', 'max_length');
    expect(of('in')).to.include({ host_key: 'h', max_length: 500 });
    expect(of('out')).to.have.all.keys('encoding', 'framing', 'payload_prefix', 'payload_suffix');
    expect(of('out')).to.include({ payload_prefix: '{"e":', payload_suffix: '}' });
    expect(of('t0')).to.equal(graph.nodes.get('t0')!.config.options);
  });
});
