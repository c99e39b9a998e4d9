/**
 * The opentelemetry source in a running topology whose `http` sink stalls behind a small blocking
 * buffer: the official exporters send 4,000 records while the destination holds every answer,
 * then the destination is released. The source holds the requests instead of refusing them, so
 * every record reaches the destination once, and no exporter saw a failed export.
 */
import { expect } from 'chai';
import { type IncomingMessage, type ServerResponse, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LogRecordExporter } from '@opentelemetry/sdk-logs';
import { configFromObject } from '../../../../lib/config/load.js';
import { LogRoot } from '../../../../lib/log.js';
import { Topology } from '../../../../lib/topology/topology.js';
import { freePort } from '../../../helpers/free-port.js';
import { testCatalog } from '../../../helpers/test-components.js';
import { until } from '../../../helpers/wait.js';
import { type ExporterKind, exporterFor, sendLogs } from './exporters.js';

/** A destination that keeps its answers back while stalled; `release()` answers them and every later request at once. */
async function stallingDestination() {
  const messages: string[] = [];
  const waiting: ServerResponse[] = [];
  let stalled = true;
  let requests = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests++;
      for (const line of Buffer.concat(chunks).toString('utf8').split('\n'))
        if (line !== '') messages.push((JSON.parse(line) as { message: string }).message);
      if (stalled) waiting.push(res);
      else res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    messages,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    get requests() {
      return requests;
    },
    release() {
      stalled = false;
      for (const res of waiting.splice(0)) res.end();
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** An HTTP relay in front of the source's HTTP listener that records the status of every answer the exporter got. */
async function statusTap(targetPort: number) {
  const statuses: number[] = [];
  let pending = 0;
  const server = createServer((req, res) => {
    pending++;
    const upstream = request({ host: '127.0.0.1', port: targetPort, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      statuses.push(answer.statusCode ?? 0);
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res).on('finish', () => pending--);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    statuses,
    port: (server.address() as AddressInfo).port,
    /** Requests relayed and not answered yet. */
    get pending() {
      return pending;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Wraps an exporter to count the exports that failed. */
function counting(exporter: LogRecordExporter, failures: { n: number }): LogRecordExporter {
  return {
    export: (logs, done) =>
      exporter.export(logs, (result) => {
        // ExportResultCode.SUCCESS is 0
        if (result.code !== 0) failures.n++;
        done(result);
      }),
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}

describe('opentelemetry source: backpressure from a stalled sink loses nothing', function () {
  this.timeout(60_000);
  const N = 4000;

  for (const kind of ['http-proto', 'grpc'] as ExporterKind[]) {
    it(`${kind}: ${N} records through a 100-event blocking buffer and a stalled http sink all arrive once`, async () => {
      const dest = await stallingDestination();
      const ports = { grpcPort: await freePort(), httpPort: await freePort() };
      const tap = await statusTap(ports.httpPort);
      const topo = new Topology({ log: new LogRoot('error', { write() {} }) });
      try {
        await topo.start(
          configFromObject(
            {
              sources: { otel: { type: 'opentelemetry', grpc: { address: `127.0.0.1:${ports.grpcPort}` }, http: { address: `127.0.0.1:${ports.httpPort}` } } },
              sinks: {
                out: {
                  type: 'http',
                  inputs: ['otel.logs'],
                  uri: dest.url,
                  encoding: { codec: 'ndjson' },
                  healthcheck: { enabled: false },
                  batch: { max_events: 100, timeout_secs: 0.05 },
                  buffer: { type: 'memory', max_events: 100, when_full: 'block' },
                },
              },
            },
            testCatalog,
          ),
        );
        const failures = { n: 0 };
        const records = Array.from({ length: N }, (_, i) => ({ body: `${kind}-${i}` }));
        let exported = false;
        // HTTP exporters go through the tap; the JavaScript gRPC exporter does not retry, so a refusal is a failed export
        const sent = sendLogs(counting(exporterFor(kind, { grpcPort: ports.grpcPort, httpPort: tap.port }), failures), records, { batch: true }).then(() => (exported = true));
        // the sink stalls, its buffer fills and closes the source's gate: requests wait in the source
        await until(() => topo.sourceGate('otel')?.isOpen === false, 20_000, 'the source gate to close');
        await until(() => topo.registry.sum('component_received_bytes_total', { component_id: 'otel' }) > 0 && dest.requests > 0, 20_000, 'requests in the source and the sink');
        if (kind !== 'grpc') await until(() => tap.pending > 0, 20_000, 'a request held in the source');
        expect(exported).to.equal(false);
        expect(dest.messages.length).to.be.lessThan(N);
        dest.release();
        await sent;
        await until(() => dest.messages.length >= N, 20_000, `${N} records at the destination`);
        expect(failures.n, 'failed exports').to.equal(0);
        // held, never refused: a 503 would have made the exporter send the same records again
        expect(tap.statuses.filter((code) => code !== 200), 'answers other than 200').to.deep.equal([]);
        expect(dest.messages.length, 'no duplicates').to.equal(N);
        expect(new Set(dest.messages).size).to.equal(N);
        // the sink counts a request once its answer arrived, a moment after the destination read it
        await until(() => topo.registry.sum('component_sent_events_total', { component_id: 'out' }) >= N, 20_000, 'the last answer');
        expect(topo.registry.sum('component_sent_events_total', { component_id: 'out' })).to.equal(N);
      } finally {
        await topo.stop(1_000);
        await tap.close();
        await dest.close();
      }
    });
  }
});
