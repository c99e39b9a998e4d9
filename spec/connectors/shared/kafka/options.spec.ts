/** The kafka source's and sink's options: Vector's defaults, the mapped librdkafka options, and refusals that name the option. */
import { expect } from 'chai';
import * as v from 'valibot';
import { KafkaSourceConfig } from '../../../../connectors/sources/kafka/config.js';
import { KafkaSinkConfig } from '../../../../connectors/sinks/kafka/config.js';
import { producerSettings } from '../../../../connectors/sinks/kafka/sink.js';

const issues = (schema: v.GenericSchema, input: unknown) => {
  const r = v.safeParse(schema, input);
  return r.success ? [] : r.issues.map((i) => `${v.getDotPath(i) ?? ''}: ${i.message}`);
};
const source = { type: 'kafka', bootstrap_servers: '127.0.0.1:9092', topics: ['t'], group_id: 'g' };
const sink = { type: 'kafka', inputs: ['in'], bootstrap_servers: '127.0.0.1:9092', topic: 't', encoding: { codec: 'json' } };

describe('kafka options', () => {
  it('source: Vector\'s defaults', () => {
    const c = v.parse(KafkaSourceConfig, source);
    expect(c).to.include({ auto_offset_reset: 'largest', session_timeout_ms: 10_000, socket_timeout_ms: 60_000, fetch_wait_max_ms: 100, commit_interval_ms: 5_000 });
    expect(c).to.include({ key_field: 'message_key', topic_key: 'topic', partition_key: 'partition', offset_key: 'offset', headers_key: 'headers' });
    expect(c.drain_timeout_ms).to.equal(undefined);
  });

  it('source: refuses a drain_timeout_ms over session_timeout_ms, a bad regex, a bad address, an unknown offset reset', () => {
    expect(issues(KafkaSourceConfig, { ...source, drain_timeout_ms: 20_000 })).to.deep.equal(['drain_timeout_ms: must not exceed session_timeout_ms (10000)']);
    expect(issues(KafkaSourceConfig, { ...source, topics: ['^(('] })[0]).to.match(/^topics: .*regular expression/);
    expect(issues(KafkaSourceConfig, { ...source, bootstrap_servers: 'host' })[0]).to.match(/^bootstrap_servers: "host" is not host:port/);
    expect(issues(KafkaSourceConfig, { ...source, auto_offset_reset: 'oldest' })[0]).to.match(/^auto_offset_reset: must be one of/);
  });

  it('librdkafka_options: the mapped ones are taken, any other is refused by name', () => {
    expect(issues(KafkaSourceConfig, { ...source, librdkafka_options: { 'fetch.min.bytes': '10', 'client.id': 'me' } })).to.deep.equal([]);
    expect(issues(KafkaSourceConfig, { ...source, librdkafka_options: { 'enable.auto.commit': 'true' } })[0]).to.match(/^librdkafka_options\.enable\.auto\.commit: "enable\.auto\.commit" is not supported/);
    expect(issues(KafkaSinkConfig, { ...sink, librdkafka_options: { acks: 'some' } })[0]).to.match(/^librdkafka_options\.acks: acks must be all/);
    const settings = producerSettings(v.parse(KafkaSinkConfig, { ...sink, librdkafka_options: { acks: '1', 'client.id': 'agent-7', 'batch.num.messages': '50', 'linger.ms': '20' } }));
    expect(settings.acks).to.equal(1);
    expect(settings.client.clientId).to.equal('agent-7');
    expect(settings.batch).to.deep.equal({ maxEvents: 50, maxBytes: 1_000_000, timeoutMs: 20 });
  });

  it('sink: Vector\'s defaults, and what it refuses', () => {
    const c = v.parse(KafkaSinkConfig, sink);
    expect(c).to.include({ compression: 'none', message_timeout_ms: 300_000, socket_timeout_ms: 60_000 });
    expect(producerSettings(c).acks).to.equal(-1);
    expect(issues(KafkaSinkConfig, { ...sink, compression: 'zstd' })).to.deep.equal(["compression: zstd is not supported: Node 20's zlib has no zstd; use gzip, snappy or lz4"]);
    expect(issues(KafkaSinkConfig, { ...sink, compression: 'brotli' })[0]).to.match(/^compression: must be one of none, gzip, snappy, lz4, zstd/);
    expect(issues(KafkaSinkConfig, { ...sink, sasl: { enabled: true, mechanism: 'PLAIN' } })).to.deep.equal(['sasl.username: is required when sasl.enabled is true', 'sasl.password: is required when sasl.enabled is true']);
    expect(issues(KafkaSinkConfig, { ...sink, sasl: { enabled: true, mechanism: 'GSSAPI', username: 'u', password: 'p' } })[0]).to.match(/^sasl\.mechanism: must be one of PLAIN/);
  });
});
