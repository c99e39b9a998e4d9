/**
 * msgpack reading for the forward protocol: msgpackr decodes, with every
 * extension type mapped to one {@link MsgpackExt} (msgpackr's own extensions, such as its
 * Set or RegExp types, would otherwise turn peer data into JS objects), maps kept as Map so that
 * non-string keys can be dropped, and 64-bit integers read as bigint so none loses precision
 * silently.
 */
import type * as Msgpackr from 'msgpackr';
import { lazyModule } from '../../../lib/lazy-module.js';
import { Float, type ObjectValue, type Value } from '../../../lib/value.js';

const msgpackr = lazyModule<typeof Msgpackr>('msgpackr');

/** An extension value as read: its type code (-128..127) and its data bytes. */
export class MsgpackExt {
  constructor(
    readonly code: number,
    readonly bytes: Buffer,
  ) {}
}

let registered = false;
/** msgpackr keeps extensions process-wide: registered once, for all 256 type bytes. */
function registerExtensions(): void {
  if (registered) return;
  registered = true;
  for (let type = 0; type < 256; type++) {
    const code = type > 127 ? type - 256 : type;
    // the data is a view of the connection buffer: copied, since events outlive it
    msgpackr().addExtension({ type, unpack: (data: Buffer) => new MsgpackExt(code, Buffer.from(data)) } as never);
  }
}

/** One unpacker for the source: decoding is synchronous, so connections can share it. */
export function createUnpackr(): Msgpackr.Unpackr {
  registerExtensions();
  return new (msgpackr().Unpackr)({ useRecords: false, mapsAsObjects: false, int64AsType: 'bigint', moreTypes: false } as never);
}

let packr: Msgpackr.Packr | undefined;
const packer = () => (packr ??= new (msgpackr().Packr)({ useRecords: false }));
let failed: Buffer | undefined;

/** `{ack: chunk}`, the answer to a chunk whose events were delivered. */
export function packAck(chunk: string): Buffer {
  return packer().pack({ ack: chunk });
}

/** `{}`, the answer to a chunk whose events were not delivered (the client sends it again); packed once. */
export function failedAck(): Buffer {
  return (failed ??= Buffer.from(packer().pack({})));
}

const I64_MAX = 2n ** 63n - 1n;

/**
 * A decoded msgpack value as an event value: bin becomes a string (lossy UTF-8), a map keeps
 * only its string keys, an unsigned integer above 2^63-1 becomes its decimal string, a
 * non-integral number a float (NaN becomes null), an extension `{ msgpack_extension_code, bytes }`.
 */
export function toValue(x: unknown): Value {
  switch (typeof x) {
    case 'string':
    case 'boolean':
      return x;
    case 'number':
      if (Number.isInteger(x)) return x;
      return Number.isNaN(x) ? null : new Float(x);
    case 'bigint':
      return x > I64_MAX ? x.toString() : Number(x);
    case 'undefined':
      return null;
    case 'object':
      if (x === null) return null;
      if (x instanceof Map) return mapToObject(x);
      if (Array.isArray(x)) {
        const out = new Array<Value>(x.length);
        for (let i = 0; i < x.length; i++) out[i] = toValue(x[i]);
        return out;
      }
      if (x instanceof Uint8Array) return Buffer.from(x.buffer, x.byteOffset, x.byteLength).toString('utf8');
      if (x instanceof MsgpackExt) return { msgpack_extension_code: x.code, bytes: x.bytes.toString('utf8') };
      return null;
    default:
      return null;
  }
}

/** A msgpack map as an object; entries whose key is not a string are dropped. */
export function mapToObject(m: Map<unknown, unknown>): ObjectValue {
  const out: ObjectValue = {};
  for (const [k, val] of m) if (typeof k === 'string') out[k] = toValue(val);
  return out;
}
