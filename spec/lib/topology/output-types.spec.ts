/**
 * Output types as the graph check sees them. A decoding source's follows its codec: the native
 * codecs carry events of any type, so a metrics-only sink takes them; every other codec makes
 * logs, which such a sink refuses. Transforms type their outputs as Vector's do.
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { validateCommand } from '../../../bin/cli/validate.js';
import { catalog } from '../../../connectors/index.js';
import { DECODING_CODECS, decodingOutputType } from '../../../lib/codecs/index.js';
import { configFromObject } from '../../../lib/config/load.js';
import { outputsOf } from '../../../lib/topology/graph.js';

const dir = mkdtempSync(join(tmpdir(), 'weir-output-types-'));

/** The options each decoding source needs besides `decoding`. */
const SOURCES: Record<string, Record<string, unknown>> = {
  stdin: {},
  socket: { mode: 'tcp', address: '127.0.0.1:0' },
  demo_logs: { format: 'json' },
  cloudw_queue: { queue_url: 'http://127.0.0.1:9324/000000000000/q', region: 'us-east-1' },
};

/** The codecs a source's schema allows. */
const CODECS: Record<string, readonly string[]> = {
  stdin: DECODING_CODECS,
  socket: DECODING_CODECS,
  demo_logs: DECODING_CODECS,
  cloudw_queue: ['bytes', 'json', 'syslog'],
};

/** Every metrics-only sink, with the options it needs to validate. */
const METRIC_SINKS: Record<string, string> = {
  tsdb_metrics: 'endpoint = "http://127.0.0.1:8086"\ndatabase = "db"',
  siem_hec_metrics: 'endpoint = "http://127.0.0.1:8088"\ndefault_token = "t"',
  logsvc_metrics: 'endpoint = "http://127.0.0.1:8080"\ntoken = "t"',
  cloudw_monitor_metrics: 'region = "eu-west-1"\ndefault_namespace = "app"',
};

let n = 0;
async function validate(text: string): Promise<{ code: number; out: string }> {
  const file = join(dir, `c${n++}.toml`);
  writeFileSync(file, text);
  let out = '';
  const sink = new Writable({
    write(chunk, _enc, cb) {
      out += chunk;
      cb();
    },
  });
  const code = await validateCommand({ files: [file], environment: false, skipHealthchecks: true, denyWarnings: false }, sink);
  return { code, out };
}

describe('lib/topology: a decoding source emits what its codec makes', () => {
  it('decodingOutputType: native and native_json emit any event type, every other codec logs', () => {
    const types = Object.fromEntries(DECODING_CODECS.map((codec) => [codec, decodingOutputType({ codec })]));
    expect(types).to.deep.equal({ bytes: 'log', json: 'log', syslog: 'log', native_json: 'any', native: 'any' });
  });

  for (const [type, options] of Object.entries(SOURCES)) {
    it(`${type}: one default output whose type follows decoding.codec (default bytes: logs)`, () => {
      const outputType = (decoding: Record<string, unknown> | undefined) => {
        const config = configFromObject(
          { sources: { in: { type, ...options, ...(decoding ? { decoding } : {}) } }, sinks: { out: { type: 'blackhole', inputs: ['in'] } } },
          catalog,
        );
        const outs = outputsOf(config.components.get('in')!);
        expect(outs).to.have.length(1);
        expect(outs[0]!.name).to.equal(undefined);
        return outs[0]!.type;
      };
      expect(outputType(undefined)).to.equal('log');
      const got = Object.fromEntries(CODECS[type]!.map((codec) => [codec, outputType({ codec })]));
      const want = Object.fromEntries(CODECS[type]!.map((codec) => [codec, codec === 'native' || codec === 'native_json' ? 'any' : 'log']));
      expect(got).to.deep.equal(want);
    });
  }

  for (const [sink, options] of Object.entries(METRIC_SINKS)) {
    it(`weir validate accepts stdin (native_json) -> ${sink}`, async () => {
      const { code, out } = await validate(`[sources.in]\ntype = "stdin"\ndecoding.codec = "native_json"\n\n[sinks.out]\ntype = "${sink}"\ninputs = ["in"]\n${options}\n`);
      expect(code, out).to.equal(0);
      expect(out).to.not.include('data type mismatch');
    });
  }

  it('weir validate accepts socket (native) -> tsdb_metrics', async () => {
    const { code, out } = await validate(`[sources.in]\ntype = "socket"\nmode = "tcp"\naddress = "127.0.0.1:0"\ndecoding.codec = "native"\n\n[sinks.out]\ntype = "tsdb_metrics"\ninputs = ["in"]\n${METRIC_SINKS.tsdb_metrics}\n`);
    expect(code, out).to.equal(0);
  });

  it('weir validate still refuses stdin (bytes) -> tsdb_metrics, with the data type message', async () => {
    const { code, out } = await validate(`[sources.in]\ntype = "stdin"\ndecoding.codec = "bytes"\n\n[sinks.out]\ntype = "tsdb_metrics"\ninputs = ["in"]\n${METRIC_SINKS.tsdb_metrics}\n`);
    expect(code).to.equal(78);
    expect(out).to.include('sinks.out.inputs[0]: data type mismatch: "in" emits log events but tsdb_metrics accepts only metric events');
  });

  it('weir validate refuses json and syslog sources into a metrics sink, and lets native_json feed a log-only transform', async () => {
    for (const codec of ['json', 'syslog']) {
      const { code, out } = await validate(`[sources.in]\ntype = "stdin"\ndecoding.codec = "${codec}"\n\n[sinks.out]\ntype = "siem_hec_metrics"\ninputs = ["in"]\n${METRIC_SINKS.siem_hec_metrics}\n`);
      expect(code, codec).to.equal(78);
      expect(out).to.include('sinks.out.inputs[0]: data type mismatch: "in" emits log events but siem_hec_metrics accepts only metric events');
    }
    // any event type meets a log-only transform's input: the types intersect, as Vector checks them
    const { code, out } = await validate(
      `[sources.in]\ntype = "stdin"\ndecoding.codec = "native_json"\n\n[transforms.t]\ntype = "tokenizer"\ninputs = ["in"]\nfield_names = ["a"]\n\n[sinks.out]\ntype = "blackhole"\ninputs = ["t"]\n`,
    );
    expect(code, out).to.equal(0);
  });

  it('a log-only transform after a native source still types its output as logs: a metrics sink after it is refused', async () => {
    const { code, out } = await validate(
      `[sources.in]\ntype = "stdin"\ndecoding.codec = "native_json"\n\n[transforms.t]\ntype = "throttle"\ninputs = ["in"]\nthreshold = 1\nwindow_secs = 1\n\n[sinks.out]\ntype = "tsdb_metrics"\ninputs = ["t"]\n${METRIC_SINKS.tsdb_metrics}\n`,
    );
    expect(code).to.equal(78);
    expect(out).to.include('sinks.out.inputs[0]: data type mismatch: "t" emits log events but tsdb_metrics accepts only metric events');
  });

  /** Each transform with options that shape its outputs, and the output types Vector gives it. */
  const TRANSFORMS: [string, Record<string, unknown>, [string, string][]][] = [
    ['filter', { condition: { type: 'is_metric' } }, [['t', 'any']]],
    ['route', { route: { a: { type: 'is_log' }, b: { type: 'is_metric' } } }, [['t.a', 'any'], ['t.b', 'any'], ['t._unmatched', 'any']]],
    ['route', { route: { a: { type: 'is_log' } }, reroute_unmatched: false }, [['t.a', 'any']]],
    ['remap', { source: '.a = 1' }, [['t', 'any']]],
    ['remap', { source: '.a = 1', reroute_dropped: true }, [['t', 'any'], ['t.dropped', 'any']]],
    ['reduce', {}, [['t', 'log']]],
    ['tokenizer', { field_names: ['a'] }, [['t', 'log']]],
    ['throttle', { threshold: 1, window_secs: 1 }, [['t', 'log']]],
    ['log_to_metric', { metrics: [{ type: 'counter', field: 'message' }] }, [['t', 'metric']]],
  ];
  for (const [type, options, want] of TRANSFORMS) {
    it(`${type} ${JSON.stringify(options)}: outputs ${want.map(([id, t]) => `${id}=${t}`).join(', ')}`, () => {
      const config = configFromObject(
        {
          sources: { in: { type: 'stdin', decoding: { codec: 'native_json' } } },
          transforms: { t: { type, inputs: ['in'], ...options } },
          sinks: { out: { type: 'blackhole', inputs: ['t*'] } },
        },
        catalog,
      );
      expect(outputsOf(config.components.get('t')!).map((o) => [o.id, o.type])).to.deep.equal(want);
    });
  }
});
