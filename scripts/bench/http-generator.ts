/**
 * Line generator for the http-sink benchmarks: connects to a TCP port and writes `count` lines
 * as fast as the socket takes them (respecting backpressure), then ends the connection.
 * Usage: http-generator.ts <port> <count>
 */
import { connect } from 'node:net';

/** Writes `count` lines of about 100 bytes; resolves when the socket is flushed and closed. */
export function generateLines(port: number, count: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const filler = 'x'.repeat(64);
    let i = 0;
    const pump = () => {
      while (i < count) {
        // ~100-byte lines in chunks of 256 lines
        let chunk = '';
        for (let k = 0; k < 256 && i < count; k++, i++) chunk += `line ${i} ${filler} lorem ipsum dolor\n`;
        if (!socket.write(chunk)) return void socket.once('drain', pump);
      }
      socket.end();
    };
    socket.once('connect', pump);
    socket.once('close', () => resolve());
    socket.once('error', reject);
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await generateLines(Number(process.argv[2]), Number(process.argv[3] ?? 1_000_000));
}
