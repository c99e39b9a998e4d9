/**
 * `weir vrl`: runs a remap program over newline-delimited JSON events and prints, per event,
 * `{"result": …, "object": …}` (with `--print-object`, the object alone, as Vector's `-o`) or
 * `{"aborted": true, "error": …}`. Compile errors go to stderr (VRL diagnostics) with exit code 2.
 */
import { createReadStream, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { type Value, Float, Timestamp, cloneValue, isObject } from '../../lib/value.js';
import { CompileError, compile, formatDiagnostics } from '../../remap/index.js';
import { VrlRegex } from '../../remap/regex.js';
import { kindOfValue } from '../../remap/kind.js';
import { functionHelpText, functionListText } from '../../remap/reference.js';
import { encodeJson, parseJsonText } from '../../remap/stdlib/json-codec.js';

/** The `weir vrl --functions` text: each built-in function's signature and description. */
export function listFunctions(): string {
  return functionListText();
}

/** Options of `weir vrl` (program text or file, NDJSON input file, zone). */
export interface VrlCommandOptions {
  readonly program?: string;
  readonly programFile?: string;
  readonly input?: string;
  /** Print each event as the program left it instead of `{"result","object"}` (Vector's `--print-object`). */
  readonly printObject?: boolean | undefined;
  readonly timezone?: string;
  /** Print the built-in functions instead of running a program. */
  readonly functions?: boolean;
}

/** Streams of `weir vrl`; a TTY stdin without --input means one run on `{}`. */
export interface VrlCommandIo {
  readonly stdin: NodeJS.ReadableStream;
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
}

/** JSON for output: timestamps RFC 3339 UTC, floats keep their kind (`1.0`), NaN/inf null. */
function toOutput(v: Value): string {
  return encodeJson(normalize(v));
}

function normalize(v: Value): Value {
  if (v instanceof Timestamp) return v.toString();
  if (v instanceof RegExp) return v instanceof VrlRegex ? v.pattern : v.source;
  if (v instanceof Float) return Number.isFinite(v.value) ? v : null;
  if (Array.isArray(v)) return v.map(normalize);
  if (isObject(v)) {
    const o: { [k: string]: Value } = {};
    for (const k in v) o[k] = normalize(v[k]!);
    return o;
  }
  return v;
}

/** What `help` prints in the REPL: the commands it takes besides programs. */
export const REPL_HELP = `Each line is a remap program run against the event \`.\`, which persists across lines.
Commands:
  help               this text
  help functions     every built-in function with its signature
  help <function>    one function's signature, parameters and examples
  exit, quit         leave (as does Ctrl-D)
`;

/** The answer to a REPL line that is a command rather than a program; undefined for a program. */
export function replCommand(text: string): string | undefined {
  const words = text.split(/\s+/);
  if (words[0] !== 'help' || words.length > 2) return undefined;
  const topic = words[1];
  if (topic === undefined) return REPL_HELP;
  if (topic === 'functions' || topic === 'funcs' || topic === 'fs') return functionListText();
  return functionHelpText(topic.replace(/!$/, '').replace(/\(\)$/, '')) ?? `no function named "${topic}"; \`help functions\` lists them\n`;
}

/**
 * The interactive mode: each line is a program run against one event that persists across lines
 * (`.` starts as `{}`); a failed run leaves the event as it was. `help` lines are commands, not
 * programs (a variable named `help` cannot be read here). `exit` or end of input quits.
 */
async function repl(io: VrlCommandIo, timezone: string | undefined): Promise<number> {
  const output = io.stdout as NodeJS.WritableStream & { isTTY?: boolean };
  const rl = createInterface({ input: io.stdin, output: io.stdout, terminal: output.isTTY === true, prompt: '$ ' });
  let target: Value = {};
  let meta: Value = {};
  io.stdout.write('remap REPL: each line runs against the event `.` (starts as {}); `help` lists the commands; `exit` or Ctrl-D quits.\n');
  rl.prompt();
  for await (const line of rl) {
    const text = line.trim();
    if (text === 'exit' || text === 'quit') break;
    const answer = replCommand(text);
    if (answer !== undefined) io.stdout.write(answer);
    else if (text !== '') {
      try {
        // the checker knows the event as it is now, as the type state carries over between lines
        const program = compile(text, { unusedCheck: false, targetKind: kindOfValue(target), ...(timezone !== undefined ? { timezone } : {}) });
        const before: { target: Value; meta: Value } = { target: cloneValue(target), meta: cloneValue(meta) };
        const r = program.run(target, meta);
        if (r.ok) {
          target = r.target;
          meta = r.meta;
          io.stdout.write(toOutput(r.value) + '\n');
        } else {
          ({ target, meta } = before);
          io.stdout.write(`${r.aborted ? 'aborted' : 'error'}: ${r.error}\n`);
        }
      } catch (e) {
        if (!(e instanceof CompileError)) throw e;
        io.stdout.write(e.message + '\n');
      }
    }
    rl.prompt();
  }
  rl.close();
  return 0;
}

/** Runs the command; resolves to the process exit code (0 ok, 1 bad input, 2 compile error). */
export async function runVrlCommand(opts: VrlCommandOptions, io: VrlCommandIo): Promise<number> {
  if (opts.functions) {
    io.stdout.write(listFunctions());
    return 0;
  }
  let source: string;
  if (opts.program !== undefined) source = opts.program;
  else if (opts.programFile !== undefined) {
    try {
      source = readFileSync(opts.programFile, 'utf8');
    } catch (e) {
      io.stderr.write(`error: cannot read program file ${opts.programFile}: ${(e as Error).message}\n`);
      return 2;
    }
  } else if (opts.input === undefined) {
    // as Vector's `vrl`: no program means the REPL, on a terminal or on piped lines
    return repl(io, opts.timezone);
  } else {
    io.stderr.write('error: a program is required: pass it as an argument or with --program <file>\n');
    return 2;
  }
  let program;
  try {
    program = compile(source, opts.timezone !== undefined ? { timezone: opts.timezone } : {});
  } catch (e) {
    if (e instanceof CompileError) {
      io.stderr.write(e.message + '\n');
      return 2;
    }
    throw e;
  }

  if (program.warnings.length > 0) io.stderr.write(formatDiagnostics(source, program.warnings) + '\n');

  const runOne = (event: Value): void => {
    const r = program.run(event, {});
    if (r.ok) io.stdout.write(opts.printObject ? `${toOutput(r.target)}\n` : `{"result":${toOutput(r.value)},"object":${toOutput(r.target)}}\n`);
    else io.stdout.write(`{"aborted":true,"error":${JSON.stringify(r.error)}}\n`);
  };

  const stdin = io.stdin as NodeJS.ReadableStream & { isTTY?: boolean };
  if (opts.input === undefined && stdin.isTTY) {
    runOne({});
    return 0;
  }
  const stream = opts.input !== undefined ? createReadStream(opts.input, 'utf8') : stdin;
  let code = 0;
  let count = 0;
  let lineNo = 0;
  try {
    const rl = createInterface({ input: stream, crlfDelay: Infinity });
    for await (const line of rl) {
      lineNo++;
      if (line.trim() === '') continue;
      let event: Value;
      try {
        event = parseJsonText(line);
      } catch (e) {
        io.stderr.write(`error: input line ${lineNo} is not valid JSON: ${(e as Error).message}\n`);
        code = 1;
        continue;
      }
      count++;
      runOne(event);
    }
  } catch (e) {
    io.stderr.write(`error: cannot read input: ${(e as Error).message}\n`);
    return 1;
  }
  if (count === 0 && code === 0) runOne({});
  return code;
}
