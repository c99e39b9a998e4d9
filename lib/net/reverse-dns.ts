/**
 * A reverse DNS lookup the synchronous remap runtime can call: getnameinfo (hosts file first, then
 * the system resolver, as VRL's reverse_dns does) runs on a worker thread while the caller waits on
 * a shared counter, at most `timeoutMs`. One worker serves the process; it does not keep it alive.
 */
import { MessageChannel, type MessagePort, Worker, receiveMessageOnPort } from 'node:worker_threads';

/** How long a lookup may block its caller. */
export const REVERSE_DNS_TIMEOUT_MS = 2000;

// CommonJS source of the worker: answers on the port first, then bumps the counter and wakes the caller
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { lookupService } = require('node:dns');
const done = new Int32Array(workerData.done);
workerData.port.on('message', ({ id, ip, holdMs }) => {
  const lookup = () => lookupService(ip, 0, (err, host) => {
    workerData.port.postMessage(err ? { id, error: err.code || err.message } : { id, host });
    Atomics.add(done, 0, 1);
    Atomics.notify(done, 0);
  });
  if (holdMs > 0) setTimeout(lookup, holdMs);
  else lookup();
});
`;

interface Resolver {
  readonly port: MessagePort;
  readonly done: Int32Array;
  next: number;
}

let resolver: Resolver | undefined;

function start(): Resolver {
  const done = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { done: done.buffer, port: port2 }, transferList: [port2] });
  worker.unref();
  port1.unref();
  worker.on('error', () => {
    resolver = undefined;
  });
  return { port: port1, done, next: 0 };
}

/**
 * Host name of an IP address; throws with the resolver's code (`ENOTFOUND`) or on timeout.
 * `holdMs` delays the lookup on the worker (tests of the timeout).
 */
export function reverseLookupSync(ip: string, timeoutMs = REVERSE_DNS_TIMEOUT_MS, holdMs = 0): string {
  const r = (resolver ??= start());
  const id = ++r.next;
  let seen = Atomics.load(r.done, 0);
  r.port.postMessage({ id, ip, holdMs });
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    // replies to earlier lookups that timed out are read and dropped here
    for (let m = receiveMessageOnPort(r.port); m !== undefined; m = receiveMessageOnPort(r.port)) {
      const reply = m.message as { id: number; host?: string; error?: string };
      if (reply.id !== id) continue;
      if (reply.host !== undefined) return reply.host;
      throw new Error(reply.error ?? 'lookup failed');
    }
    const left = deadline - performance.now();
    if (left <= 0) throw new Error(`timed out after ${timeoutMs} ms`);
    Atomics.wait(r.done, 0, seen, left);
    seen = Atomics.load(r.done, 0);
  }
}
