/**
 * One example configuration per catalog component, keyed `<kind>.<type>`: a whole pipeline (the
 * component with what it needs around it) that `weir validate --no-environment` accepts. The
 * component pages (docs/components/) and `weir list <type>` show them; a test validates each.
 */
export const componentExamples: Readonly<Record<string, string>> = {
  'source.cloudg_pubsub': `[sources.audit]
type = "cloudg_pubsub"
project = "my-project"
subscription = "audit-weir"
credentials_path = "/etc/weir/pubsub-reader.json"
ack_deadline_secs = 60
decoding.codec = "json"

[sinks.out]
type = "console"
inputs = ["audit"]
encoding.codec = "json"
acknowledgements.enabled = true
`,
  'source.cloudw_queue': `[sources.orders]
type = "cloudw_queue"
queue_url = "https://sqs.eu-west-1.amazonaws.com/123456789012/orders"
region = "eu-west-1"
poll_secs = 20
decoding.codec = "json"

[sinks.out]
type = "console"
inputs = ["orders"]
encoding.codec = "json"
acknowledgements.enabled = true
`,
  'source.demo_logs': `[sources.demo]
type = "demo_logs"
format = "apache_common"
interval = 0.5

[sinks.out]
type = "console"
inputs = ["demo"]
encoding.codec = "json"
`,
  'source.eventdb_metrics': `[sources.eventdb]
type = "eventdb_metrics"
endpoint = "https://localhost:2113/stats"
scrape_interval_secs = 15

[sinks.out]
type = "console"
inputs = ["eventdb"]
encoding.codec = "json"
`,
  'source.file': `[sources.app_logs]
type = "file"
include = ["/var/log/app/**/*.log"]
exclude = ["/var/log/app/**/*.gz"]
read_from = "beginning"
multiline.start_pattern = '^\\d{4}-'
multiline.mode = "halt_before"
multiline.condition_pattern = '^\\d{4}-'
multiline.timeout_ms = 1000

[sinks.out]
type = "console"
inputs = ["app_logs"]
encoding.codec = "json"
acknowledgements.enabled = true
`,
  'source.http_server': `[sources.ingest]
type = "http_server"
address = "0.0.0.0:8080"
path = "/ingest"
decoding.codec = "json"
headers = ["User-Agent"]
auth.strategy = "basic"
auth.username = "ingest"
auth.password = "change-me"

[sinks.out]
type = "console"
inputs = ["ingest"]
encoding.codec = "json"
`,
  'source.host_metrics': `[sources.host]
type = "host_metrics"
collectors = ["cpu", "memory", "filesystem", "load", "network"]
scrape_interval_secs = 15
filesystem.filesystems.excludes = ["tmpfs", "proc", "sysfs"]
network.devices.excludes = ["lo"]

[sinks.out]
type = "console"
inputs = ["host"]
encoding.codec = "json"
`,
  'source.internal_metrics': `[sources.self]
type = "internal_metrics"
scrape_interval_secs = 10

[sinks.out]
type = "console"
inputs = ["self"]
encoding.codec = "native_json"
`,
  'source.journal': `data_dir = "/var/lib/weir"

[sources.journal]
type = "journal"
current_boot_only = true
exclude_units = ["cron"]

[sinks.out]
type = "console"
inputs = ["journal"]
encoding.codec = "json"
`,
  'source.logfwd': `[sources.forward]
type = "logfwd"
address = "0.0.0.0:24224"

[sinks.out]
type = "file"
inputs = ["forward"]
path = "/var/log/weir/forward-%Y-%m-%d.log"
encoding.codec = "json"
`,
  'source.kafka': `[sources.logs]
type = "kafka"
bootstrap_servers = "10.0.0.11:9092,10.0.0.12:9092"
topics = ["logs", "^app-.*"]
group_id = "aggregators"
auto_offset_reset = "earliest"
decoding.codec = "json"

[sinks.out]
type = "console"
inputs = ["logs"]
encoding.codec = "json"
acknowledgements.enabled = true
`,
  'source.nats': `[sources.orders]
type = "nats"
url = "nats://127.0.0.1:4222"
connection_name = "weir-orders"
subject = "orders.>"
decoding.codec = "json"
jetstream.stream = "ORDERS"
jetstream.consumer = "weir"

[sinks.out]
type = "console"
inputs = ["orders"]
encoding.codec = "json"
acknowledgements.enabled = true
`,
  'source.opentelemetry': `[sources.otel]
type = "opentelemetry"
grpc.address = "0.0.0.0:4317"
http.address = "0.0.0.0:4318"

[sinks.out]
type = "console"
inputs = ["otel.logs"]
encoding.codec = "json"
`,
  'source.socket': `[sources.app]
type = "socket"
mode = "tcp"
address = "0.0.0.0:9000"
decoding.codec = "json"

[sinks.out]
type = "console"
inputs = ["app"]
encoding.codec = "json"
`,
  'source.vector': `[sources.agents]
type = "vector"
address = "0.0.0.0:6000"

[sinks.out]
type = "console"
inputs = ["agents"]
encoding.codec = "json"
`,
  'source.stdin': `[sources.in]
type = "stdin"

[sinks.out]
type = "console"
inputs = ["in"]
encoding.codec = "json"
`,
  'source.syslog': `[sources.syslog]
type = "syslog"
mode = "tcp"
address = "0.0.0.0:6514"
max_length = 102400

[sinks.out]
type = "console"
inputs = ["syslog"]
encoding.codec = "json"
`,
  'transform.aggregate': `[sources.weir]
type = "internal_metrics"
scrape_interval_secs = 2

[transforms.every_minute]
type = "aggregate"
inputs = ["weir"]
interval_ms = 60000
mode = "Auto"

[sinks.out]
type = "console"
inputs = ["every_minute"]
encoding.codec = "json"
`,
  'transform.filter': `[sources.demo]
type = "demo_logs"
format = "apache_common"

[transforms.errors]
type = "filter"
inputs = ["demo"]
condition = 'contains(string!(.message), "\\" 500 ")'

[sinks.out]
type = "console"
inputs = ["errors"]
encoding.codec = "json"
`,
  'transform.log_to_metric': `[sources.demo]
type = "demo_logs"
format = "json"

[transforms.requests]
type = "log_to_metric"
inputs = ["demo"]

[[transforms.requests.metrics]]
type = "counter"
field = "message"
name = "lines_total"
tags.host = "{{ host }}"

[sinks.out]
type = "console"
inputs = ["requests"]
encoding.codec = "native_json"
`,
  'transform.reduce': `[sources.in]
type = "stdin"
decoding.codec = "json"

[transforms.sessions]
type = "reduce"
inputs = ["in"]
group_by = ["user"]
expire_after_ms = 30000
merge_strategies.message = "array"

[sinks.out]
type = "console"
inputs = ["sessions"]
encoding.codec = "json"
`,
  'transform.remap': `[sources.demo]
type = "demo_logs"
format = "apache_common"

[transforms.parse]
type = "remap"
inputs = ["demo"]
source = '. = parse_apache_log!(.message, format: "common")'

[sinks.out]
type = "console"
inputs = ["parse"]
encoding.codec = "json"
`,
  'transform.route': `[sources.in]
type = "stdin"
decoding.codec = "json"

[transforms.by_level]
type = "route"
inputs = ["in"]
route.errors = '.level == "error"'
route.metrics = { type = "is_metric" }

[sinks.errors]
type = "console"
inputs = ["by_level.errors", "by_level.metrics"]
encoding.codec = "json"

[sinks.rest]
type = "blackhole"
inputs = ["by_level._unmatched"]
`,
  'transform.throttle': `[sources.in]
type = "stdin"
decoding.codec = "json"

[transforms.limit]
type = "throttle"
inputs = ["in"]
threshold = 100
window_secs = 1
key_field = "{{ service }}"

[sinks.out]
type = "console"
inputs = ["limit"]
encoding.codec = "json"
`,
  'transform.tokenizer': `[sources.demo]
type = "demo_logs"
format = "apache_common"

[transforms.fields]
type = "tokenizer"
inputs = ["demo"]
field_names = ["client", "ident", "user", "time", "request", "status", "bytes"]
types.status = "int"

[sinks.out]
type = "console"
inputs = ["fields"]
encoding.codec = "json"
`,
  'sink.blackhole': `[sources.demo]
type = "demo_logs"
format = "json"
interval = 0

[sinks.drop]
type = "blackhole"
inputs = ["demo"]
`,
  'sink.cloudg_object_storage': `[sources.in]
type = "stdin"

[sinks.archive]
type = "cloudg_object_storage"
inputs = ["in"]
bucket = "my-log-archive"
key_prefix = "date=%F/"
compression = "gzip"
encoding.codec = "ndjson"
`,
  'sink.cloudg_pubsub': `[sources.in]
type = "stdin"

[sinks.topic]
type = "cloudg_pubsub"
inputs = ["in"]
project = "my-project"
topic = "app-logs"
encoding.codec = "json"
`,
  'sink.cloudw_monitor_logs': `[sources.in]
type = "stdin"

[sinks.cloudlogs]
type = "cloudw_monitor_logs"
inputs = ["in"]
region = "eu-west-1"
group_name = "/weir/app"
stream_name = "{{ host }}"
encoding.codec = "json"
`,
  'sink.cloudw_monitor_metrics': `[sources.self]
type = "internal_metrics"

[sinks.cloudmetrics]
type = "cloudw_monitor_metrics"
inputs = ["self"]
region = "eu-west-1"
default_namespace = "weir"
`,
  'sink.cloudw_object_storage': `[sources.in]
type = "stdin"

[sinks.archive]
type = "cloudw_object_storage"
inputs = ["in"]
bucket = "my-logs"
region = "eu-west-1"
key_prefix = "date=%F/"
encoding.codec = "json"
`,
  'sink.cloudw_queue': `[sources.in]
type = "stdin"

[sinks.queue]
type = "cloudw_queue"
inputs = ["in"]
queue_url = "https://sqs.eu-west-1.amazonaws.com/123456789012/events"
region = "eu-west-1"
encoding.codec = "json"
`,
  'sink.cloudw_stream': `[sources.in]
type = "stdin"

[sinks.stream]
type = "cloudw_stream"
inputs = ["in"]
stream_name = "weir-events"
region = "eu-west-1"
partition_key_field = "host"
encoding.codec = "json"
`,
  'sink.console': `[sources.in]
type = "stdin"

[sinks.out]
type = "console"
inputs = ["in"]
target = "stdout"
encoding.codec = "json"
`,
  'sink.file': `[sources.in]
type = "stdin"

[sinks.archive]
type = "file"
inputs = ["in"]
path = "/var/log/weir/app-%Y-%m-%d.log"
encoding.codec = "text"
`,
  'sink.http': `[sources.in]
type = "stdin"

[sinks.collector]
type = "http"
inputs = ["in"]
uri = "https://collector.example.com/ingest"
encoding.codec = "json"
compression = "gzip"
batch.max_events = 1000
`,
  'sink.vector': `[sources.in]
type = "stdin"

[sinks.aggregator]
type = "vector"
inputs = ["in"]
address = "aggregator.example.com:6000"
compression = "gzip"
`,
  'sink.labelstore': `[sources.in]
type = "stdin"

[sinks.store]
type = "labelstore"
inputs = ["in"]
endpoint = "http://127.0.0.1:3100"
encoding.codec = "json"
labels.source = "weir"
`,
  'sink.logsvc_metrics': `[sources.self]
type = "internal_metrics"

[sinks.logsvc]
type = "logsvc_metrics"
inputs = ["self"]
token = "\${LOGSVC_TOKEN:-change-me}"
`,
  'sink.kafka': `[sources.app]
type = "file"
include = ["/var/log/app/*.log"]

[sinks.kafka]
type = "kafka"
inputs = ["app"]
bootstrap_servers = "10.0.0.11:9092,10.0.0.12:9092"
topic = "logs-{{ host }}"
key_field = "host"
encoding.codec = "json"
compression = "lz4"
acknowledgements.enabled = true
sasl.enabled = true
sasl.mechanism = "SCRAM-SHA-256"
sasl.username = "agent"
sasl.password = "\${KAFKA_PASSWORD:-change-me}"
`,
  'sink.nats': `[sources.in]
type = "stdin"
decoding.codec = "json"

[sinks.out]
type = "nats"
inputs = ["in"]
url = "nats://127.0.0.1:4222"
subject = "logs.{{ service }}"
encoding.codec = "json"
jetstream.enabled = true
`,
  'sink.siem_hec_metrics': `[sources.self]
type = "internal_metrics"

[sinks.hec]
type = "siem_hec_metrics"
inputs = ["self"]
endpoint = "https://hec.example.com:8088"
default_token = "\${HEC_TOKEN:-change-me}"
`,
  'sink.socket': `[sources.in]
type = "stdin"

[sinks.forward]
type = "socket"
inputs = ["in"]
mode = "tcp"
address = "127.0.0.1:9000"
encoding.codec = "json"
`,
  'sink.tsdb_metrics': `[sources.self]
type = "internal_metrics"

[sinks.tsdb]
type = "tsdb_metrics"
inputs = ["self"]
endpoint = "http://127.0.0.1:8086"
database = "weir"
`,
  'sink.prometheus_exporter': `[sources.self]
type = "internal_metrics"

[sinks.prom]
type = "prometheus_exporter"
inputs = ["self"]
address = "0.0.0.0:9598"
flush_period_secs = 60
`,
  'source.prometheus_scrape': `[sources.node]
type = "prometheus_scrape"
endpoints = ["http://localhost:9100/metrics"]
scrape_interval_secs = 15
instance_tag = "instance"

[sinks.out]
type = "console"
inputs = ["node"]
encoding.codec = "json"
`,
  'source.prometheus_remote_write': `[sources.prom]
type = "prometheus_remote_write"
address = "0.0.0.0:9090"
path = "/api/v1/write"

[sinks.out]
type = "console"
inputs = ["prom"]
encoding.codec = "json"
`,
  'sink.prometheus_remote_write': `[sources.self]
type = "internal_metrics"

[sinks.prom]
type = "prometheus_remote_write"
inputs = ["self"]
endpoint = "http://127.0.0.1:9090/api/v1/write"
default_namespace = "service"
healthcheck.uri = "http://127.0.0.1:9090/-/healthy"
`,
};
