/**
 * Benchmark sender: builds a corpus of 200-byte log lines in memory, prints READY, then on
 * "go <port>" on stdin writes `--mib` MiB to 127.0.0.1:<port> as fast as the socket takes it.
 * Corpus (second argument): `syslog` (default) or `apache` (Apache common log lines, for the
 * regex cases).
 */
import { connect } from 'node:net';
import { createInterface } from 'node:readline';

export const LINE_BYTES = 200;
const mib = Number(process.argv[2] ?? 512);
const corpus = process.argv[3] ?? 'syslog';
const total = mib * 1024 * 1024;
const lines = Math.floor(total / LINE_BYTES);

function syslogLine(n: number): string {
  const line = `<34>1 2024-05-01T10:00:00.${String(n % 1000).padStart(3, '0')}Z host-${n % 17} app-${n % 5} ${n % 9999} ID${n % 47} - seq=${n} user=alice action=login status=ok path=/api/v1/items/${n % 1000} `;
  return line.padEnd(LINE_BYTES - 1, 'x');
}

/** An Apache common log line, its path padded so the line is 199 characters. */
function apacheLine(n: number): string {
  const head = `10.0.${n % 256}.${(n >> 8) % 256} - user${n % 50} [01/May/2024:10:00:${String(n % 60).padStart(2, '0')} +0000] "GET /api/v1/items/${n % 1000}/`;
  const tail = ` HTTP/1.1" ${n % 7 === 0 ? 404 : 200} ${n % 100000}`;
  return head + 'x'.repeat(Math.max(0, LINE_BYTES - 1 - head.length - tail.length)) + tail;
}

/** One block of 200-byte lines (199 + newline) shaped like syslog traffic. */
function block(first: number, count: number): Buffer {
  const buf = Buffer.allocUnsafe(count * LINE_BYTES);
  for (let i = 0; i < count; i++) {
    const n = first + i;
    const line = corpus === 'apache' ? apacheLine(n) : syslogLine(n);
    buf.write(line + '\n', i * LINE_BYTES, 'latin1');
  }
  return buf;
}

const PER_BLOCK = 20_000; // 4 MB blocks
const blocks: Buffer[] = [];
for (let n = 0; n < lines; n += PER_BLOCK) blocks.push(block(n, Math.min(PER_BLOCK, lines - n)));
process.stdout.write(`READY ${lines}\n`);

createInterface({ input: process.stdin }).once('line', (cmd) => {
  const port = Number(cmd.split(' ')[1]);
  const sock = connect(port, '127.0.0.1', () => {
    let i = 0;
    const pump = () => {
      while (i < blocks.length) {
        if (!sock.write(blocks[i++]!)) return void sock.once('drain', pump);
      }
      sock.end(() => process.exit(0));
    };
    pump();
  });
  sock.on('error', (e) => {
    process.stderr.write(`sender: ${e.message}\n`);
    process.exit(1);
  });
});
