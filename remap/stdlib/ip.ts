/** IP address functions: ip_cidr_contains, ip_aton/ntoa, ip_subnet, ip_to_ipv6, ipv6_to_ipv4, is_ipv4/6, community_id. */
import { createHash } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { fromBytes, toBytes } from './bytes.js';
import { fail } from './errors.js';

/** Parses an address into 4 (IPv4) or 16 (IPv6) bytes. */
export function ipBytes(s: string): number[] {
  if (isIPv4(s)) return s.split('.').map(Number);
  if (!isIPv6(s)) return fail('unable to parse IP address: invalid IP address syntax');
  let text = s;
  let tail: number[] = [];
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    tail = v4[1]!.split('.').map(Number);
    text = text.slice(0, -v4[1]!.length) + '0:0';
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const r = rest !== undefined && rest !== '' ? rest.split(':') : [];
  const groups = rest === undefined ? h : [...h, ...new Array<string>(8 - h.length - r.length).fill('0'), ...r];
  const out: number[] = [];
  for (const g of groups) {
    const n = parseInt(g, 16);
    out.push(n >> 8, n & 0xff);
  }
  if (tail.length) out.splice(12, 4, ...tail);
  return out;
}

/** Formats 4 or 16 bytes as an address (IPv6 compressed as Rust's Display). */
export function formatIp(b: number[]): string {
  if (b.length === 4) return b.join('.');
  const g: number[] = [];
  for (let i = 0; i < 16; i += 2) g.push((b[i]! << 8) | b[i + 1]!);
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return `::ffff:${b.slice(12).join('.')}`;
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (g[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLen && j - i > 1) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = g.map((x) => x.toString(16));
  if (bestStart < 0) return hex.join(':');
  return hex.slice(0, bestStart).join(':') + '::' + hex.slice(bestStart + bestLen).join(':');
}

function cidrContains(cidr: string, ip: number[]): boolean {
  const slash = cidr.indexOf('/');
  if (slash < 0) return fail('unable to parse CIDR: invalid IP address syntax');
  let net: number[];
  try {
    net = ipBytes(cidr.slice(0, slash));
  } catch {
    return fail('unable to parse CIDR: invalid IP address syntax');
  }
  const bits = Number(cidr.slice(slash + 1));
  if (!Number.isInteger(bits) || bits < 0 || bits > net.length * 8) return fail('unable to parse CIDR: invalid prefix length');
  if (net.length !== ip.length) return false;
  for (let i = 0; i < bits; i++) {
    const byte = i >> 3;
    const mask = 0x80 >> (i & 7);
    if ((net[byte]! & mask) !== (ip[byte]! & mask)) return false;
  }
  return true;
}

/** community_id v1 (Corelight spec): seed 0, base64 SHA-1 over the ordered flow tuple. */
function communityId(src: string, dst: string, proto: number, sport: number | undefined, dport: number | undefined, seed: number): string {
  let a = ipBytes(src);
  let b = ipBytes(dst);
  let pa = sport ?? 0;
  let pb = dport ?? 0;
  const cmpIp = (x: number[], y: number[]): number => {
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
    return 0;
  };
  const c = cmpIp(a, b);
  if (c > 0 || (c === 0 && pa > pb)) {
    [a, b] = [b, a];
    [pa, pb] = [pb, pa];
  }
  const parts: number[] = [seed >> 8, seed & 0xff, ...a, ...b, proto, 0];
  if (sport !== undefined && dport !== undefined) parts.push(pa >> 8, pa & 0xff, pb >> 8, pb & 0xff);
  return '1:' + createHash('sha1').update(Buffer.from(parts)).digest('base64');
}

/** The functions of this file, for the stdlib list. */
export const ipFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'ip_cidr_contains',
    description: 'Whether an IP address is in a CIDR block.',
    params: [
      { name: 'cidr', kind: K.BYTES | K.ARRAY, required: true },
      { name: 'value', kind: K.BYTES, required: true },
    ],
    fallible: true,
    returns: K.K_BOOLEAN,
    call: ([c, v]) => {
      const ip = ipBytes(v as string);
      const list = Array.isArray(c) ? c : [c!];
      return list.some((x) => (typeof x === 'string' ? cidrContains(x, ip) : fail(`expected string, got ${K.valueKindName(x)}`)));
    },
  }),
  defineFunction({
    name: 'ip_aton',
    description: 'IPv4 address as an integer.',
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.K_INTEGER,
    call: ([v]) => {
      if (!isIPv4(v as string)) return fail('unable to parse IPv4 address: invalid IPv4 address syntax');
      return (v as string).split('.').reduce((a, x) => a * 256 + Number(x), 0);
    },
  }),
  defineFunction({
    name: 'ip_ntoa',
    description: 'IPv4 address text from an integer.',
    params: [{ name: 'value', kind: K.INTEGER, required: true }],
    fallible: true,
    returns: K.K_BYTES,
    call: ([v]) => {
      const n = v as number;
      if (n < 0 || n > 0xffffffff) return fail('cannot convert to IPv4 address: value out of range');
      return [n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff].join('.');
    },
  }),
  defineFunction({
    name: 'ip_subnet',
    description: 'Subnet of an IP address for a mask or prefix length.',
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'subnet', kind: K.BYTES, required: true },
    ],
    fallible: true,
    returns: K.K_BYTES,
    call: ([v, s]) => {
      const ip = ipBytes(v as string);
      const sub = s as string;
      let mask: number[];
      if (sub.startsWith('/')) {
        const bits = Number(sub.slice(1));
        if (!Number.isInteger(bits) || bits < 0 || bits > ip.length * 8) return fail('subnet cannot be greater than address length');
        mask = ip.map((_, i) => (i * 8 + 8 <= bits ? 0xff : i * 8 >= bits ? 0 : (0xff << (8 - (bits - i * 8))) & 0xff));
      } else {
        mask = ipBytes(sub);
        if (mask.length !== ip.length) return fail('subnet and address must be of the same family');
      }
      return formatIp(ip.map((b, i) => b & mask[i]!));
    },
  }),
  defineFunction({
    name: 'ip_to_ipv6',
    description: 'IPv4 address as an IPv4-mapped IPv6 address.',
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.K_BYTES,
    call: ([v]) => {
      const b = ipBytes(v as string);
      return formatIp(b.length === 16 ? b : [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...b]);
    },
  }),
  defineFunction({
    name: 'ipv6_to_ipv4',
    description: 'IPv4 address of an IPv4-mapped IPv6 address.',
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.K_BYTES,
    call: ([v]) => {
      const b = ipBytes(v as string);
      if (b.length === 4) return formatIp(b);
      if (b.slice(0, 10).every((x) => x === 0) && ((b[10] === 0xff && b[11] === 0xff) || (b[10] === 0 && b[11] === 0))) return b.slice(12).join('.');
      return fail(`IPV6 address ${v} is not compatible with IPV4`);
    },
  }),
  defineFunction({
    name: 'ip_ntop',
    description: 'IP address text from its network-order bytes.',
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.K_BYTES,
    call: ([v]) => {
      const b = toBytes(v as string);
      if (b.length !== 4 && b.length !== 16) return fail('"value" must be of length 4 or 16 bytes');
      return formatIp([...b]);
    },
  }),
  defineFunction({
    name: 'ip_pton',
    description: 'Network-order bytes of an IP address.',
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.K_BYTES,
    call: ([v]) => fromBytes(Buffer.from(ipBytes(v as string))),
  }),
  defineFunction({ name: 'is_ipv4', description: 'Whether a string is an IPv4 address.', params: [{ name: 'value', kind: K.BYTES, required: true }], returns: K.K_BOOLEAN, call: ([v]) => isIPv4(v as string) }),
  defineFunction({ name: 'is_ipv6', description: 'Whether a string is an IPv6 address.', params: [{ name: 'value', kind: K.BYTES, required: true }], returns: K.K_BOOLEAN, call: ([v]) => isIPv6(v as string) }),
  defineFunction({
    name: 'community_id',
    description: 'Community ID flow hash of a network five-tuple.',
    params: [
      { name: 'source_ip', kind: K.BYTES, required: true },
      { name: 'destination_ip', kind: K.BYTES, required: true },
      { name: 'protocol', kind: K.INTEGER, required: true },
      { name: 'source_port', kind: K.INTEGER },
      { name: 'destination_port', kind: K.INTEGER },
      { name: 'seed', kind: K.INTEGER },
    ],
    fallible: true,
    returns: K.K_BYTES,
    call: ([s, d, p, sp, dp, seed]) =>
      communityId(s as string, d as string, p as number, typeof sp === 'number' ? sp : undefined, typeof dp === 'number' ? dp : undefined, typeof seed === 'number' ? seed : 0),
  }),
];
