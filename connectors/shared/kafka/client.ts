/**
 * The Kafka client (@platformatic/kafka, loaded on first use: most pipelines have no Kafka
 * component) and the connection settings of one component: brokers, SASL, TLS, timeouts, and the
 * mapped librdkafka options on top.
 */
import type { ConnectionOptions } from 'node:tls';
import { lazyModule } from '../../../lib/lazy-module.js';
import { tlsConnectOptions } from '../../../lib/net/tls.js';
import { type KafkaConnectionConfig, type MappedOption, brokerAddresses } from './options.js';

/** The client library. */
export const kafkaClient = lazyModule<typeof import('@platformatic/kafka')>('@platformatic/kafka');

/** Base options of a producer or consumer (the client's `BaseOptions`). */
export interface KafkaBaseOptions {
  clientId: string;
  bootstrapBrokers: string[];
  timeout: number;
  connectTimeout: number;
  retries: number;
  retryDelay: number;
  sasl?: { mechanism: 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512'; username: string; password: string };
  tls?: ConnectionOptions;
  [key: string]: unknown;
}

/** Client settings from the shared options, then the mapped librdkafka options over them. */
export function kafkaBaseOptions(config: KafkaConnectionConfig, known: Readonly<Record<string, MappedOption>>, retries: number): KafkaBaseOptions {
  const options: KafkaBaseOptions = {
    // librdkafka's default client id, which Vector keeps
    clientId: 'rdkafka',
    bootstrapBrokers: brokerAddresses(config.bootstrap_servers),
    timeout: config.socket_timeout_ms,
    connectTimeout: Math.min(config.socket_timeout_ms, 30_000),
    retries,
    retryDelay: 100,
  };
  const sasl = config.sasl;
  if (sasl?.enabled === true) options.sasl = { mechanism: sasl.mechanism!, username: sasl.username!, password: sasl.password! };
  if (config.tls?.enabled === true) options.tls = tlsConnectOptions(config.tls);
  for (const [name, value] of Object.entries(config.librdkafka_options)) known[name]!.apply(value, options);
  return options;
}

/**
 * An error of the client as one line: its message, those it wraps, and the message the broker
 * sent with an error response (a refused login says why only there).
 */
export function describeKafkaError(err: unknown): string {
  const parts: string[] = [];
  const walk = (e: unknown, depth: number): void => {
    if (depth > 6 || e === null || e === undefined) return;
    if (!(e instanceof Error)) {
      parts.push(String(e));
      return;
    }
    if (!parts.includes(e.message)) parts.push(e.message);
    const brokerMessage = (e as { response?: { errorMessage?: unknown } }).response?.errorMessage;
    if (typeof brokerMessage === 'string' && brokerMessage !== '' && !parts.includes(brokerMessage)) parts.push(brokerMessage);
    for (const inner of (e as { errors?: unknown[] }).errors ?? []) walk(inner, depth + 1);
    walk((e as { cause?: unknown }).cause, depth + 1);
  };
  walk(err, 0);
  return parts.join(': ');
}
