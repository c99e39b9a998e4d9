/**
 * Option groups shared by many components, declared once. Factories take the
 * per-component defaults so each component states its own defaults beside its schema.
 */
import * as v from 'valibot';
import { resolveTimezone } from '../time/strftime.js';

/** Non-negative integer. */
export const uint = () => v.pipe(v.number(), v.integer(), v.minValue(0));
/** Positive integer. */
export const posint = () => v.pipe(v.number(), v.integer(), v.minValue(1));
/** Seconds as float or integer, > 0. */
export const secs = () => v.pipe(v.number(), v.minValue(0));

/** Upstream ids; `*` wildcards allowed; at least one. */
export const inputsSchema = v.pipe(
  v.array(v.pipe(v.string(), v.minLength(1, 'an input must not be empty'))),
  v.minLength(1, 'must list at least one input'),
);

/** The smallest disk buffer, in bytes (Vector's minimum `buffer.max_size`). */
export const DISK_BUFFER_MIN_SIZE = 268_435_488;

/** One buffer stage: `type`, `max_events` (memory), `max_size` (disk), `when_full`. */
function bufferStageSchema(types: readonly ['memory', 'disk'] | readonly ['memory', 'disk', 'disk_v1']) {
  return v.pipe(
    v.strictObject({
      type: v.optional(v.picklist(types), 'memory'),
      max_events: v.optional(posint()),
      max_size: v.optional(
        v.pipe(v.number(), v.integer(), v.minValue(DISK_BUFFER_MIN_SIZE, `must be at least ${DISK_BUFFER_MIN_SIZE} bytes`)),
      ),
      when_full: v.optional(v.picklist(['block', 'drop_newest', 'overflow']), 'block'),
    }),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const b = dataset.value;
      if (b.type !== 'memory' && b.max_size === undefined)
        addIssue({ message: `max_size is required when type is "${b.type}"`, path: [pathItem(b, 'max_size')] });
      if (b.type !== 'memory' && b.max_events !== undefined)
        addIssue({ message: 'max_events applies only to memory buffers', path: [pathItem(b, 'max_events')] });
    }),
    v.transform((b): BufferStageConfig => ({ ...b, max_events: b.max_events ?? 500 })),
  );
}

/** Issue path of option `key` of stage `i` of a buffer list. */
function stageItem(list: BufferStageConfig[], i: number, key: string): [v.IssuePathItem, ...v.IssuePathItem[]] {
  return [{ type: 'array' as const, origin: 'value' as const, input: list, key: i, value: list[i] }, pathItem(list[i]!, key)];
}

/**
 * `buffer.*`: one buffer, or a list of stages (a chained buffer, as Vector takes it: every stage
 * but the last has `when_full = "overflow"`); `disk_v1` only for the sinks that allow it.
 */
export function bufferSchema(opts: { allowDiskV1?: boolean } = {}) {
  const types = opts.allowDiskV1 ? (['memory', 'disk', 'disk_v1'] as const) : (['memory', 'disk'] as const);
  const stage = bufferStageSchema(types);
  return v.optional(
    v.pipe(
      v.unknown(),
      // checked first: an empty list would also pass as an object with no options
      v.check((b) => !Array.isArray(b) || b.length > 0, 'must list at least one buffer stage'),
      v.union([stage, v.array(stage)]),
      v.rawCheck(({ dataset, addIssue }) => {
        if (!dataset.typed) return;
        const b = dataset.value;
        if (!Array.isArray(b)) {
          if (b.when_full === 'overflow')
            addIssue({ message: 'must be "block" or "drop_newest"; "overflow" needs a next stage: give buffer as a list of stages', path: [pathItem(b, 'when_full')] });
          return;
        }
        const last = b.length - 1;
        const seen = new Set<string>();
        b.forEach((s, i) => {
          if (i < last && s.when_full !== 'overflow')
            addIssue({ message: `must be "overflow" on every stage but the last (stage ${i + 1} follows); got "${s.when_full}"`, path: stageItem(b, i, 'when_full') });
          if (i === last && s.when_full === 'overflow')
            addIssue({ message: 'must be "block" or "drop_newest": the last stage has no next stage to overflow into', path: stageItem(b, i, 'when_full') });
          // a sink has one store per disk format (LevelDB locks it), so one stage of each
          if (s.type !== 'memory' && seen.has(s.type))
            addIssue({ message: `a chained buffer holds at most one "${s.type}" stage`, path: stageItem(b, i, 'type') });
          seen.add(s.type);
        });
      }),
      // a list becomes its first stage, each stage holding the next as `overflow` (a list of one is that buffer)
      v.transform((b): BufferConfig => (Array.isArray(b) ? b.reduceRight<BufferConfig | undefined>((next, s) => (next ? { ...s, overflow: next } : s), undefined)! : b)),
    ),
    {},
  );
}
/** One buffer stage, validated; `overflow` only on a stage of a list that is not the last. */
export type BufferStageConfig = {
  type: 'memory' | 'disk' | 'disk_v1';
  max_events: number;
  max_size?: number;
  when_full: 'block' | 'drop_newest' | 'overflow';
};
/** A sink's `buffer`: its first stage, and through `overflow` the next one of a chain (memory overflowing to disk). */
export type BufferConfig = BufferStageConfig & { readonly overflow?: BufferConfig };

/** One issue path item naming option `key` of an object, for `rawCheck` issues (`path: [pathItem(c, 'uri')]`). */
export function pathItem(input: object, key: string) {
  return { type: 'object' as const, origin: 'value' as const, input: input as Record<string, unknown>, key, value: (input as Record<string, unknown>)[key] };
}

export interface BatchDefaults {
  max_bytes?: number;
  max_events?: number;
  timeout_secs: number;
}
/** `batch.*` with the sink's defaults. */
export function batchSchema(d: BatchDefaults) {
  return v.optional(
    v.strictObject({
      max_bytes: v.optional(posint(), d.max_bytes),
      max_events: v.optional(posint(), d.max_events),
      timeout_secs: v.optional(v.pipe(v.number(), v.minValue(0.001, 'must be greater than 0')), d.timeout_secs),
    }),
    {},
  );
}

export interface RequestDefaults {
  concurrency?: number | 'adaptive' | 'none';
  rate_limit_num: number;
  retry_attempts: number;
  retry_max_duration_secs: number;
  timeout_secs: number;
  decrease_ratio: number;
  ewma_alpha: number;
  rtt_deviation_scale: number;
}
/** Request defaults shared by most sinks (Vector's documented defaults). */
export const REQUEST_DEFAULTS: RequestDefaults = {
  rate_limit_num: 9.223372036854776e18,
  retry_attempts: 1.8446744073709552e19,
  retry_max_duration_secs: 3600,
  timeout_secs: 60,
  decrease_ratio: 0.9,
  ewma_alpha: 0.7,
  rtt_deviation_scale: 2,
};
const ratio = () => v.pipe(v.number(), v.gtValue(0, 'must be greater than 0'), v.ltValue(1, 'must be less than 1'));
/** `request.*` with the sink's defaults. */
export function requestSchema(d: RequestDefaults = REQUEST_DEFAULTS) {
  return v.optional(
    v.strictObject({
      concurrency: v.optional(v.union([v.picklist(['adaptive', 'none']), posint()], 'must be "adaptive", "none" or a positive integer'), d.concurrency ?? 'adaptive'),
      rate_limit_duration_secs: v.optional(posint(), 1),
      rate_limit_num: v.optional(posint(), d.rate_limit_num),
      retry_attempts: v.optional(uint(), d.retry_attempts),
      retry_initial_backoff_secs: v.optional(posint(), 1),
      retry_max_duration_secs: v.optional(posint(), d.retry_max_duration_secs),
      retry_jitter_mode: v.optional(v.picklist(['none', 'full']), 'none'),
      timeout_secs: v.optional(posint(), d.timeout_secs),
      headers: v.optional(v.record(v.string(), v.string()), {}),
      adaptive_concurrency: v.optional(
        v.strictObject({
          decrease_ratio: v.optional(ratio(), d.decrease_ratio),
          ewma_alpha: v.optional(ratio(), d.ewma_alpha),
          rtt_deviation_scale: v.optional(v.pipe(v.number(), v.minValue(0)), d.rtt_deviation_scale),
          initial_concurrency: v.optional(posint(), 1),
          max_concurrency_limit: v.optional(posint(), 200),
        }),
        {},
      ),
    }),
    {},
  );
}

/** `tls.*` for outgoing connections; `enabled` for listeners. */
export const tlsSchema = v.optional(
  v.pipe(
    v.strictObject({
      enabled: v.optional(v.boolean()),
      alpn_protocols: v.optional(v.array(v.string())),
      ca_file: v.optional(v.string()),
      crt_file: v.optional(v.string()),
      key_file: v.optional(v.string()),
      key_pass: v.optional(v.string()),
      verify_certificate: v.optional(v.boolean()),
      verify_hostname: v.optional(v.boolean()),
      server_name: v.optional(v.string()),
    }),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const t = dataset.value;
      if (t.key_file && !t.crt_file) addIssue({ message: 'key_file requires crt_file', path: [pathItem(t, 'key_file')] });
    }),
  ),
);
export type TlsConfig = NonNullable<v.InferOutput<typeof tlsSchema>>;

/** `proxy.no_proxy`: a list of hosts, or one string of them separated by commas (as `NO_PROXY`). */
const noProxySchema = v.union(
  [v.array(v.string()), v.pipe(v.string(), v.transform((s) => s.split(',').map((h) => h.trim()).filter((h) => h !== '')))],
  'must be a list of hosts or a comma-separated string',
);

/** `proxy.*` (component level; merges over the global one). */
export const proxySchema = v.optional(
  v.strictObject({
    enabled: v.optional(v.boolean(), true),
    http: v.optional(v.pipe(v.string(), v.url('must be a URL'))),
    https: v.optional(v.pipe(v.string(), v.url('must be a URL'))),
    no_proxy: v.optional(noProxySchema, []),
  }),
);
export type ProxyConfig = NonNullable<v.InferOutput<typeof proxySchema>>;

/** `acknowledgements.enabled` (sinks: overrides the global setting). */
export const acknowledgementsSchema = v.optional(v.strictObject({ enabled: v.optional(v.boolean()) }), {});

/** `healthcheck` as Vector also writes it: a bare boolean means `enabled`. */
const enabledFromBoolean = v.transform((x: unknown) => (typeof x === 'boolean' ? { enabled: x } : x));

/**
 * `healthcheck.enabled` (every sink); `healthcheck = true` is short for it. Vector takes `uri` on
 * every sink and ignores it where the check queries none: it is accepted and kept as `ignored_uri`,
 * which the graph turns into one warning.
 */
export const healthcheckSchema = () =>
  v.optional(
    v.pipe(
      v.unknown(),
      enabledFromBoolean,
      v.strictObject({ enabled: v.optional(v.boolean(), true), uri: v.optional(v.pipe(v.string(), v.description('Accepted as Vector accepts it; no effect: this health check queries no URI.'))) }),
      v.transform(({ enabled, uri }) => (uri === undefined ? { enabled } : { enabled, ignored_uri: uri })),
    ),
    {},
  );
/** `healthcheck.enabled` and `healthcheck.uri` for the sinks that take a URI; `healthcheck = true` is short for enabled. */
export const healthcheckUriSchema = () =>
  v.optional(
    v.pipe(v.unknown(), enabledFromBoolean, v.strictObject({ enabled: v.optional(v.boolean(), true), uri: v.optional(v.pipe(v.string(), v.url('must be a URL'))) })),
    {},
  );

/** How a sink's envelope varies: the buffer types and health check options it offers, and `proxy`. */
export interface SinkEnvelopeOptions {
  /** Also allow `buffer.type = "disk_v1"` (only a few sinks do). */
  readonly allowDiskV1?: boolean;
  /** `healthcheck.uri`: the check may query another address than the one the sink sends to. */
  readonly healthcheckUri?: boolean;
  /** `proxy.*`: only for sinks that make outbound HTTP requests, as the proxy settles nothing else. */
  readonly proxy?: boolean;
}

type HealthcheckEntry<O extends SinkEnvelopeOptions> = O['healthcheckUri'] extends true ? ReturnType<typeof healthcheckUriSchema> : ReturnType<typeof healthcheckSchema>;
type ProxyEntry<O extends SinkEnvelopeOptions> = O['proxy'] extends true ? { proxy: typeof proxySchema } : Record<never, never>;
/** The envelope's entries for variant `O`. */
export type SinkEnvelopeEntries<O extends SinkEnvelopeOptions = Record<never, never>> = {
  inputs: typeof inputsSchema;
} & ProxyEntry<O> & {
  buffer: ReturnType<typeof bufferSchema>;
  acknowledgements: typeof acknowledgementsSchema;
  healthcheck: HealthcheckEntry<O>;
};

/**
 * The options every sink has, as object entries: `inputs`, then `proxy` where the
 * sink opts in, `buffer`, `acknowledgements` and `healthcheck`. `sinkObject` places them.
 */
export function sinkEnvelope<const O extends SinkEnvelopeOptions = Record<never, never>>(opts?: O): SinkEnvelopeEntries<O> {
  return {
    inputs: inputsSchema,
    ...(opts?.proxy ? { proxy: proxySchema } : {}),
    buffer: bufferSchema({ allowDiskV1: opts?.allowDiskV1 }),
    acknowledgements: acknowledgementsSchema,
    healthcheck: opts?.healthcheckUri ? healthcheckUriSchema() : healthcheckSchema(),
  } as unknown as SinkEnvelopeEntries<O>; // the conditional entry types follow `opts`, which the compiler cannot see through
}

/**
 * A sink's `v.strictObject`: `type`, `inputs`, the sink's own options, then the rest of the envelope.
 * The order is the order `unknown option; allowed options: …` lists them in.
 */
export function sinkObject<const T extends string, const E extends v.ObjectEntries, const O extends SinkEnvelopeOptions = Record<never, never>>(type: T, own: E, opts?: O) {
  const { inputs, ...rest } = sinkEnvelope(opts);
  return v.strictObject({ type: v.literal(type), inputs, ...own, ...rest });
}

/** The envelope as the topology and health checks read it from any validated sink's options. */
export interface SinkEnvelope {
  readonly inputs: string[];
  readonly buffer: BufferConfig;
  readonly acknowledgements: { readonly enabled?: boolean };
  readonly healthcheck: { readonly enabled: boolean; readonly uri?: string };
  readonly proxy?: ProxyConfig;
}

/** Options every encoding takes besides the codec: field filters and the timestamp format. */
export const encodingCommon = {
  except_fields: v.optional(v.array(v.string())),
  only_fields: v.optional(v.array(v.string())),
  timestamp_format: v.optional(v.picklist(['rfc3339', 'unix', 'unix_ms', 'unix_us', 'unix_ns', 'unix_float']), 'rfc3339'),
};

/** `compression` with the codecs a sink offers and its default. */
export const compressionSchema = <const T extends readonly [string, ...string[]]>(allowed: T, dflt: T[number]) =>
  v.optional(v.picklist(allowed), dflt);

/** Adds the thrown message as an issue when `check` throws (parsers that validate by compiling). */
export const throwsNot = (check: (value: string) => unknown) =>
  v.rawCheck<string>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    try {
      check(dataset.value);
    } catch (err) {
      addIssue({ message: (err as Error).message });
    }
  });

/** A component's `timezone`: "local", "UTC" or an IANA name, checked at load. */
export const timezoneSchema = (description: string) =>
  v.pipe(
    v.string(),
    v.check((tz) => {
      try {
        resolveTimezone(tz);
        return true;
      } catch {
        return false;
      }
    }, 'must be "local", "UTC" or an IANA time zone name'),
    v.description(description),
  );
