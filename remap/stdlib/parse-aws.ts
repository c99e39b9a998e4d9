/** AWS log parsers: parse_aws_vpc_flow_log, parse_aws_alb_log, parse_aws_cloudwatch_log_subscription_message. */
import { type ObjectValue, type Value, Float, Timestamp, isObject } from '../../lib/value.js';
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { fail } from './errors.js';
import { parseJsonText } from './json-codec.js';

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
export const awsFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'parse_aws_vpc_flow_log',
    description: 'Parses an AWS VPC flow log line.',
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
    name: 'parse_aws_alb_log',
    description: 'Parses an AWS Application Load Balancer access log line.',
    fresh: true,
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'strict_mode', kind: K.BOOLEAN },
    ],
    fallible: true,
    returns: K.K_OBJECT,
    call: ([v, s]) => parseAlb(v as string, s !== false),
  }),
  defineFunction({
    name: 'parse_aws_cloudwatch_log_subscription_message',
    description: 'Parses a CloudWatch Logs subscription message.',
    fresh: true,
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.objectKind(
      new Map<string, K.Kind>([
        ['owner', K.K_BYTES],
        ['message_type', K.K_BYTES],
        ['log_group', K.K_BYTES],
        ['log_stream', K.K_BYTES],
        ['subscription_filters', K.arrayOf(K.K_BYTES)],
        ['log_events', K.arrayOf(K.objectKind(new Map([['id', K.K_BYTES], ['timestamp', K.K_TIMESTAMP], ['message', K.K_BYTES]])))],
      ]),
    ),
    call: ([v]) => {
      const j = parseJsonText(v as string);
      if (!isObject(j)) return fail('unable to parse');
      const events = Array.isArray(j.logEvents) ? j.logEvents : [];
      return {
        owner: j.owner ?? null,
        message_type: j.messageType ?? null,
        log_group: j.logGroup ?? null,
        log_stream: j.logStream ?? null,
        subscription_filters: j.subscriptionFilters ?? [],
        log_events: events.map((e) => {
          const o = isObject(e) ? e : {};
          const ms = typeof o.timestamp === 'number' ? o.timestamp : 0;
          return { id: o.id ?? null, timestamp: new Timestamp(ms, 0), message: o.message ?? null };
        }),
      };
    },
  }),
];
