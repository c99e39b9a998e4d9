/**
 * Remap program throughput on one core, each case beside a hand-written JavaScript function doing
 * the same work on the same events.
 *
 *   node --expose-gc --import=tsx scripts/bench/remap.ts [events=200000]
 *
 * Events are built before the clock starts (programs mutate them in place); each side gets its
 * own copies. Prints events/s for both, the ratio (plain JS / weir) and the process's peak RSS.
 */
import { compile } from '../../remap/index.js';
import { type ObjectValue, type Value, Timestamp } from '../../lib/value.js';

const N = Number(process.argv[2] ?? 200_000);
const METHODS = ['GET', 'POST', 'PUT', 'DELETE'];
const LEVELS = ['info', 'warn', 'error', 'debug'];

function apacheLine(i: number): string {
  const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  const ts = `${String(1 + (i % 28)).padStart(2, '0')}/Oct/2023:13:${String(i % 60).padStart(2, '0')}:${String((i * 7) % 60).padStart(2, '0')} -0700`;
  return `${ip} - user${i % 100} [${ts}] "${METHODS[i % 4]} /api/v1/items/${i} HTTP/1.1" ${200 + (i % 5)} ${1000 + (i % 9000)}`;
}

/** A ~500-byte JSON application log. */
function jsonLine(i: number): string {
  return JSON.stringify({
    timestamp: `2024-05-01T10:00:${String(i % 60).padStart(2, '0')}.${String(i % 1000).padStart(3, '0')}Z`,
    level: LEVELS[i % 4],
    service: 'checkout',
    host: `web-${String(i % 16).padStart(2, '0')}.example.internal`,
    request: { id: `req-${i}-7f3a9c`, method: METHODS[i % 4], path: `/api/v1/orders/${i}/items`, status: 200 + (i % 5) * 100, duration_ms: (i % 997) / 10 },
    user: { id: i % 5000, name: `user${i % 5000}`, roles: ['buyer', 'member'] },
    message: 'order line items fetched from the inventory service after cache miss; retrying not needed',
    trace: { trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: '00f067aa0ba902b7' },
  });
}

function syslogLine(i: number): string {
  return `<${(i % 24) * 8 + (i % 8)}>1 2024-05-01T10:00:${String(i % 60).padStart(2, '0')}.${String(i % 1000).padStart(3, '0')}Z host${i % 10}.example.com app${i % 5} ${1000 + (i % 3000)} ID${i % 50} [exampleSDID@32473 iut="3" eventSource="Application" eventID="${1000 + (i % 100)}"] request ${i} served in ${i % 250} ms`;
}

const APACHE_RE = String.raw`^(?P<host>\S+) (?P<ident>\S+) (?P<user>\S+) \[(?P<timestamp>[^\]]+)\] "(?P<method>\S+) (?P<path>\S+) (?P<protocol>[^"]+)" (?P<status>\d+) (?P<size>\d+|-)$`;
const APACHE_JS = /^(?<host>\S+) (?<ident>\S+) (?<user>\S+) \[(?<timestamp>[^\]]+)\] "(?<method>\S+) (?<path>\S+) (?<protocol>[^"]+)" (?<status>\d+) (?<size>\d+|-)$/;

const FACILITIES = ['kern', 'user', 'mail', 'daemon', 'auth', 'syslog', 'lpr', 'news', 'uucp', 'cron', 'authpriv', 'ftp', 'ntp', 'security', 'console', 'solaris-cron', 'local0', 'local1', 'local2', 'local3', 'local4', 'local5', 'local6', 'local7'];
const SEVERITIES = ['emerg', 'alert', 'crit', 'err', 'warning', 'notice', 'info', 'debug'];
const SYSLOG_JS = /^<(\d{1,3})>1 (\S+) (\S+) (\S+) (\S+) (\S+) (-|(?:\[[^\]]*\])+) ?(.*)$/s;
const SD_JS = /\[([^\s\]]+)((?: [^=\s]+="[^"]*")*)\]/g;
const SD_PARAM_JS = / ([^=\s]+)="([^"]*)"/g;

/** Hand-written RFC 5424 parse: same fields as parse_syslog (structured data flattened as `id.key`). */
function plainSyslog(line: string): ObjectValue {
  const m = SYSLOG_JS.exec(line);
  if (!m) throw new Error('unable to parse input as valid syslog message');
  const pri = Number(m[1]);
  const out: ObjectValue = {
    severity: SEVERITIES[pri & 7]!,
    facility: FACILITIES[pri >> 3]!,
    version: 1,
    timestamp: Timestamp.parse(m[2]!)!,
    hostname: m[3]!,
    appname: m[4]!,
    procid: Number(m[5]),
    msgid: m[6]!,
  };
  if (m[7] !== '-') {
    for (const sd of m[7]!.matchAll(SD_JS)) {
      const el: ObjectValue = {};
      for (const p of sd[2]!.matchAll(SD_PARAM_JS)) el[p[1]!] = p[2]!;
      out[sd[1]!] = el;
    }
  }
  out.message = m[8]!;
  return out;
}

interface Case {
  readonly name: string;
  readonly program: string;
  readonly line: (i: number) => string;
  readonly plain: (e: { [k: string]: unknown }) => unknown;
}

const cases: Case[] = [
  { name: 'a: .x = 1', program: '.x = 1', line: (i) => `message ${i}`, plain: (e) => void (e.x = 1) },
  {
    name: 'b: parse_json + 3 writes',
    program: '.data = parse_json!(.message)\n.service = "checkout"\n.ingested = true\n.status = .data.request.status',
    line: jsonLine,
    plain: (e) => {
      const data = JSON.parse(e.message as string) as { request: { status: number } };
      e.data = data;
      e.service = 'checkout';
      e.ingested = true;
      e.status = data.request.status;
    },
  },
  {
    name: 'c: parse_regex (apache)',
    program: `. |= parse_regex!(.message, r'${APACHE_RE}')`,
    line: apacheLine,
    plain: (e) => {
      const m = APACHE_JS.exec(e.message as string);
      if (!m) throw new Error('no match');
      Object.assign(e, m.groups);
    },
  },
  {
    name: 'd: parse_syslog (5424)',
    program: '. = parse_syslog!(.message)',
    line: syslogLine,
    plain: (e) => {
      const r = plainSyslog(e.message as string);
      for (const k in e) delete e[k];
      Object.assign(e, r);
    },
  },
  {
    name: 'e: 15-line program',
    program: [
      '. |= parse_json!(.message)',
      'del(.message)',
      '.status = to_int!(.request.status)',
      '.duration = to_float!(.request.duration_ms)',
      '.method = downcase!(.request.method)',
      '.path = .request.path',
      'del(.request)',
      '.user_id = .user.id',
      'del(.user)',
      '.severity = del(.level)',
      '.ts = parse_timestamp!(.timestamp, "%+")',
      'del(.timestamp)',
      'if .status >= 500 { .route = "errors" } else if .duration > 50.0 { .route = "slow" } else { .route = "ok" }',
      '.tags = { "service": .service, "host": .host }',
      'del(.trace)',
    ].join('\n'),
    line: jsonLine,
    plain: (e) => {
      const d = JSON.parse(e.message as string) as { [k: string]: any };
      Object.assign(e, d);
      delete e.message;
      e.status = Number(d.request.status);
      e.duration = Number(d.request.duration_ms);
      e.method = String(d.request.method).toLowerCase();
      e.path = d.request.path;
      delete e.request;
      e.user_id = d.user.id;
      delete e.user;
      e.severity = e.level;
      delete e.level;
      e.ts = Timestamp.parse(e.timestamp as string);
      delete e.timestamp;
      e.route = (e.status as number) >= 500 ? 'errors' : (e.duration as number) > 50 ? 'slow' : 'ok';
      e.tags = { service: e.service, host: e.host };
      delete e.trace;
    },
  },
];

function events(c: Case, n: number): { [k: string]: unknown }[] {
  const out = new Array<{ [k: string]: unknown }>(n);
  for (let i = 0; i < n; i++) out[i] = { message: c.line(i), host: 'web-01', source_type: 'demo_logs' };
  return out;
}

/**
 * Moves freshly built events out of the young generation before the clock starts, so that neither
 * side pays for promoting the other's input (the side that allocates per event would otherwise).
 */
function settleHeap(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) return gc();
  let keep: unknown = null;
  for (let i = 0; i < 4_000_000; i++) keep = { i, keep: i % 1000 === 0 ? null : keep };
  void keep;
}

/** Events per second of `f` over fresh events; best of three passes after a warm-up. */
function measure(c: Case, f: (e: { [k: string]: unknown }) => void): number {
  f(events(c, 1)[0]!);
  for (const e of events(c, Math.min(N, 20_000))) f(e);
  let best = 0;
  for (let pass = 0; pass < 3; pass++) {
    const evs = events(c, N);
    settleHeap();
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < evs.length; i++) f(evs[i]!);
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    best = Math.max(best, N / s);
  }
  return best;
}

const rows: string[][] = [['case', 'weir events/s', 'plain JS events/s', 'ratio']];
for (const c of cases) {
  const program = compile(c.program);
  const check = program.run(events(c, 1)[0] as Value);
  if (!check.ok) throw new Error(`${c.name}: ${check.error}`);
  const weir = measure(c, (e) => {
    const r = program.run(e as Value);
    if (!r.ok) throw new Error(r.error);
  });
  const plain = measure(c, c.plain);
  rows.push([c.name, Math.round(weir).toLocaleString('en-US'), Math.round(plain).toLocaleString('en-US'), `${(plain / weir).toFixed(2)}x`]);
}
const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
for (const r of rows) console.log(r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  '));
console.log(`events per pass: ${N}; peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
