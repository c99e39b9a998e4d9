/** Punycode (RFC 3492) domain names: encode_punycode and decode_punycode. */
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { opt, req } from './args.js';
import { fail } from './errors.js';

// RFC 3492 punycode (bootstring) parameters
const BASE = 36;
const TMIN = 1;
const TMAX = 26;
const SKEW = 38;
const DAMP = 700;
const INITIAL_BIAS = 72;
const INITIAL_N = 128;

function adapt(delta: number, numPoints: number, first: boolean): number {
  delta = first ? Math.floor(delta / DAMP) : delta >> 1;
  delta += Math.floor(delta / numPoints);
  let k = 0;
  while (delta > ((BASE - TMIN) * TMAX) >> 1) {
    delta = Math.floor(delta / (BASE - TMIN));
    k += BASE;
  }
  return k + Math.floor(((BASE - TMIN + 1) * delta) / (delta + SKEW));
}

const digitChar = (d: number): string => String.fromCharCode(d < 26 ? 97 + d : 22 + d);

/** Encodes one label's code points (no `xn--` prefix). */
export function punyEncode(input: string): string {
  const cps = Array.from(input, (c) => c.codePointAt(0)!);
  let out = cps.filter((c) => c < 128).map((c) => String.fromCharCode(c)).join('');
  const b = out.length;
  let h = b;
  if (b > 0) out += '-';
  let n = INITIAL_N;
  let delta = 0;
  let bias = INITIAL_BIAS;
  while (h < cps.length) {
    const m = Math.min(...cps.filter((c) => c >= n));
    delta += (m - n) * (h + 1);
    n = m;
    for (const c of cps) {
      if (c < n) delta++;
      if (c === n) {
        let q = delta;
        for (let k = BASE; ; k += BASE) {
          const t = k <= bias ? TMIN : k >= bias + TMAX ? TMAX : k - bias;
          if (q < t) break;
          out += digitChar(t + ((q - t) % (BASE - t)));
          q = Math.floor((q - t) / (BASE - t));
        }
        out += digitChar(q);
        bias = adapt(delta, h + 1, h === b);
        delta = 0;
        h++;
      }
    }
    delta++;
    n++;
  }
  return out;
}

/** Decodes one label (no `xn--` prefix); throws on invalid input. */
export function punyDecode(input: string): string {
  const out: number[] = [];
  const basic = input.lastIndexOf('-');
  for (let j = 0; j < Math.max(basic, 0); j++) out.push(input.charCodeAt(j));
  let n = INITIAL_N;
  let i = 0;
  let bias = INITIAL_BIAS;
  for (let idx = basic > 0 ? basic + 1 : 0; idx < input.length; ) {
    const oldi = i;
    let w = 1;
    for (let k = BASE; ; k += BASE) {
      if (idx >= input.length) throw new Error('invalid punycode');
      const c = input.charCodeAt(idx++);
      const digit = c - 48 < 10 ? c - 22 : c - 65 < 26 ? c - 65 : c - 97 < 26 ? c - 97 : BASE;
      if (digit >= BASE) throw new Error('invalid punycode');
      i += digit * w;
      const t = k <= bias ? TMIN : k >= bias + TMAX ? TMAX : k - bias;
      if (digit < t) break;
      w *= BASE - t;
    }
    bias = adapt(i - oldi, out.length + 1, oldi === 0);
    n += Math.floor(i / (out.length + 1));
    i %= out.length + 1;
    out.splice(i++, 0, n);
  }
  return String.fromCodePoint(...out);
}

const DOMAIN_PARAMS = [req('value', K.BYTES), opt('validate', K.BOOLEAN)];

/** The functions of this file, for the stdlib list. */
export const punycodeFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'encode_punycode',
    description: 'Encodes a domain name as punycode.',
    params: DOMAIN_PARAMS,
    fallible: true,
    returns: K.K_BYTES,
    call: ([v]) =>
      (v as string)
        .split('.')
        .map((l) => (/^[\x00-\x7f]*$/.test(l) ? l.toLowerCase() : 'xn--' + punyEncode(l.toLowerCase())))
        .join('.'),
  }),
  defineFunction({
    name: 'decode_punycode',
    description: 'Decodes a punycode domain name.',
    params: DOMAIN_PARAMS,
    fallible: true,
    returns: K.K_BYTES,
    call: ([v]) =>
      (v as string)
        .split('.')
        .map((l) => {
          if (!/^xn--/i.test(l)) return l.toLowerCase();
          try {
            return punyDecode(l.slice(4).toLowerCase());
          } catch {
            return fail('unable to decode punycode');
          }
        })
        .join('.'),
  }),
];
