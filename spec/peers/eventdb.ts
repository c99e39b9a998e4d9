/**
 * A strict stand-in for an EventStoreDB node's statistics endpoint: `GET /stats` only (405 for
 * other methods, 404 for other paths), answering the node's document shape — `proc`, `sys` and
 * `es` with their nested groups — built from counters the test moves between scrapes.
 */
import { type HttpPeer, type PeerResponse, json, startHttpPeer, text } from './http-peer.js';

/** The numbers a test controls; the rest of the document is fixed filler of the real shape. */
export interface NodeStats {
  id: number;
  mem: number;
  readBytes: number;
  writtenBytes: number;
  readOps: number;
  writeOps: number;
  freeMem: number;
  /** Absent: the node reports no `sys.drive` group. */
  drive?: { path: string; availableBytes: number; totalBytes: number; usedBytes: number; usage: string | number };
}

/** The statistics document as a node serves it. */
export function statsDocument(s: NodeStats): Record<string, unknown> {
  const sys: Record<string, unknown> = { loadavg: { '1m': 0.42, '5m': 0.37, '15m': 0.31 }, freeMem: s.freeMem };
  if (s.drive) {
    const { path, ...d } = s.drive;
    sys.drive = { [path]: { availableBytes: d.availableBytes, totalBytes: d.totalBytes, usage: d.usage, usedBytes: d.usedBytes } };
  }
  return {
    proc: {
      startTime: '2024-05-01T09:58:11.4072031Z',
      id: s.id,
      mem: s.mem,
      cpu: 3.25,
      cpuScaled: 0.81,
      threadsCount: 34,
      contentionsRate: 0,
      thrownExceptionsRate: 0,
      gc: { allocationSpeed: 0, gen0ItemsCount: 12, gen0Size: 0, gen1ItemsCount: 4, gen1Size: 0, gen2ItemsCount: 1, gen2Size: 0, largeHeapSize: 0, timeInGc: 0, totalBytesInHeaps: 0 },
      diskIo: { readBytes: s.readBytes, writtenBytes: s.writtenBytes, readOps: s.readOps, writeOps: s.writeOps },
      tcp: { connections: 0, receivingSpeed: 0, sendingSpeed: 0, inSend: 0, measureTime: '00:00:10.0010000', pendingReceived: 0, pendingSend: 0, receivedBytesSinceLastRun: 0, receivedBytesTotal: 0, sentBytesSinceLastRun: 0, sentBytesTotal: 0 },
    },
    sys,
    es: {
      checksum: 1_048_576,
      checksumNonFlushed: 1_048_576,
      queue: {
        MainQueue: { queueName: 'MainQueue', groupName: '', avgItemsPerSecond: 3, avgProcessingTime: 0.01, currentIdleTime: '0:00:00:00.1', currentItemProcessingTime: null, idleTimePercent: 99.9, length: 0, lengthCurrentTryPeak: 0, lengthLifetimePeak: 5, totalItemsProcessed: 1200, inProgressMessage: '<none>', lastProcessedMessage: 'Schedule' },
      },
      writer: { lastFlushSize: 0, lastFlushDelayMs: 0.02, meanFlushSize: 0, meanFlushDelayMs: 0.02, maxFlushSize: 512, maxFlushDelayMs: 1.1, queuedFlushMessages: 0 },
      readIndex: { cachedRecord: 10, notCachedRecord: 0, cachedStreamInfo: 4, notCachedStreamInfo: 1, cachedTransInfo: 0, notCachedTransInfo: 0 },
    },
  };
}

/** The running stand-in; `stats` is read at each request, `body` (when set) replaces the document. */
export interface EventdbPeer extends HttpPeer {
  stats: NodeStats;
  body: string | undefined;
}

/** Starts the stand-in on 127.0.0.1, port 0. */
export async function startEventdbPeer(stats: NodeStats): Promise<EventdbPeer> {
  const state: { stats: NodeStats; body: string | undefined } = { stats, body: undefined };
  const peer = await startHttpPeer((req): PeerResponse => {
    if (req.path !== '/stats') return text(404, 'Not Found');
    if (req.method !== 'GET') return text(405, 'Method Not Allowed');
    if (req.raw.length !== 0) return text(400, 'a stats request has no body');
    if (state.body !== undefined) return { status: 200, body: state.body, headers: { 'content-type': 'application/json; charset=utf-8' } };
    return json(200, statsDocument(state.stats));
  });
  return Object.defineProperties(peer, {
    stats: { get: () => state.stats, set: (s: NodeStats) => (state.stats = s) },
    body: { get: () => state.body, set: (b: string | undefined) => (state.body = b) },
  }) as EventdbPeer;
}
