/**
 * WebAssembly runs on V8's baseline compiler (Liftoff) only. The WebAssembly a pipeline runs is
 * parsing that is small beside its own work: undici's HTTP parser (llhttp, one response per request
 * of a sink) and Node's CommonJS lexer while modules load. V8 recompiles a hot WebAssembly function
 * with its optimizing compiler, and that compilation held 25–30 MiB of compiler memory for a few
 * hundred milliseconds in each isolate that did it (llhttp's parser on the main thread, module
 * loading in each pipeline worker): the process's peak RSS (with the http sink and two pipeline
 * workers, 173–178 MiB against a plateau of 155). Liftoff's code
 * parses a response's head in microseconds, and the requests it answers carry thousands of events.
 *
 * The flag is the process's: importing this module sets it for every isolate, as the CLI does first.
 */
import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--liftoff-only');
