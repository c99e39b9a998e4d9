/**
 * Vector options weir does not implement: those of every component of a kind live in
 * lib/config/vector-options.ts, a component's own in its definition (`vectorOptions`). Either
 * turns "unknown option" into "not supported by weir yet"; a typo stays unknown.
 */
import { expect } from 'chai';
import { catalog } from '../../../connectors/index.js';
import { buildConfig } from '../../../lib/config/load.js';
import { NOT_SUPPORTED_YET, vectorOptionMessage } from '../../../lib/config/vector-options.js';

/** `path: message` of every problem of a config built from in-memory sections. */
function problems(data: Record<string, unknown>): string[] {
  return buildConfig([{ file: undefined, data }], catalog).problems.map((p) => `${p.component}.${p.path}: ${p.message}`);
}

const SRC = { gen: { type: 'demo_logs', format: 'json' } };

describe('Vector options weir does not implement', () => {
  it('matches a listed path and the options below it, nothing else', () => {
    expect(vectorOptionMessage('sink', ['tls'], 'tls.alpn_protocols')).to.equal(NOT_SUPPORTED_YET);
    expect(vectorOptionMessage('sink', ['tls'], 'tls')).to.equal(NOT_SUPPORTED_YET);
    expect(vectorOptionMessage('sink', ['tls'], 'tlsx')).to.equal(undefined);
    expect(vectorOptionMessage('sink', [], 'healthcheck_uri')).to.equal(NOT_SUPPORTED_YET);
    expect(vectorOptionMessage('transform', [], 'healthcheck_uri')).to.equal(undefined);
    // healthcheck.uri is accepted with a warning where it has no effect, not refused
    expect(vectorOptionMessage('sink', [], 'healthcheck.uri')).to.equal(undefined);
  });

  it("takes a component's own from its definition, also under an alias, and only for that component", () => {
    const out = problems({
      sources: { ...SRC, sock: { type: 'socket', mode: 'tcp', address: '127.0.0.1:9000', permit_origin: ['10.0.0.0/8'] } },
      sinks: {
        loki: { type: 'loki', inputs: ['gen'], endpoint: 'http://127.0.0.1:3100', labels: { a: 'b' }, encoding: { codec: 'json' }, structured_metadata: { x: 'y' } },
        influx: { type: 'influxdb_metrics', inputs: ['gen'], endpoint: 'http://127.0.0.1:8086', database: 'd', version: 'v1' },
        tcp: { type: 'socket', inputs: ['gen'], mode: 'tcp', address: '127.0.0.1:9', encoding: { codec: 'json' }, send_buffer_bytes: 1024, permit_origin: ['x'] },
        // the file sink's own, on another sink: a typo there
        c: { type: 'console', inputs: ['gen'], encoding: { codec: 'json' }, truncate: { after_secs: 1 } },
      },
    });
    const unsupported = (p: string) => `${p}: ${NOT_SUPPORTED_YET}`;
    expect(out).to.include.members([
      unsupported('sources.sock.permit_origin'),
      unsupported('sinks.loki.structured_metadata'),
      unsupported('sinks.influx.version'),
      unsupported('sinks.tcp.send_buffer_bytes'),
    ]);
    expect(out.find((p) => p.startsWith('sinks.tcp.permit_origin:'))).to.match(/unknown option/);
    expect(out.find((p) => p.startsWith('sinks.c.truncate:'))).to.match(/unknown option/);
  });
});
