/**
 * `multiline`: consecutive lines of one file joined into one message with "\n", with the modes of
 * Vector's `file` source documentation page. A message opens at a line matching `start_pattern`;
 * each following line is judged by `condition_pattern`:
 *
 * - `continue_through`: a matching line joins; a line that does not match ends the message and is judged afresh;
 * - `continue_past`: a matching line joins; the first line that does not match joins and ends it;
 * - `halt_before`: a line that does not match joins; a matching line ends it and is judged afresh;
 * - `halt_with`: a line that does not match joins; the first matching line joins and ends it.
 *
 * A message still open `timeout_ms` after its last line is emitted as it is (scheduler time). An open
 * message is emitted as it is once it holds more than `maxChars` characters (the source passes
 * max_line_bytes), so memory stays bounded.
 */
import type { SchedulerLike, Subscription } from 'rxjs';
import { type GuardedRegExp, guardedRegExp } from '../../../lib/bounded-regex.js';

/** The `multiline` options. */
export interface MultilineOptions {
  readonly start_pattern: string;
  readonly condition_pattern: string;
  readonly mode: 'continue_through' | 'continue_past' | 'halt_before' | 'halt_with';
  readonly timeout_ms: number;
}

/** Receives one message and the byte offset of its first line. */
export type MessageSink = (message: string, offset: number) => void;

/** A compiled `multiline` group, shared by the aggregators of every file. */
export interface MultilineRules {
  readonly start: GuardedRegExp;
  readonly condition: GuardedRegExp;
  readonly mode: MultilineOptions['mode'];
  readonly timeoutMs: number;
}

/** Compiles the patterns; throws a SyntaxError naming the bad one. */
export function compileMultiline(o: MultilineOptions): MultilineRules {
  return { start: guardedRegExp(o.start_pattern), condition: guardedRegExp(o.condition_pattern), mode: o.mode, timeoutMs: o.timeout_ms };
}

/** A line too long for a bounded pattern search does not match. */
function matches(re: GuardedRegExp, line: string): boolean {
  try {
    return re.test(line);
  } catch {
    return false;
  }
}

/** One file's open message; see the module comment. */
export class LineAggregator {
  private lines: string[] | undefined;
  private offset = 0;
  private chars = 0;
  private timer: Subscription | undefined;

  constructor(
    private readonly rules: MultilineRules,
    private readonly maxChars: number,
    private readonly scheduler: SchedulerLike,
    /** Called when an open message timed out (emit it with {@link flush}). */
    private readonly onTimeout: () => void,
  ) {}

  /** The offset of the open message's first line: where a restart must read again; undefined: none open. */
  get heldOffset(): number | undefined {
    return this.lines === undefined ? undefined : this.offset;
  }

  /** Feeds one line; `emit` receives every message it completes, in order. */
  push(line: string, offset: number, emit: MessageSink): void {
    if (this.lines === undefined) return this.begin(line, offset, emit);
    const matched = matches(this.rules.condition, line);
    const mode = this.rules.mode;
    const joins = mode === 'continue_through' || mode === 'continue_past' ? matched : !matched;
    if (joins) {
      this.add(line);
      if (this.chars > this.maxChars) this.flush(emit);
      else this.arm();
      return;
    }
    if (mode === 'continue_past' || mode === 'halt_with') {
      this.add(line);
      return this.flush(emit);
    }
    // continue_through and halt_before: the line is not part of this message
    this.flush(emit);
    this.begin(line, offset, emit);
  }

  /** Emits the open message, if any. */
  flush(emit: MessageSink): void {
    this.timer?.unsubscribe();
    this.timer = undefined;
    const lines = this.lines;
    if (lines === undefined) return;
    this.lines = undefined;
    emit(lines.join('\n'), this.offset);
  }

  /** Drops the open message and its timer (teardown). */
  close(): void {
    this.timer?.unsubscribe();
    this.timer = undefined;
    this.lines = undefined;
  }

  private begin(line: string, offset: number, emit: MessageSink): void {
    if (!matches(this.rules.start, line)) return emit(line, offset);
    this.lines = [line];
    this.offset = offset;
    this.chars = line.length;
    this.arm();
  }

  private add(line: string): void {
    this.lines!.push(line);
    this.chars += line.length + 1;
  }

  private arm(): void {
    this.timer?.unsubscribe();
    this.timer = this.scheduler.schedule(() => {
      this.timer = undefined;
      this.onTimeout();
    }, this.rules.timeoutMs);
  }
}
