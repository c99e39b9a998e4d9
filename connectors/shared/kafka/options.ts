/**
 * Options the `kafka` source and sink share, with Vector's names: `bootstrap_servers`, `sasl`,
 * `tls`, `socket_timeout_ms`, and `librdkafka_options`, which Vector hands to librdkafka. weir's
 * client is not librdkafka: the options it has an equivalent for are mapped, the rest are refused
 * by name at validation rather than silently ignored.
 */
import * as v from 'valibot';
import { pathItem } from '../../../lib/config/options/checks.js';
import { posint } from '../../../lib/config/options/numbers.js';
import { tlsSchema } from '../../../lib/config/options/tls.js';

/** `host:port` entries of a comma-separated list, trimmed. */
export const brokerAddresses = (servers: string): string[] => servers.split(',').map((s) => s.trim());

/** Why one `host:port` is unusable, or undefined. */
function addressProblem(address: string): string | undefined {
  if (address === '') return 'an address is empty (check the commas)';
  const m = /^(.+):(\d{1,5})$/.exec(address);
  if (m === null || m[1]!.includes('/')) return `"${address}" is not host:port`;
  const port = Number(m[2]);
  if (port < 1 || port > 65535) return `"${address}": port ${port} is out of range`;
  return undefined;
}

/** `bootstrap_servers`: required, one or more `host:port`, comma-separated. */
export const bootstrapServersSchema = v.pipe(
  v.string('is required: the Kafka brokers to connect to first (host:port, comma-separated)'),
  v.rawCheck<string>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    for (const a of brokerAddresses(dataset.value)) {
      const problem = addressProblem(a);
      if (problem !== undefined) addIssue({ message: problem });
    }
  }),
  v.description('Brokers the client connects to first to learn the cluster (host:port, comma-separated).'),
);

/** SASL mechanisms the client speaks (Vector's list less GSSAPI and OAUTHBEARER, which it documents as librdkafka's). */
export const SASL_MECHANISMS = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'] as const;

/** `sasl.*`, as Vector's `KafkaSaslConfig`. */
export const saslSchema = v.optional(
  v.pipe(
    v.strictObject({
      enabled: v.optional(v.pipe(v.boolean(), v.description('Authenticate with SASL.'))),
      mechanism: v.optional(v.pipe(v.picklist(SASL_MECHANISMS, `must be one of ${SASL_MECHANISMS.join(', ')}`), v.description('SASL mechanism.'))),
      username: v.optional(v.pipe(v.string(), v.description('SASL user name.'))),
      password: v.optional(v.pipe(v.string(), v.description('SASL password.'))),
    }),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed || dataset.value.enabled !== true) return;
      for (const key of ['mechanism', 'username', 'password'] as const)
        if (dataset.value[key] === undefined) addIssue({ message: `is required when sasl.enabled is true`, path: [pathItem(dataset.value, key)] });
    }),
  ),
);
export type KafkaSaslConfig = NonNullable<v.InferOutput<typeof saslSchema>>;

/** `socket_timeout_ms`: Vector's default is librdkafka's, 60 s. */
export const socketTimeoutSchema = v.optional(v.pipe(posint(), v.minValue(10, 'must be at least 10'), v.description('Time a network request to a broker may take, in milliseconds.')), 60_000);

/** A librdkafka option weir maps, and what it becomes. */
export interface MappedOption {
  /** Applies the option's value to the client settings; throws with why the value is wrong. */
  readonly apply: (value: string, into: Record<string, unknown>) => void;
}

/** An option taking an integer of at least `min`, set as the client setting `key`. */
export const integerOption = (name: string, key: string, min = 1): MappedOption => ({
  apply(value, into) {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer of at least ${min}`);
    into[key] = n;
  },
});

/** librdkafka options both components understand. */
export const COMMON_LIBRDKAFKA_OPTIONS: Readonly<Record<string, MappedOption>> = {
  'client.id': { apply: (value, into) => void (into.clientId = value) },
  'request.timeout.ms': integerOption('request.timeout.ms', 'timeout', 1),
  'socket.timeout.ms': integerOption('socket.timeout.ms', 'timeout', 1),
  'socket.connection.setup.timeout.ms': integerOption('socket.connection.setup.timeout.ms', 'connectTimeout', 1),
  'metadata.max.age.ms': integerOption('metadata.max.age.ms', 'metadataMaxAge', 1),
  'topic.metadata.refresh.interval.ms': integerOption('topic.metadata.refresh.interval.ms', 'metadataMaxAge', 1),
  'retry.backoff.ms': integerOption('retry.backoff.ms', 'retryDelay', 0),
};

/** `librdkafka_options`: a map of librdkafka option names to values, checked against `known`. */
export function librdkafkaOptionsSchema(known: Readonly<Record<string, MappedOption>>) {
  return v.optional(
    v.pipe(
      v.record(v.string(), v.string('must be a string, as librdkafka takes every option as text')),
      v.rawCheck<Record<string, string>>(({ dataset, addIssue }) => {
        if (!dataset.typed) return;
        for (const [name, value] of Object.entries(dataset.value)) {
          const path: [ReturnType<typeof pathItem>] = [pathItem(dataset.value, name)];
          const option = known[name];
          if (option === undefined) {
            addIssue({ message: `"${name}" is not supported: weir's Kafka client is not librdkafka; supported: ${Object.keys(known).sort().join(', ')}`, path });
            continue;
          }
          try {
            option.apply(value, {});
          } catch (err) {
            addIssue({ message: (err as Error).message, path });
          }
        }
      }),
      v.description('librdkafka options, for those with an equivalent in weir\'s client (listed in the component page); any other is refused.'),
    ),
    {},
  );
}

/** The entries both components have. */
export const kafkaConnectionEntries = {
  bootstrap_servers: bootstrapServersSchema,
  socket_timeout_ms: socketTimeoutSchema,
  sasl: saslSchema,
  // TLS only with `tls.enabled = true`, as Vector's `tls` (TlsEnableableConfig)
  tls: tlsSchema,
};

/** What connecting needs of either component's options. */
export interface KafkaConnectionConfig {
  readonly bootstrap_servers: string;
  readonly socket_timeout_ms: number;
  readonly sasl?: KafkaSaslConfig | undefined;
  readonly tls?: v.InferOutput<typeof tlsSchema>;
  readonly librdkafka_options: Readonly<Record<string, string>>;
}
