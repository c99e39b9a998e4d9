/**
 * Loads `file` enrichment tables (CSV) into memory for remap's enrichment functions, as Vector
 * does: the first record names the columns (or columns are "0", "1", … without headers), blank
 * lines are skipped, every record must have as many fields as the first, and `schema` converts
 * the named columns (Vector's conversions, plus `date`/`date|<format>` read as midnight UTC).
 * A table is read once per path, options, zone and file modification time.
 */
import { readFileSync, statSync } from 'node:fs';
import type { EnrichmentTableConfig } from '../../lib/config/enrichment-tables.js';
import { compileFormat } from '../../lib/time/strftime.js';
import type { Value } from '../../lib/value.js';
import type { EnrichmentTable } from '../../remap/index.js';
import { compileConversion } from '../transforms/tokenizer/convert.js';

/**
 * Records of CSV text: `""` in quotes is one quote, quoted fields may hold delimiters and line
 * breaks; a leading byte order mark is dropped.
 */
export function parseCsvRecords(text: string, delimiter: string): string[][] {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let wasQuoted = false;
  const endRecord = () => {
    // a blank line is no record
    if (record.length > 0 || wasQuoted || field !== '') {
      record.push(field);
      records.push(record);
    }
    record = [];
    field = '';
    wasQuoted = false;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c !== '"') field += c;
      else if (text[i + 1] === '"') {
        field += '"';
        i++;
      } else quoted = false;
    } else if (c === '"' && field === '' && !wasQuoted) {
      quoted = true;
      wasQuoted = true;
    } else if (c === delimiter) {
      record.push(field);
      field = '';
      wasQuoted = false;
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endRecord();
    } else field += c;
  }
  endRecord();
  return records;
}

type Converter = (text: string) => Value;

/** A date column: the text read with the format at midnight UTC (a date has no time of day). */
function dateConverter(format: string): Converter {
  const f = compileFormat(`${format.trim()} %H:%M:%S`);
  return (text) => f.parse(`${text} 00:00:00`, undefined);
}

function columnConverter(type: string, tz: string | undefined): Converter {
  const bar = type.indexOf('|');
  const name = (bar < 0 ? type : type.slice(0, bar)).trim();
  if (name === 'date') return dateConverter(bar < 0 ? '%Y-%m-%d' : type.slice(bar + 1));
  return compileConversion(type, tz);
}

/** Reads one table; throws with the file and the record that failed. */
export function readFileTable(name: string, config: EnrichmentTableConfig, tz: string | undefined): EnrichmentTable {
  const { path, encoding } = config.file;
  const where = `enrichment_tables.${name}: ${path}`;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(`${where}: ${(e as Error).message}`, { cause: e });
  }
  const records = parseCsvRecords(text, encoding.delimiter);
  const includeHeaders = encoding.include_headers;
  const first = records[0];
  const headers = includeHeaders ? (first ?? []) : (first ?? []).map((_f, i) => String(i));
  const data = includeHeaders ? records.slice(1) : records;
  let converters: (Converter | undefined)[];
  try {
    converters = headers.map((h) => (config.schema[h] === undefined ? undefined : columnConverter(config.schema[h]!, tz)));
  } catch (e) {
    throw new Error(`${where}: schema: ${(e as Error).message}`, { cause: e });
  }
  const rows = data.map((record, r) => {
    const line = r + (includeHeaders ? 2 : 1);
    if (record.length !== headers.length) throw new Error(`${where}: record ${line} has ${record.length} fields, but the ${includeHeaders ? 'header has' : 'first record has'} ${headers.length}`);
    return record.map((text, c) => {
      const convert = converters[c];
      if (!convert) return text as Value;
      try {
        return convert(text);
      } catch {
        throw new Error(`${where}: unable to parse ${text} found in row ${line} (column "${headers[c]}" as ${config.schema[headers[c]!]})`);
      }
    });
  });
  return { headers, rows };
}

const cache = new Map<string, { readonly mtimeMs: number; readonly size: number; readonly table: EnrichmentTable }>();

/** Every configured table, loaded (from the cache while the file is unchanged); throws on the first that fails. */
export function loadEnrichmentTables(configs: Readonly<Record<string, EnrichmentTableConfig>>, tz: string | undefined): Map<string, EnrichmentTable> {
  const out = new Map<string, EnrichmentTable>();
  for (const [name, config] of Object.entries(configs)) {
    const key = JSON.stringify([config, tz]);
    let stat;
    try {
      stat = statSync(config.file.path);
    } catch (e) {
      throw new Error(`enrichment_tables.${name}: ${config.file.path}: ${(e as Error).message}`, { cause: e });
    }
    const hit = cache.get(key);
    if (hit && hit.mtimeMs === stat.mtimeMs && hit.size === stat.size) {
      out.set(name, hit.table);
      continue;
    }
    const table = readFileTable(name, config, tz);
    cache.set(key, { mtimeMs: stat.mtimeMs, size: stat.size, table });
    out.set(name, table);
  }
  return out;
}
