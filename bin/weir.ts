/** Entry point of the compiled CLI: argv in, exit code out. */
// first: switches on V8's linear-time fallback for regular expressions before anything matches
import '../lib/bounded-regex.js';
// the old generation grows with the live heap, not up to four times it (peak RSS)
import './startup/heap-growth.js';
// WebAssembly (undici's HTTP parser) is not recompiled by the optimizing compiler (peak RSS)
import './startup/wasm-tier.js';
import { main } from './cli/main.js';

main(process.argv).then(
  (code) => {
    process.exitCode = code;
    // sockets or timers left by a failed component must not keep a finished process alive
    setTimeout(() => process.exit(code), 200).unref();
  },
  (err: unknown) => {
    process.stderr.write(`weir: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
