/**
 * Minimal TCP consumer for the socket-sink benchmark: accepts connections on 127.0.0.1, counts
 * newline-terminated lines over all of them and discards the bytes. Prints `{"port":N}` once it
 * listens and `{"lines":N}` once `target` lines (first argument) arrived, so the case that feeds it
 * ends when every line reached the other side, not when its sink let go of them.
 * Usage: node dist/scripts/bench/tcp-consumer.js <target> [port=0]
 */
import { type AddressInfo, createServer } from 'node:net';

const target = Number(process.argv[2] ?? 0);
let lines = 0;
let reported = false;

const server = createServer((sock) => {
  sock.on('data', (chunk: Buffer) => {
    // indexOf runs natively: the consumer must stay cheap beside the case it measures
    for (let i = chunk.indexOf(0x0a); i >= 0; i = chunk.indexOf(0x0a, i + 1)) lines++;
    if (!reported && lines >= target) {
      reported = true;
      process.stdout.write(JSON.stringify({ lines }) + '\n');
    }
  });
  sock.on('error', () => sock.destroy());
});
server.listen(Number(process.argv[3] ?? 0), '127.0.0.1', () => process.stdout.write(JSON.stringify({ port: (server.address() as AddressInfo).port }) + '\n'));
