/**
 * The benchmark corpora of 200-byte lines (199 characters and a newline), each line distinct (a
 * file's checksum fingerprint hashes its first line): `syslog`-shaped lines, and Apache common log
 * lines with the regex the parse_regex cases use. Shared by the tcp and file benchmarks so their
 * figures compare.
 */

export const LINE_BYTES = 200;

export type Corpus = 'syslog' | 'apache';

/** A syslog-shaped line, padded to 199 characters. */
export function syslogLine(n: number): string {
  const line = `<34>1 2024-05-01T10:00:00.${String(n % 1000).padStart(3, '0')}Z host-${n % 17} app-${n % 5} ${n % 9999} ID${n % 47} - seq=${n} user=alice action=login status=ok path=/api/v1/items/${n % 1000} `;
  return line.padEnd(LINE_BYTES - 1, 'x');
}

/** An Apache common log line, its path padded so the line is 199 characters. */
export function apacheLine(n: number): string {
  const head = `10.0.${n % 256}.${(n >> 8) % 256} - user${n % 50} [01/May/2024:10:00:${String(n % 60).padStart(2, '0')} +0000] "GET /api/v1/items/${n % 1000}/`;
  const tail = ` HTTP/1.1" ${n % 7 === 0 ? 404 : 200} ${n % 100000}`;
  return head + 'x'.repeat(Math.max(0, LINE_BYTES - 1 - head.length - tail.length)) + tail;
}

/** One block of lines `first` to `first + count - 1` of a corpus. */
export function block(first: number, count: number, corpus: Corpus): Buffer {
  const buf = Buffer.allocUnsafe(count * LINE_BYTES);
  const line = corpus === 'apache' ? apacheLine : syslogLine;
  for (let i = 0; i < count; i++) buf.write(line(first + i) + '\n', i * LINE_BYTES, 'latin1');
  return buf;
}

/** The Apache common-log pattern, in the remap language's syntax and in JavaScript's. */
export const COMMON_LOG = String.raw`^(?P<host>\S+) (?P<ident>\S+) (?P<user>\S+) \[(?P<timestamp>[^\]]+)\] "(?P<method>\S+) (?P<path>\S+) (?P<protocol>[^"]+)" (?P<status>\d{3}) (?P<size>\d+|-)$`;
export const commonLog = new RegExp(COMMON_LOG.replaceAll('(?P<', '(?<'));

/** The record bare Node posts for one line: the line and a timestamp, with `regex` also the captures. */
export function baselineRecord(regex: boolean): (line: string) => string {
  if (!regex) return (line) => JSON.stringify({ message: line, timestamp: new Date().toISOString() });
  return (line) => {
    const rec: Record<string, string> = { message: line, timestamp: new Date().toISOString() };
    const m = commonLog.exec(line);
    if (m?.groups) for (const k in m.groups) rec[k] = m.groups[k]!;
    return JSON.stringify(rec);
  };
}
