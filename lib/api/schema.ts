/**
 * The management API schema: Vector's GraphQL schema (its last GraphQL release) for the parts weir has.
 * Left out: `hostMetrics` and its types (weir has no host metrics source). One change:
 * `EventNotification.message` is nullable, so the tap query, which selects `message` on both
 * `Log` (String) and `EventNotification`, passes graphql-js's overlapping-fields rule.
 */
export const schemaSDL = /* GraphQL */ `
type AllocatedBytes {
  timestamp: DateTime
  allocatedBytes: Float!
}

interface Component {
  componentId: String!
  componentType: String!
}

type ComponentAllocatedBytes {
  componentId: String!
  metric: AllocatedBytes!
}

type ComponentConnection {
  pageInfo: PageInfo!
  edges: [ComponentEdge!]!
  nodes: [Component!]!
  totalCount: Int!
}

type ComponentEdge {
  cursor: String!
  node: Component!
}

type ComponentErrorsTotal {
  componentId: String!
  metric: ErrorsTotal!
}

enum ComponentKind {
  SOURCE
  TRANSFORM
  SINK
}

input ComponentKindFilter {
  equals: ComponentKind
  notEquals: ComponentKind
}

type ComponentReceivedBytesThroughput {
  componentId: String!
  throughput: Int!
}

type ComponentReceivedBytesTotal {
  componentId: String!
  metric: ReceivedBytesTotal!
}

type ComponentReceivedEventsThroughput {
  componentId: String!
  throughput: Int!
}

type ComponentReceivedEventsTotal {
  componentId: String!
  metric: ReceivedEventsTotal!
}

type ComponentSentBytesThroughput {
  componentId: String!
  throughput: Int!
}

type ComponentSentBytesTotal {
  componentId: String!
  metric: SentBytesTotal!
}

type ComponentSentEventsThroughput {
  componentId: String!
  throughput: Int!
  outputs: [OutputThroughput!]!
}

type ComponentSentEventsTotal {
  componentId: String!
  metric: SentEventsTotal!
  outputs: [Output!]!
}

input ComponentsFilter {
  componentId: [StringFilter!]
  componentKind: [ComponentKindFilter!]
  or: [ComponentsFilter!]
}

input ComponentsSortField {
  field: ComponentsSortFieldName!
  direction: Direction! = ASC
}

enum ComponentsSortFieldName {
  COMPONENT_KEY
  COMPONENT_KIND
}

scalar DateTime

enum Direction {
  ASC
  DESC
}

type ErrorsTotal {
  timestamp: DateTime
  errorsTotal: Float!
}

enum EventEncodingType {
  JSON
  YAML
  LOGFMT
}

type EventNotification {
  notification: Notification!
  message: String
}

type FileSourceMetricFile {
  name: String!
  receivedBytesTotal: ReceivedBytesTotal
  receivedEventsTotal: ReceivedEventsTotal
  sentEventsTotal: SentEventsTotal
}

type FileSourceMetricFileConnection {
  pageInfo: PageInfo!
  edges: [FileSourceMetricFileEdge!]!
  nodes: [FileSourceMetricFile!]!
  totalCount: Int!
}

type FileSourceMetricFileEdge {
  cursor: String!
  node: FileSourceMetricFile!
}

input FileSourceMetricFilesSortField {
  field: FileSourceMetricFilesSortFieldName!
  direction: Direction! = ASC
}

enum FileSourceMetricFilesSortFieldName {
  NAME
  RECEIVED_BYTES_TOTAL
  RECEIVED_EVENTS_TOTAL
  SENT_EVENTS_TOTAL
}

type FileSourceMetrics implements SourceMetrics {
  files(after: String, before: String, first: Int, last: Int, filter: FileSourceMetricsFilesFilter, sort: [FileSourceMetricFilesSortField!]): FileSourceMetricFileConnection!
  receivedBytesTotal: ReceivedBytesTotal
  receivedEventsTotal: ReceivedEventsTotal
  sentEventsTotal: SentEventsTotal
}

input FileSourceMetricsFilesFilter {
  name: [StringFilter!]
  or: [FileSourceMetricsFilesFilter!]
}

type GenericSinkMetrics implements SinkMetrics {
  receivedEventsTotal: ReceivedEventsTotal
  sentBytesTotal: SentBytesTotal
  sentEventsTotal: SentEventsTotal
}

type GenericSourceMetrics implements SourceMetrics {
  receivedBytesTotal: ReceivedBytesTotal
  receivedEventsTotal: ReceivedEventsTotal
  sentEventsTotal: SentEventsTotal
}

type GenericTransformMetrics implements TransformMetrics {
  receivedEventsTotal: ReceivedEventsTotal
  sentEventsTotal: SentEventsTotal
}

type Heartbeat {
  utc: DateTime!
}

type InvalidMatch {
  pattern: String!
  invalidMatches: [String!]!
}

type Log {
  componentId: String!
  componentType: String!
  componentKind: String!
  message: String
  timestamp: DateTime
  string(encoding: EventEncodingType!): String!
  json(field: String!): String
}

type Matched {
  pattern: String!
}

type Meta {
  versionString: String!
  hostname: String
}

type Metric {
  componentId: String!
  componentType: String!
  componentKind: String!
  timestamp: DateTime
  name: String!
  namespace: String
  kind: MetricKind!
  valueType: String!
  value: String!
  tags: [MetricTag!]
  string(encoding: EventEncodingType!): String!
}

enum MetricKind {
  INCREMENTAL
  ABSOLUTE
}

type MetricTag {
  key: String!
  value: String!
}

interface MetricType {
  timestamp: DateTime
}

type NotMatched {
  pattern: String!
}

union Notification = Matched | NotMatched | InvalidMatch

type Output {
  outputId: String!
  sentEventsTotal: SentEventsTotal
}

union OutputEventsPayload = Log | Metric | EventNotification | Trace

type OutputThroughput {
  outputId: String!
  throughput: Int!
}

type PageInfo {
  hasPreviousPage: Boolean!
  hasNextPage: Boolean!
  startCursor: String
  endCursor: String
}

type Query {
  health: Boolean!
  components(after: String, before: String, first: Int, last: Int, filter: ComponentsFilter, sort: [ComponentsSortField!]): ComponentConnection!
  sources(after: String, before: String, first: Int, last: Int, filter: SourcesFilter, sort: [SourcesSortField!]): SourceConnection!
  transforms(after: String, before: String, first: Int, last: Int, filter: TransformsFilter, sort: [TransformsSortField!]): TransformConnection!
  sinks(after: String, before: String, first: Int, last: Int, filter: SinksFilter, sort: [SinksSortField!]): SinkConnection!
  componentByComponentKey(componentId: String!): Component
  meta: Meta!
}

type ReceivedBytesTotal {
  timestamp: DateTime
  receivedBytesTotal: Float!
}

type ReceivedEventsTotal {
  timestamp: DateTime
  receivedEventsTotal: Float!
}

type SentBytesTotal {
  timestamp: DateTime
  sentBytesTotal: Float!
}

type SentEventsTotal {
  timestamp: DateTime
  sentEventsTotal: Float!
}

type Sink implements Component {
  componentId: String!
  componentType: String!
  sources: [Source!]!
  transforms: [Transform!]!
  metrics: SinkMetrics!
}

type SinkConnection {
  pageInfo: PageInfo!
  edges: [SinkEdge!]!
  nodes: [Sink!]!
  totalCount: Int!
}

type SinkEdge {
  cursor: String!
  node: Sink!
}

interface SinkMetrics {
  receivedEventsTotal: ReceivedEventsTotal
  sentBytesTotal: SentBytesTotal
  sentEventsTotal: SentEventsTotal
}

input SinksFilter {
  componentId: [StringFilter!]
  componentType: [StringFilter!]
  or: [SinksFilter!]
}

input SinksSortField {
  field: SinksSortFieldName!
  direction: Direction! = ASC
}

enum SinksSortFieldName {
  COMPONENT_KEY
  COMPONENT_TYPE
}

type Source implements Component {
  componentId: String!
  componentType: String!
  outputTypes: [SourceOutputType!]!
  outputs: [Output!]!
  transforms: [Transform!]!
  sinks: [Sink!]!
  metrics: SourceMetrics!
}

type SourceConnection {
  pageInfo: PageInfo!
  edges: [SourceEdge!]!
  nodes: [Source!]!
  totalCount: Int!
}

type SourceEdge {
  cursor: String!
  node: Source!
}

interface SourceMetrics {
  receivedBytesTotal: ReceivedBytesTotal
  receivedEventsTotal: ReceivedEventsTotal
  sentEventsTotal: SentEventsTotal
}

enum SourceOutputType {
  LOG
  METRIC
  TRACE
}

input SourceOutputTypeFilter {
  equals: [SourceOutputType!]
  notEquals: [SourceOutputType!]
  contains: SourceOutputType
  notContains: SourceOutputType
}

input SourcesFilter {
  componentId: [StringFilter!]
  componentType: [StringFilter!]
  outputType: [SourceOutputTypeFilter!]
  or: [SourcesFilter!]
}

input SourcesSortField {
  field: SourcesSortFieldName!
  direction: Direction! = ASC
}

enum SourcesSortFieldName {
  COMPONENT_KEY
  COMPONENT_TYPE
  OUTPUT_TYPE
}

input StringFilter {
  equals: String
  notEquals: String
  contains: String
  notContains: String
  startsWith: String
  endsWith: String
}

type Subscription {
  heartbeat(interval: Int! = 1000): Heartbeat!
  uptime(interval: Int! = 1000): Uptime!
  receivedEventsTotal(interval: Int! = 1000): ReceivedEventsTotal! @deprecated(reason: "Use componentReceivedEventsTotals instead")
  receivedEventsThroughput(interval: Int! = 1000): Int! @deprecated(reason: "Use componentReceivedEventsThroughputs instead")
  componentReceivedEventsThroughputs(interval: Int! = 1000): [ComponentReceivedEventsThroughput!]!
  componentReceivedEventsTotals(interval: Int! = 1000): [ComponentReceivedEventsTotal!]!
  sentEventsTotal(interval: Int! = 1000): SentEventsTotal! @deprecated(reason: "Use componentSentEventsTotals instead")
  sentEventsThroughput(interval: Int! = 1000): Int! @deprecated(reason: "Use componentSentEventsThroughputs instead")
  componentSentEventsThroughputs(interval: Int! = 1000): [ComponentSentEventsThroughput!]!
  componentSentEventsTotals(interval: Int! = 1000): [ComponentSentEventsTotal!]!
  componentReceivedBytesTotals(interval: Int! = 1000): [ComponentReceivedBytesTotal!]!
  componentReceivedBytesThroughputs(interval: Int! = 1000): [ComponentReceivedBytesThroughput!]!
  componentSentBytesTotals(interval: Int! = 1000): [ComponentSentBytesTotal!]!
  componentSentBytesThroughputs(interval: Int! = 1000): [ComponentSentBytesThroughput!]!
  errorsTotal(interval: Int! = 1000): ErrorsTotal!
  allocatedBytes(interval: Int! = 1000): AllocatedBytes!
  componentAllocatedBytes(interval: Int! = 1000): [ComponentAllocatedBytes!]!
  componentErrorsTotals(interval: Int! = 1000): [ComponentErrorsTotal!]!
  metrics(interval: Int! = 1000): MetricType!
  componentAdded: Component!
  componentRemoved: Component!
  outputEventsByComponentIdPatterns(outputsPatterns: [String!]!, inputsPatterns: [String!], interval: Int! = 500, limit: Int! = 100): [OutputEventsPayload!]!
}

type Trace {
  componentId: String!
  componentType: String!
  componentKind: String!
  string(encoding: EventEncodingType!): String!
  json(field: String!): String
}

type Transform implements Component {
  componentId: String!
  componentType: String!
  outputs: [Output!]!
  sources: [Source!]!
  transforms: [Transform!]!
  sinks: [Sink!]!
  metrics: TransformMetrics!
}

type TransformConnection {
  pageInfo: PageInfo!
  edges: [TransformEdge!]!
  nodes: [Transform!]!
  totalCount: Int!
}

type TransformEdge {
  cursor: String!
  node: Transform!
}

interface TransformMetrics {
  receivedEventsTotal: ReceivedEventsTotal
  sentEventsTotal: SentEventsTotal
}

input TransformsFilter {
  componentId: [StringFilter!]
  componentType: [StringFilter!]
  or: [TransformsFilter!]
}

input TransformsSortField {
  field: TransformsSortFieldName!
  direction: Direction! = ASC
}

enum TransformsSortFieldName {
  COMPONENT_KEY
  COMPONENT_TYPE
}

type Uptime implements MetricType {
  timestamp: DateTime
  seconds: Float!
}`;
