/**
 * `encoding.charset`: files written in another character set than UTF-8. Labels are those of the
 * WHATWG Encoding Standard (as Vector's `file` source documentation page says), decoded with
 * `TextDecoder`; invalid sequences become U+FFFD. The line delimiter is cut in the file's own
 * bytes: UTF-16 spells it in two-byte units, the other charsets accepted here keep ASCII as is.
 */

/** Charsets in which ASCII characters are not single ASCII bytes: the delimiter is spelled per charset. */
const UTF16 = new Set(['utf-16le', 'utf-16be']);
/** Charsets that shift state with escape sequences: a delimiter byte may sit inside a sequence. */
const STATEFUL = new Set(['iso-2022-jp', 'replacement']);

/** The canonical name of a label, or an error message when it is not supported. */
export function charsetName(label: string): string | { error: string } {
  let name: string;
  try {
    name = new TextDecoder(label).encoding;
  } catch {
    return { error: `unknown or unsupported charset "${label}"` };
  }
  if (STATEFUL.has(name)) return { error: `charset "${label}" (${name}) cannot be split into lines byte-wise` };
  return name;
}

/** How the bytes of one file become text. */
export interface Charset {
  /** The delimiter as it appears in the file's bytes. */
  readonly delimiter: Buffer;
  /** Decodes `buf[start, end)`; a byte order mark at its start is dropped. */
  decode(buf: Buffer, start: number, end: number): string;
}

/**
 * windows-1252 for bytes 0x80 to 0x9F (the Encoding Standard's table; 0x81, 0x8D, 0x8F, 0x90 and
 * 0x9D stay C1 controls). Node 20's TextDecoder decodes this charset as ISO-8859-1, which maps
 * those bytes to C1 controls: they are mapped again after decoding.
 */
const CP1252_HIGH = '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';
const C1 = /[\u0080-\u009f]/g;
const cp1252 = (text: string) => text.replace(C1, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80]!);

/** UTF-8 (the default): Buffer's own decoder. */
function utf8(delimiter: string): Charset {
  return { delimiter: Buffer.from(delimiter, 'utf8'), decode: (buf, start, end) => buf.toString('utf8', start, end) };
}

/** The charset of a validated `encoding.charset` (undefined: UTF-8). Throws when the delimiter cannot be spelled in it. */
export function openCharset(label: string | undefined, delimiter: string): Charset {
  const name = label === undefined ? 'utf-8' : charsetName(label);
  if (typeof name !== 'string') throw new Error(name.error);
  if (name === 'utf-8') return utf8(delimiter);
  const decoder = new TextDecoder(name);
  const decode =
    name === 'windows-1252'
      ? (buf: Buffer, start: number, end: number) => cp1252(decoder.decode(buf.subarray(start, end)))
      : (buf: Buffer, start: number, end: number) => decoder.decode(buf.subarray(start, end));
  if (UTF16.has(name)) {
    const le = Buffer.from(delimiter, 'utf16le');
    return { delimiter: name === 'utf-16le' ? le : Buffer.from(le).swap16(), decode };
  }
  if (!/^[\x00-\x7f]+$/.test(delimiter)) throw new Error(`line_delimiter must be ASCII with charset "${label}"`);
  return { delimiter: Buffer.from(delimiter, 'latin1'), decode };
}
