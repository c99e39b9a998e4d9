/**
 * Runtime pieces of compiled remap programs: the per-run context, the error/abort/return signals
 * and the operators' value semantics (VRL's integer wrapping, float results, lossy equality).
 */
import { type Value, Float, Timestamp, isObject, valueEquals } from '../lib/value.js';
import { valueKindName } from './kind.js';

/** State of one program run: the event (`.`), its metadata (`%`) and variable slots. */
export class Ctx {
  constructor(
    public target: Value,
    public meta: Value,
    public readonly vars: Value[],
    /** IANA zone for functions that format or parse local times; undefined = UTC. */
    public readonly tz: string | undefined,
    /** Destination of the `log` function; undefined = stderr. */
    public readonly log: ((level: string, message: string) => void) | undefined = undefined,
  ) {}
}

/** A runtime error of an expression (`can't divide by zero`, a failing function). */
export class VrlError extends Error {}

/** `abort` (or a `!` call failing): stops the program. */
export class AbortSignal {
  constructor(
    readonly message: string | undefined,
    readonly span: readonly [number, number],
  ) {}
}

/** `return expr`: ends the program (or the closure) with a value. */
export class ReturnSignal {
  constructor(readonly value: Value) {}
}

const TWO53 = 9007199254740992;

/** Integer result with i64 wrapping when the double result leaves the safe range. */
function wrapInt(r: number, a: number, b: number, op: (x: bigint, y: bigint) => bigint): number {
  if (r < TWO53 && r > -TWO53) return r;
  return Number(BigInt.asIntN(64, op(BigInt(a), BigInt(b))));
}

function floatResult(n: number): Float {
  if (Number.isNaN(n)) throw new VrlError('operation would produce NaN');
  return new Float(n);
}

const num = (v: Value): number | undefined => (typeof v === 'number' ? v : v instanceof Float ? v.value : undefined);

/** `+`: numbers (integers wrap at 64 bits), string concatenation, null + string. */
export function opAdd(a: Value, b: Value): Value {
  if (typeof a === 'number' && typeof b === 'number') return wrapInt(a + b, a, b, (x, y) => x + y);
  if (typeof a === 'string') {
    if (typeof b === 'string') return a + b;
    if (b === null) return a;
  } else if (a === null && typeof b === 'string') return b;
  const x = num(a);
  const y = num(b);
  if (x !== undefined && y !== undefined) return floatResult(x + y);
  throw new VrlError(`can't add type ${valueKindName(b)} to ${valueKindName(a)}`);
}

/** `-` on numbers; integers wrap at 64 bits. */
export function opSub(a: Value, b: Value): Value {
  if (typeof a === 'number' && typeof b === 'number') return wrapInt(a - b, a, b, (x, y) => x - y);
  const x = num(a);
  const y = num(b);
  if (x !== undefined && y !== undefined) return floatResult(x - y);
  throw new VrlError(`can't subtract type ${valueKindName(b)} from ${valueKindName(a)}`);
}

/** Longest string the engine can hold (V8: 2^29 - 24 UTF-16 units). */
const MAX_STRING = 0x1fffffe8;

function repeat(s: string, n: number): string {
  if (n <= 0 || s.length === 0) return '';
  if (s.length * n > MAX_STRING) throw new VrlError(`can't repeat a string of length ${s.length} ${n} times: the result is too large`);
  return s.repeat(n);
}

/** `*` on numbers, or string times integer (repetition). */
export function opMul(a: Value, b: Value): Value {
  if (typeof a === 'number' && typeof b === 'number') return wrapInt(a * b, a, b, (x, y) => x * y);
  if (typeof a === 'string' && typeof b === 'number') return repeat(a, b);
  if (typeof a === 'number' && typeof b === 'string') return repeat(b, a);
  const x = num(a);
  const y = num(b);
  if (x !== undefined && y !== undefined) return floatResult(x * y);
  throw new VrlError(`can't multiply type ${valueKindName(a)} by ${valueKindName(b)}`);
}

/** `/`: always a float; division by zero is an error. */
export function opDiv(a: Value, b: Value): Value {
  const y = num(b);
  if (y === 0) throw new VrlError("can't divide by zero");
  const x = num(a);
  if (x !== undefined && y !== undefined) return floatResult(x / y);
  throw new VrlError(`can't divide type ${valueKindName(a)} by ${valueKindName(b)}`);
}

/** Integer remainder with i64 semantics (`mod`). */
export function opRem(a: Value, b: Value): Value {
  const y = num(b);
  if (y === 0) throw new VrlError("can't divide by zero");
  if (typeof a === 'number' && typeof b === 'number') {
    if (b === -1) return 0;
    if (Math.abs(a) >= TWO53 || Math.abs(b) >= TWO53) return Number(BigInt.asIntN(64, BigInt(a) % BigInt(b)));
    return a % b;
  }
  const x = num(a);
  if (x !== undefined && y !== undefined) return floatResult(x % y);
  throw new VrlError(`can't calculate remainder of type ${valueKindName(a)} and ${valueKindName(b)}`);
}

/** Three-way comparison for `<` & co; throws with VRL's message for the operator. */
export function opCompare(a: Value, b: Value, op: string): boolean {
  const x = num(a);
  const y = num(b);
  let c: number;
  if (x !== undefined && y !== undefined) {
    if (Number.isNaN(x) || Number.isNaN(y)) return false;
    c = x < y ? -1 : x > y ? 1 : 0;
  } else if (typeof a === 'string' && typeof b === 'string') c = a < b ? -1 : a > b ? 1 : 0;
  else if (a instanceof Timestamp && b instanceof Timestamp) c = a.compare(b);
  else throw new VrlError(`can't compare ${valueKindName(a)} ${op} ${valueKindName(b)}`);
  switch (op) {
    case '<':
      return c < 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    default:
      return c >= 0;
  }
}

/** `==`: numbers compare across integer/float, the rest structurally. */
export function looseEquals(a: Value, b: Value): boolean {
  const x = num(a);
  if (x !== undefined) {
    const y = num(b);
    return y !== undefined && x === y;
  }
  return valueEquals(a, b);
}

/** `|`: a new object with the right side's fields over the left's. */
export function opMerge(a: Value, b: Value): Value {
  if (isObject(a) && isObject(b)) return { ...a, ...b };
  throw new VrlError(`can't merge type ${valueKindName(b)} into ${valueKindName(a)}`);
}

/** `&&`: null counts as false; the right side runs only when the left is true. */
export function opAnd(a: Value, b: () => Value): Value {
  if (a === null || a === false) {
    if (a === null || typeof a === 'boolean') return false;
  }
  if (a !== true) throw new VrlError(`can't apply an AND to types ${valueKindName(a)} and ${valueKindName(b())}`);
  const r = b();
  if (r === null) return false;
  if (typeof r === 'boolean') return r;
  throw new VrlError(`can't apply an AND to types ${valueKindName(a)} and ${valueKindName(r)}`);
}

/** Truthiness of `||`: only null and false are false. */
export function isFalsy(v: Value): boolean {
  return v === null || v === false;
}
