/** Web server logs: parse_common_log, parse_apache_log and parse_nginx_log (common/combined/error/main/ingress layouts). */
import { type ObjectValue, Float } from '../../lib/value.js';
import { compileFormat } from '../../lib/time/strftime.js';
import { type FnDef, FunctionCompileError, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { builtRegex } from '../regex.js';
import { opt, optStr, req } from './args.js';
import { fail } from './errors.js';

const INTS = new Set(['status', 'size', 'pid', 'tid', 'cid', 'port', 'body_bytes_size', 'request_length', 'upstream_response_length', 'upstream_status']);
const FLOATS = new Set(['excess', 'request_time', 'upstream_response_time']);

const Q = String.raw`(?:\\"|[^"])`;
const APACHE_COMMON = String.raw`^\s*(-|(?<host>.*?))\s+(-|(?<identity>.*?))\s+(-|(?<user>.*?))\s+(-|\[(-|(?<timestamp>[^[]*))\])\s+(-|"(-|(\s*(?<message>((?<method>\w+)\s+(?<path>${Q}*?)\s+(?<protocol>${Q}*?)\s*|${Q}*?))\s*))")\s+(-|(?<status>\d+))\s+(-|(?<size>\d+))`;
const APACHE: Record<string, RegExp[]> = {
  common: [builtRegex(APACHE_COMMON + String.raw`\s*$`)],
  combined: [builtRegex(APACHE_COMMON + String.raw`\s+(-|"(-|(\s*(?<referrer>${Q}*?)")))\s+(-|"(-|(\s*(?<agent>${Q}*?)")))\s*$`)],
  error: [
    builtRegex(/^\s*(-|\[(-|(?<timestamp>[^[]*))\])\s+(-|\[(-|(?<module>[^:]*):(?<severity>[^[]*))\])\s+(-|\[\s*pid\s*(-|(?<pid>[^:]*)(:\s*tid\s*(?<thread>[^[]*))?)\])\s(-|\[\s*client\s*(-|(?<client>.*:?):(?<port>[^[]*))\])\s(-|(?<message>.*))\s*$/.source),
    builtRegex(/^\s*\[(?<timestamp>[^\]]+)\]\s+\[(-|(?<module>[^:]+)):(?<severity>[^\]]+)\]\s+\[pid\s+(?<pid>\d+)(:tid\s+(?<thread>\d+))?\]\s+(?<message1>[^[]*?:\s+([^[]*?:\s+)?)?(\[client\s+(?<client>.+?):(?<port>\d+)\]\s+)?(?<message2>.*?)(, referer .*)?\s*$/.source),
  ],
};
const APACHE_TS: Record<string, string> = { common: '%d/%b/%Y:%T %z', combined: '%d/%b/%Y:%T %z', error: '%a %b %d %H:%M:%S%.f %Y' };

const NGINX: Record<string, RegExp> = {
  combined:
    builtRegex(/^\s*(-|(?<client>\S+))\s+-\s+(-|(?<user>\S+))\s+\[(?<timestamp>.+)\]\s+"(?<request>[^"]*)"\s+(?<status>\d+)\s+(?<size>\d+)\s+"(?<referer>[^"]*)"\s+"(?<agent>[^"]*)"(\s+"(-|(?<compression>[^"]+))")?\s*$/.source),
  ingress_upstreaminfo:
    builtRegex(/^\s*(-|(?<remote_addr>\S+))\s+-\s+(-|(?<remote_user>\S+))\s+\[(?<timestamp>[^\]]+)\]\s+"(?<request>[^"]*)"\s+(?<status>\d+)\s+(?<body_bytes_size>\d+)\s+"(-|(?<http_referer>[^"]*))"\s+"(-|(?<http_user_agent>[^"]+))"\s+(?<request_length>\d+)\s+(?<request_time>\d+\.\d+)\s+\[(?<proxy_upstream_name>[^\]]+)\]\s+\[(?<proxy_alternative_upstream_name>[^\]]+)?\]\s+(?<upstream_addr>\S+)\s+(-|(?<upstream_response_length>\d+))\s+(-|(?<upstream_response_time>\d+\.\d+))\s+(-|(?<upstream_status>\d+))\s+(?<req_id>\S+)\s*$/.source),
  main: builtRegex(/^\s*(-|(?<remote_addr>\S+))\s+-\s+(-|(?<remote_user>\S+))\s+\[(?<timestamp>[^\]]+)\]\s+"(?<request>[^"]*)"\s+(?<status>\d+)\s+(?<body_bytes_size>\d+)\s+"(-|(?<http_referer>[^"]*))"\s+"(-|(?<http_user_agent>[^"]+))"\s+"(-|(?<http_x_forwarded_for>[^"]+))"\s*$/.source),
  error:
    builtRegex(/^\s*(?<timestamp>.+)\s+\[(?<severity>\w+)\]\s+(?<pid>\d+)#(?<tid>\d+):(\s+\*(?<cid>\d+))?\s+(?<message>.+?)(,\s+excess:\s+(?<excess>[^\s,]+),?\sby\szone\s"(?<zone>[^,]+)")?(,\s+client:\s+(?<client>[^,]+))?(,\s+server:\s+(?<server>[^,]*))?(,\s+request:\s+"(?<request>[^"]*)")?(,\s+upstream:\s+"(?<upstream>[^"]*)")?(,\s+host:\s+"(?<host>[^"]*)")?(,\s+refer?rer:\s+"(?<referer>[^"]*)")?\s*$/.source),
};
const NGINX_TS: Record<string, string> = { combined: '%d/%b/%Y:%T %z', ingress_upstreaminfo: '%d/%b/%Y:%T %z', main: '%d/%b/%Y:%T %z', error: '%Y/%m/%d %H:%M:%S' };

function fields(groups: Record<string, string | undefined>, fmt: string, tz: string | undefined): ObjectValue {
  const out: ObjectValue = {};
  for (const [name, raw] of Object.entries(groups)) {
    if (raw === undefined) continue;
    if (name === 'timestamp') {
      try {
        out.timestamp = compileFormat(fmt).parse(raw, tz);
      } catch (e) {
        return fail(`failed parsing timestamp ${raw} using format ${fmt}: ${(e as Error).message}`);
      }
    } else if (INTS.has(name)) {
      const n = Number(raw);
      if (!Number.isInteger(n)) return fail(`failed parsing ${name}`);
      out[name] = n;
    } else if (FLOATS.has(name)) {
      const n = Number(raw);
      if (Number.isNaN(n)) return fail(`failed parsing ${name}`);
      out[name] = new Float(n);
    } else out[name] = raw;
  }
  return out;
}

function checkFormat(table: Record<string, unknown>) {
  return (args: readonly { present: boolean; isConstant: boolean; constant?: unknown }[]): undefined => {
    const f = args[1]!;
    if (f.isConstant && table[String(f.constant)] === undefined) throw new FunctionCompileError('invalid enum variant', 'format', JSON.stringify(f.constant));
    return undefined;
  };
}

const COMMON = builtRegex(
  /^\s*(-|(?<host>.*?))\s+(-|(?<identity>.*?))\s+(-|(?<user>.*?))\s+(-|\[(-|(?<timestamp>[^[]*))\])\s+(-|"(-|(\s*(?<message>((?<method>\w+)\s+(?<path>(?:\\"|[^"])*?)\s+(?<protocol>(?:\\"|[^"])*?)\s*|(?:\\"|[^"])*?))\s*))")\s+(-|(?<status>\d+))\s+(-|(?<size>\d+))\s*$/.source,
);

function parseCommonLog(s: string, fmt: string, tz: string | undefined): ObjectValue {
  const m = COMMON.exec(s);
  if (!m?.groups) return fail('failed parsing common log line');
  const g = m.groups;
  const out: ObjectValue = {};
  for (const k of ['host', 'identity', 'user', 'message', 'method', 'path', 'protocol']) if (g[k] !== undefined) out[k] = g[k]!;
  if (g.status !== undefined) out.status = Number(g.status);
  if (g.size !== undefined) out.size = Number(g.size);
  if (g.timestamp !== undefined) {
    try {
      out.timestamp = compileFormat(fmt).parse(g.timestamp, tz);
    } catch (e) {
      return fail(`failed parsing timestamp ${g.timestamp} using format ${fmt}: ${(e as Error).message}`);
    }
  }
  return out;
}

const WEB_LOG_PARAMS = [req('value', K.BYTES), req('format', K.BYTES), opt('timestamp_format', K.BYTES)];

/** The functions of this file, for the stdlib list. */
export const webLogFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'parse_common_log',
    description: 'Parses a Common Log Format line.',
    fresh: true,
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'timestamp_format', kind: K.BYTES },
    ],
    fallible: true,
    returns: K.K_OBJECT,
    call: ([v, f], env) => parseCommonLog(v as string, optStr(f, '%d/%b/%Y:%T %z'), env.ctx.tz),
  }),
  defineFunction({
    name: 'parse_apache_log',
    description: 'Parses an Apache common, combined or error log line.',
    fresh: true,
    params: WEB_LOG_PARAMS,
    fallible: true,
    prepare: checkFormat(APACHE),
    returns: K.K_OBJECT,
    call: ([v, f, tf], env) => {
      const format = f as string;
      const regexes = APACHE[format];
      if (!regexes) return fail(`unknown format ${format}`);
      const tsFormat = optStr(tf, APACHE_TS[format]!);
      for (const re of regexes) {
        const m = re.exec(v as string);
        if (!m?.groups) continue;
        const g = { ...m.groups };
        if (format === 'error' && (g.message1 !== undefined || g.message2 !== undefined)) {
          g.message = (g.message1 ?? '') + (g.message2 ?? '');
          delete g.message1;
          delete g.message2;
        }
        return fields(g, tsFormat, env.ctx.tz);
      }
      return fail(`failed parsing ${format} log line`);
    },
  }),
  defineFunction({
    name: 'parse_nginx_log',
    description: 'Parses an Nginx combined, ingress or error log line.',
    fresh: true,
    params: WEB_LOG_PARAMS,
    fallible: true,
    prepare: checkFormat(NGINX),
    returns: K.K_OBJECT,
    call: ([v, f, tf], env) => {
      const format = f as string;
      const re = NGINX[format];
      if (!re) return fail(`unknown format ${format}`);
      const m = re.exec(v as string);
      if (!m?.groups) return fail(`failed parsing ${format} log line`);
      return fields({ ...m.groups }, optStr(tf, NGINX_TS[format]!), env.ctx.tz);
    },
  }),
];
