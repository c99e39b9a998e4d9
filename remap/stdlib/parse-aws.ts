/** AWS and metrics line parsers: parse_aws_vpc_flow_log, parse_aws_alb_log, parse_influxdb, and parse_linux_authorization (syslog alias). */
import { type ObjectValue, type Value, Float, Timestamp } from '../../lib/value.js';
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { parseSyslog } from './parse-syslog.js';
import { fail } from './util.js';

const DEFAULT_VPC_FORMAT = 'version account_id interface_id srcaddr dstaddr srcport dstport protocol packets bytes start end action log_status';

/** Fields of VPC flow logs; integer-valued ones are listed with `true`. */
const VPC_FIELDS: Record<string, boolean> = {
  account_id: false, action: false, asg_tag: false, asg_tag_2: false, az_id: false, bytes: true, dstaddr: false, dstport: true,
  ecs_cluster_arn: false, ecs_cluster_name: false, ecs_container_id: false, ecs_container_instance_arn: false, ecs_container_instance_id: false,
  ecs_second_container_id: false, ecs_service_name: false, ecs_task_arn: false, ecs_task_definition_arn: false, ecs_task_id: false,
  encryption_status: true, end: true, flow_direction: false, instance_id: false, instance_tag: false, instance_tag_2: false, interface_id: false,
  interface_tag: false, interface_tag_2: false, interface_type: false, log_status: false, next_hop_az_id: false, next_hop_interface_id: false,
  next_hop_interface_type: false, next_hop_subnet_id: false, next_hop_vpc_id: false, packets: true, pkt_dstaddr: false, pkt_dst_aws_service: false,
  pkt_srcaddr: false, pkt_src_aws_service: false, protocol: true, region: false, reject_reason: false, resource_id: false, srcaddr: false, srcport: true,
  start: true, sublocation_id: false, sublocation_type: false, subnet_id: false, tcp_flags: true, traffic_path: true, type: false, version: true, vpc_id: false,
};

function parseVpc(input: string, format: string): ObjectValue {
  const values = input.split(' ');
  const keys = format.split(' ');
  const out: ObjectValue = {};
  for (let i = 0; i < Math.max(values.length, keys.length); i++) {
    const k = keys[i];
    const v = values[i];
    if (k === undefined) return fail(`no key for value: \`${v}\``);
    if (v === undefined) return fail(`no item for key: \`${k}\``);
    const isInt = VPC_FIELDS[k];
    if (isInt === undefined) return fail(`unknown key: \`${k}\``);
    let value: Value;
    if (v === '-') value = null;
    else if (isInt) {
      if (!/^[+-]?\d+$/.test(v)) return fail(`failed to parse value as i64 (key: \`${k}\`): \`${v}\``);
      value = Number(v);
    } else value = v;
    if (Object.prototype.hasOwnProperty.call(out, k)) return fail(`value already exists for key: \`${k}\``);
    out[k] = value;
  }
  return out;
}

/** The functions of this file, for the stdlib list. */
export const awsFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'parse_aws_vpc_flow_log',
    fresh: true,
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'format', kind: K.BYTES },
    ],
    fallible: true,
    returns: K.objectOf(K.k(K.BYTES | K.INTEGER | K.NULL)),
    call: ([v, f]) => parseVpc(v as string, typeof f === 'string' ? f : DEFAULT_VPC_FORMAT),
  }),
  defineFunction({
    name: 'parse_linux_authorization',
    fresh: true,
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.K_OBJECT,
    call: ([v], env) => parseSyslog(v as string, env.ctx.tz),
  }),
];

/** Reads the space-separated fields of an ALB access log line in order. */
class AlbCursor {
  i = 0;
  constructor(readonly s: string) {}
  fail(name: string): never {
    return fail(`failed to get field \`${name}\``);
  }
  /** ` <chars>` where every char passes `ok` (at least one). */
  token(name: string, ok: (c: string) => boolean, first = false): string {
    if (!first) {
      if (this.s[this.i] !== ' ') this.fail(name);
      this.i++;
    }
    const start = this.i;
    while (this.i < this.s.length && ok(this.s[this.i]!)) this.i++;
    if (this.i === start) this.fail(name);
    return this.s.slice(start, this.i);
  }
  anything(name: string): string {
    return this.token(name, (c) => c !== ' ');
  }
  /** ` "<text>"` with backslash escapes. */
  quoted(name: string): string {
    if (!this.s.startsWith(' "', this.i)) this.fail(name);
    this.i += 2;
    let out = '';
    let esc = false;
    for (; this.i < this.s.length; this.i++) {
      const c = this.s[this.i]!;
      if (c === '\\' && !esc) esc = true;
      else if (c === '"' && !esc) {
        this.i++;
        return out;
      } else {
        out += c;
        esc = false;
      }
    }
    return this.fail(name);
  }
  list(name: string, ok: (c: string) => boolean): string[] {
    if (this.s.startsWith(' "-"', this.i)) {
      this.i += 4;
      return [];
    }
    if (this.s.startsWith(' "', this.i)) {
      const v = this.quoted(name);
      if (v === '' || ![...v].every(ok)) this.fail(name);
      return [v];
    }
    return [this.token(name, ok)];
  }
}

const dash = (v: string): Value => (v === '-' ? null : v);
const isTime = (c: string): boolean => /[0-9.:TZ-]/.test(c);

function parseAlb(line: string, strict: boolean): ObjectValue {
  const c = new AlbCursor(line);
  const out: ObjectValue = {};
  const num = (name: string, int: boolean): void => {
    const t = c.token(name, (x) => /[0-9.-]/.test(x));
    const n = Number(t);
    if (t === '-' || Number.isNaN(n) || (int && !Number.isInteger(n))) c.fail(name);
    out[name] = int ? n : new Float(n);
  };
  out.type = c.token('type', (x) => /[a-z0-9]/.test(x), true);
  out.timestamp = dash(c.token('timestamp', isTime));
  out.elb = dash(c.anything('elb'));
  out.client_host = dash(c.token('client_host', (x) => /[0-9a-f.:-]/.test(x)));
  out.target_host = dash(c.token('target_host', (x) => /[0-9a-f.:-]/.test(x)));
  num('request_processing_time', false);
  num('target_processing_time', false);
  num('response_processing_time', false);
  out.elb_status_code = dash(c.token('elb_status_code', (x) => /[0-9-]/.test(x)));
  out.target_status_code = dash(c.token('target_status_code', (x) => /[0-9-]/.test(x)));
  num('received_bytes', true);
  num('sent_bytes', true);
  const request = c.quoted('request');
  const sp = request.indexOf(' ');
  out.request_method = dash(sp < 0 ? request : request.slice(0, sp));
  if (sp < 0) c.fail('request_url');
  const rest = request.slice(sp + 1);
  const last = rest.lastIndexOf(' ');
  out.request_protocol = dash(last < 0 ? rest : rest.slice(last + 1));
  if (last < 0) c.fail('request_url');
  out.request_url = rest.slice(0, last);
  out.user_agent = dash(c.quoted('user_agent'));
  out.ssl_cipher = dash(c.anything('ssl_cipher'));
  out.ssl_protocol = dash(c.anything('ssl_protocol'));
  out.target_group_arn = dash(c.anything('target_group_arn'));
  out.trace_id = dash(c.quoted('trace_id'));
  out.domain_name = dash(c.quoted('domain_name'));
  out.chosen_cert_arn = dash(c.quoted('chosen_cert_arn'));
  out.matched_rule_priority = dash(c.token('matched_rule_priority', (x) => /[0-9-]/.test(x)));
  out.request_creation_time = dash(c.token('request_creation_time', isTime));
  out.actions_executed = dash(c.quoted('actions_executed'));
  out.redirect_url = dash(c.quoted('redirect_url'));
  out.error_reason = dash(c.quoted('error_reason'));
  out.target_port_list = c.list('target_port_list', (x) => /[0-9a-f.:-]/.test(x));
  out.target_status_code_list = c.list('target_status_code_list', (x) => /[0-9]/.test(x));
  out.classification = dash(c.quoted('classification'));
  out.classification_reason = dash(c.quoted('classification_reason'));
  out.traceability_id = line.startsWith(' TID_', c.i) ? c.anything('traceability_id') : null;
  if (c.i < line.length && strict) return fail(`Log should be fully consumed: "${line.slice(c.i)}"`);
  return out;
}

/** The functions of this file, for the stdlib list. */
export const albFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'parse_aws_alb_log',
    fresh: true,
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'strict_mode', kind: K.BOOLEAN },
    ],
    fallible: true,
    returns: K.K_OBJECT,
    call: ([v, s]) => parseAlb(v as string, s !== false),
  }),
];

/** Splits on `sep` outside double quotes, honouring backslash escapes. */
function splitUnquoted(s: string, sep: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\\' && i + 1 < s.length) {
      cur += c + s[i + 1];
      i++;
    } else if (c === '"') {
      quoted = !quoted;
      cur += c;
    } else if (c === sep && !quoted) {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

const unescapeInflux = (s: string): string => s.replace(/\\([,= \\"])/g, '$1');

/** InfluxDB line protocol: one gauge metric per numeric/boolean field, named `<measurement>_<field>`. */
function parseInflux(line: string): Value[] {
  const parts = splitUnquoted(line.trim(), ' ').filter((p) => p !== '');
  if (parts.length < 2) return fail('InfluxDB line protocol parsing error: No fields were provided');
  const [head, fieldSet, ts] = parts as [string, string, string | undefined];
  const headParts = splitUnquoted(head, ',');
  const measurement = unescapeInflux(headParts[0]!);
  const tags: ObjectValue = {};
  for (const t of headParts.slice(1)) {
    const eq = t.indexOf('=');
    if (eq < 0) return fail('InfluxDB line protocol parsing error: invalid tag set');
    tags[unescapeInflux(t.slice(0, eq))] = unescapeInflux(t.slice(eq + 1));
  }
  let timestamp: Timestamp | undefined;
  if (ts !== undefined) {
    if (!/^-?\d+$/.test(ts)) return fail('InfluxDB line protocol parsing error: invalid timestamp');
    timestamp = Timestamp.fromNanos(BigInt(ts));
  }
  const out: Value[] = [];
  for (const f of splitUnquoted(fieldSet, ',')) {
    const eq = f.indexOf('=');
    if (eq < 0) return fail('InfluxDB line protocol parsing error: invalid field set');
    const key = unescapeInflux(f.slice(0, eq));
    const raw = f.slice(eq + 1);
    let n: number;
    if (/^[+-]?\d+[iu]$/.test(raw)) n = Number(raw.slice(0, -1));
    else if (/^(t|T|true|True|TRUE)$/.test(raw)) n = 1;
    else if (/^(f|F|false|False|FALSE)$/.test(raw)) n = 0;
    else if (raw.startsWith('"')) return fail("Error while converting InfluxDB line protocol metric to Vector's metric model: field set values of type string are not supported");
    else {
      n = Number(raw);
      if (raw === '' || Number.isNaN(n)) return fail("Error while converting InfluxDB line protocol metric to Vector's metric model: NaN field set values are not supported");
    }
    const m: ObjectValue = { name: `${measurement}_${key}` };
    if (headParts.length > 1) m.tags = { ...tags };
    if (timestamp) m.timestamp = timestamp;
    m.kind = 'absolute';
    m.gauge = { value: new Float(n) };
    out.push(m);
  }
  return out;
}

/** The functions of this file, for the stdlib list. */
export const influxFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'parse_influxdb',
    fresh: true,
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.arrayOf(K.K_OBJECT),
    call: ([v]) => parseInflux(v as string),
  }),
];
