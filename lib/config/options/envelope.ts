/**
 * The options every sink has besides its own: `inputs`, `buffer`, `acknowledgements`,
 * `healthcheck` and, for the sinks that make outbound HTTP requests, `proxy`.
 */
import * as v from 'valibot';
import { type BufferConfig, bufferSchema } from './buffer.js';
import { type ProxyConfig, proxySchema } from './proxy.js';

/** Upstream ids; `*` wildcards allowed; at least one. */
export const inputsSchema = v.pipe(
  v.array(v.pipe(v.string(), v.minLength(1, 'an input must not be empty'))),
  v.minLength(1, 'must list at least one input'),
  v.description('Ids of the upstream components (`id.name` for a named output); `*` matches any run of characters.'),
);

/** `acknowledgements.enabled` (sinks: overrides the global setting). */
export const acknowledgementsSchema = v.optional(
  v.strictObject({
    enabled: v.optional(v.pipe(v.boolean(), v.description('Hold back source acknowledgements until this sink has delivered the events; unset: the global setting.'))),
  }),
  {},
);

/** `healthcheck` as Vector also writes it: a bare boolean means `enabled`. */
const enabledFromBoolean = v.transform((x: unknown) => (typeof x === 'boolean' ? { enabled: x } : x));
const healthcheckEnabled = v.optional(v.pipe(v.boolean(), v.description('Check at start that the destination answers.')), true);

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
      v.strictObject({ enabled: healthcheckEnabled, uri: v.optional(v.pipe(v.string(), v.description('Accepted as Vector accepts it; no effect: this health check queries no URI.'))) }),
      v.transform(({ enabled, uri }) => (uri === undefined ? { enabled } : { enabled, ignored_uri: uri })),
    ),
    {},
  );
/** `healthcheck.enabled` and `healthcheck.uri` for the sinks that take a URI; `healthcheck = true` is short for enabled. */
export const healthcheckUriSchema = () =>
  v.optional(
    v.pipe(
      v.unknown(),
      enabledFromBoolean,
      v.strictObject({
        enabled: healthcheckEnabled,
        uri: v.optional(v.pipe(v.string(), v.url('must be a URL'), v.description('Address the check queries, instead of the one the sink sends to.'))),
      }),
    ),
    {},
  );

/** How a sink's envelope varies: the buffer types and health check options it offers, and `proxy`. */
export interface SinkEnvelopeOptions {
  /** Also allow `buffer.type = "disk_v1"` (the sinks that had Vector's older disk buffer). */
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
 * The options every sink has, as object entries: `inputs`, then `proxy` where the sink opts in,
 * `buffer`, `acknowledgements` and `healthcheck`. `sinkObject` places them.
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
