/**
 * Benchmark sender: builds a corpus of 200-byte log lines in memory, prints READY, then on
 * "go <port>" on stdin writes `--mib` MiB to 127.0.0.1:<port> as fast as the socket takes it.
 * Corpus (second argument): `syslog` (default) or `apache` (Apache common log lines, for the
 * regex cases).
 */
import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import { type Corpus, LINE_BYTES, block } from './corpus.js';

const mib = Number(process.argv[2] ?? 512);
const corpus = (process.argv[3] ?? 'syslog') as Corpus;
const total = mib * 1024 * 1024;
const lines = Math.floor(total / LINE_BYTES);

const PER_BLOCK = 20_000; // 4 MB blocks
const blocks: Buffer[] = [];
for (let n = 0; n < lines; n += PER_BLOCK) blocks.push(block(n, Math.min(PER_BLOCK, lines - n), corpus));
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
