/** parse_xml: elements to objects (attributes `@name`, repeated children as arrays, text under `text`). */
import { type ObjectValue, type Value, Float } from '../../lib/value.js';
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { optStr } from './args.js';
import { fail } from './errors.js';

interface XmlElement {
  readonly name: string;
  readonly attrs: [string, string][];
  readonly children: (XmlElement | string | { pi: true })[];
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#\d+|\w+);/g, (m, e: string) => {
    if (e.startsWith('#x')) return String.fromCodePoint(parseInt(e.slice(2), 16));
    if (e.startsWith('#')) return String.fromCodePoint(Number(e.slice(1)));
    return ENTITIES[e] ?? m;
  });
}

function parseDocument(s: string): XmlElement {
  let i = 0;
  const pos = (): string => {
    const before = s.slice(0, i);
    const line = before.split('\n').length;
    return `${line}:${i - before.lastIndexOf('\n')}`;
  };
  const err = (m: string): never => fail(`unable to parse xml: ${m} at ${pos()}`);
  const skipMisc = (): void => {
    for (;;) {
      while (i < s.length && /\s/.test(s[i]!)) i++;
      if (s.startsWith('<?', i)) {
        const e = s.indexOf('?>', i);
        if (e < 0) err('unterminated processing instruction');
        i = e + 2;
      } else if (s.startsWith('<!--', i)) {
        const e = s.indexOf('-->', i);
        if (e < 0) err('unterminated comment');
        i = e + 3;
      } else if (s.startsWith('<!DOCTYPE', i)) {
        const e = s.indexOf('>', i);
        i = e < 0 ? s.length : e + 1;
      } else return;
    }
  };
  const element = (): XmlElement => {
    if (s[i] !== '<') err('unknown token');
    i++;
    const nm = /^[^\s/>]+/.exec(s.slice(i));
    if (!nm) err('invalid element name');
    const name = nm![0];
    i += name.length;
    const attrs: [string, string][] = [];
    for (;;) {
      while (/\s/.test(s[i] ?? '')) i++;
      if (s.startsWith('/>', i)) {
        i += 2;
        return { name, attrs, children: [] };
      }
      if (s[i] === '>') {
        i++;
        break;
      }
      const am = /^([^\s=/>]+)\s*=\s*("([^"]*)"|'([^']*)')/.exec(s.slice(i));
      if (!am) err('invalid attribute');
      attrs.push([am![1]!, decodeEntities(am![3] ?? am![4] ?? '')]);
      i += am![0].length;
    }
    const children: XmlElement['children'] = [];
    for (;;) {
      if (i >= s.length) err(`unexpected end of input in <${name}>`);
      if (s.startsWith('</', i)) {
        const e = s.indexOf('>', i);
        const close = s.slice(i + 2, e).trim();
        if (close !== name) err(`mismatched closing tag </${close}>`);
        i = e + 1;
        return { name, attrs, children };
      }
      if (s.startsWith('<!--', i)) {
        const e = s.indexOf('-->', i);
        if (e < 0) err('unterminated comment');
        i = e + 3;
      } else if (s.startsWith('<![CDATA[', i)) {
        const e = s.indexOf(']]>', i);
        if (e < 0) err('unterminated CDATA');
        children.push(s.slice(i + 9, e));
        i = e + 3;
      } else if (s.startsWith('<?', i)) {
        const e = s.indexOf('?>', i);
        if (e < 0) err('unterminated processing instruction');
        children.push({ pi: true });
        i = e + 2;
      } else if (s[i] === '<') children.push(element());
      else {
        const e = s.indexOf('<', i);
        const end = e < 0 ? s.length : e;
        children.push(decodeEntities(s.slice(i, end)));
        i = end;
      }
    }
  };
  skipMisc();
  if (s[i] !== '<') err('unknown token');
  const root = element();
  skipMisc();
  if (i < s.length) err('unexpected content after the root element');
  return root;
}

interface XmlOptions {
  includeAttr: boolean;
  attrPrefix: string;
  textKey: string;
  alwaysText: boolean;
  parseBool: boolean;
  parseNull: boolean;
  parseNumber: boolean;
  trim: boolean;
}

function scalar(t: string, o: XmlOptions): Value {
  if (o.parseBool && (t === 'true' || t === 'false')) return t === 'true';
  if (o.parseNull && t === 'null') return null;
  if (o.parseNumber) {
    if (/^[+-]?\d+$/.test(t) && Number.isSafeInteger(Number(t))) return Number(t);
    if (/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(t)) return new Float(Number(t));
  }
  return t;
}

function add(o: ObjectValue, k: string, v: Value): void {
  if (!Object.prototype.hasOwnProperty.call(o, k)) o[k] = v;
  else {
    const cur = o[k]!;
    o[k] = Array.isArray(cur) ? [...cur, v] : [cur, v];
  }
}

function convert(el: XmlElement, o: XmlOptions): Value {
  const texts: string[] = [];
  const elems: XmlElement[] = [];
  let other = 0;
  for (const c of el.children) {
    if (typeof c === 'string') {
      const t = o.trim ? c.trim() : c;
      if (t !== '') texts.push(t);
    } else if ('pi' in c) other++;
    else elems.push(c);
  }
  const attrs = o.includeAttr ? el.attrs : [];
  if (attrs.length === 0 && elems.length === 0 && other === 0 && texts.length === 1 && !o.alwaysText) return scalar(texts[0]!, o);
  const out: ObjectValue = {};
  for (const [k, v] of attrs) out[o.attrPrefix + k] = v;
  for (const c of el.children) {
    if (typeof c === 'string') {
      const t = o.trim ? c.trim() : c;
      if (t !== '') add(out, o.textKey, scalar(t, o));
    } else if (!('pi' in c)) add(out, c.name, convert(c, o));
  }
  return out;
}

const b = (v: Value | undefined, d: boolean): boolean => (typeof v === 'boolean' ? v : d);

/** The functions of this file, for the stdlib list. */
export const xmlFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'parse_xml',
    description: 'Parses XML into an object.',
    fresh: true,
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'include_attr', kind: K.BOOLEAN },
      { name: 'attr_prefix', kind: K.BYTES },
      { name: 'text_key', kind: K.BYTES },
      { name: 'always_use_text_key', kind: K.BOOLEAN },
      { name: 'parse_bool', kind: K.BOOLEAN },
      { name: 'parse_null', kind: K.BOOLEAN },
      { name: 'parse_number', kind: K.BOOLEAN },
      { name: 'trim', kind: K.BOOLEAN },
    ],
    fallible: true,
    returns: K.K_OBJECT,
    call: ([v, ia, ap, tk, at, pb, pn, pnum, tr]) => {
      const o: XmlOptions = {
        includeAttr: b(ia, true),
        attrPrefix: optStr(ap, '@'),
        textKey: optStr(tk, 'text'),
        alwaysText: b(at, false),
        parseBool: b(pb, true),
        parseNull: b(pn, true),
        parseNumber: b(pnum, true),
        trim: b(tr, true),
      };
      const root = parseDocument(v as string);
      return { [root.name]: convert(root, o) };
    },
  }),
];
