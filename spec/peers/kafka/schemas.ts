/**
 * The requests the test broker serves and the versions it advertises, from Kafka's message schemas
 * (`clients/src/main/resources/common/message/*.json`): each field with the versions it exists in.
 * The ranges span what librdkafka 2.0 (Debian's kcat) and @platformatic/kafka 1.x ask for: the
 * C client tops out at the classic encodings (Produce v7, Fetch v11, JoinGroup v5), the JS client
 * starts at the flexible ones (Produce v7+, Fetch v13 with topic ids, JoinGroup v9), so both encodings are
 * served. Produce starts at v3, the first to carry record batches (magic 2): older message sets
 * are not accepted.
 */
import { type Field, f } from './codec.js';

export interface ApiSchema {
  readonly key: number;
  readonly name: string;
  readonly min: number;
  readonly max: number;
  /** First version with the flexible (compact, tagged) encoding. */
  readonly flexibleFrom: number;
  readonly request: readonly Field[];
  readonly response: readonly Field[];
}

const throttle = f('throttle_time_ms', 'int32', '1+');

export const API_VERSIONS: ApiSchema = {
  key: 18,
  name: 'ApiVersions',
  min: 0,
  max: 3,
  flexibleFrom: 3,
  request: [f('client_software_name', 'string', '3+'), f('client_software_version', 'string', '3+')],
  response: [
    f('error_code', 'int16'),
    f('api_keys', [f('api_key', 'int16'), f('min_version', 'int16'), f('max_version', 'int16')]),
    throttle,
  ],
};

export const METADATA: ApiSchema = {
  key: 3,
  name: 'Metadata',
  min: 1,
  max: 12,
  flexibleFrom: 9,
  request: [
    f('topics', [f('topic_id', 'uuid', '10+'), f('name', 'string', '0+', 10)], '0+', 1),
    f('allow_auto_topic_creation', 'bool', '4+'),
    f('include_cluster_authorized_operations', 'bool', '8-10'),
    f('include_topic_authorized_operations', 'bool', '8+'),
  ],
  response: [
    f('throttle_time_ms', 'int32', '3+'),
    f('brokers', [f('node_id', 'int32'), f('host', 'string'), f('port', 'int32'), f('rack', 'string', '1+', 1)]),
    f('cluster_id', 'string', '2+', 2),
    f('controller_id', 'int32', '1+'),
    f('topics', [
      f('error_code', 'int16'),
      f('name', 'string', '0+', 12),
      f('topic_id', 'uuid', '10+'),
      f('is_internal', 'bool', '1+'),
      f('partitions', [
        f('error_code', 'int16'),
        f('partition_index', 'int32'),
        f('leader_id', 'int32'),
        f('leader_epoch', 'int32', '7+'),
        f('replica_nodes', '[]int32'),
        f('isr_nodes', '[]int32'),
        f('offline_replicas', '[]int32', '5+'),
      ]),
      f('topic_authorized_operations', 'int32', '8+'),
    ]),
    f('cluster_authorized_operations', 'int32', '8-10'),
  ],
};

export const PRODUCE: ApiSchema = {
  key: 0,
  name: 'Produce',
  min: 3,
  max: 9,
  flexibleFrom: 9,
  request: [
    f('transactional_id', 'string', '3+', 3),
    f('acks', 'int16'),
    f('timeout_ms', 'int32'),
    f('topic_data', [f('name', 'string'), f('partition_data', [f('index', 'int32'), f('records', 'bytes', '0+', 0)])]),
  ],
  response: [
    f('responses', [
      f('name', 'string'),
      f('partition_responses', [
        f('index', 'int32'),
        f('error_code', 'int16'),
        f('base_offset', 'int64'),
        f('log_append_time_ms', 'int64', '2+'),
        f('log_start_offset', 'int64', '5+'),
        f('record_errors', [f('batch_index', 'int32'), f('batch_index_error_message', 'string', '8+', 8)], '8+'),
        f('error_message', 'string', '8+', 8),
      ]),
    ]),
    throttle,
  ],
};

export const FETCH: ApiSchema = {
  key: 1,
  name: 'Fetch',
  min: 4,
  max: 13,
  flexibleFrom: 12,
  request: [
    f('replica_id', 'int32'),
    f('max_wait_ms', 'int32'),
    f('min_bytes', 'int32'),
    f('max_bytes', 'int32', '3+'),
    f('isolation_level', 'int8', '4+'),
    f('session_id', 'int32', '7+'),
    f('session_epoch', 'int32', '7+'),
    f('topics', [
      f('topic', 'string', '0-12'),
      f('topic_id', 'uuid', '13+'),
      f('partitions', [
        f('partition', 'int32'),
        f('current_leader_epoch', 'int32', '9+'),
        f('fetch_offset', 'int64'),
        f('last_fetched_epoch', 'int32', '12+'),
        f('log_start_offset', 'int64', '5+'),
        f('partition_max_bytes', 'int32'),
      ]),
    ]),
    f('forgotten_topics_data', [f('topic', 'string', '7-12'), f('topic_id', 'uuid', '13+'), f('partitions', '[]int32')], '7+'),
    f('rack_id', 'string', '11+'),
  ],
  response: [
    throttle,
    f('error_code', 'int16', '7+'),
    f('session_id', 'int32', '7+'),
    f('responses', [
      f('topic', 'string', '0-12'),
      f('topic_id', 'uuid', '13+'),
      f('partitions', [
        f('partition_index', 'int32'),
        f('error_code', 'int16'),
        f('high_watermark', 'int64'),
        f('last_stable_offset', 'int64', '4+'),
        f('log_start_offset', 'int64', '5+'),
        f('aborted_transactions', [f('producer_id', 'int64'), f('first_offset', 'int64')], '4+', 4),
        f('preferred_read_replica', 'int32', '11+'),
        f('records', 'bytes', '0+', 0),
      ]),
    ]),
  ],
};

export const LIST_OFFSETS: ApiSchema = {
  key: 2,
  name: 'ListOffsets',
  min: 1,
  max: 9,
  flexibleFrom: 6,
  request: [
    f('replica_id', 'int32'),
    f('isolation_level', 'int8', '2+'),
    f('topics', [f('name', 'string'), f('partitions', [f('partition_index', 'int32'), f('current_leader_epoch', 'int32', '4+'), f('timestamp', 'int64')])]),
  ],
  response: [
    f('throttle_time_ms', 'int32', '2+'),
    f('topics', [
      f('name', 'string'),
      f('partitions', [f('partition_index', 'int32'), f('error_code', 'int16'), f('timestamp', 'int64'), f('offset', 'int64'), f('leader_epoch', 'int32', '4+')]),
    ]),
  ],
};

export const FIND_COORDINATOR: ApiSchema = {
  key: 10,
  name: 'FindCoordinator',
  min: 0,
  max: 4,
  flexibleFrom: 3,
  request: [f('key', 'string', '0-3'), f('key_type', 'int8', '1+'), f('coordinator_keys', '[]string', '4+')],
  response: [
    throttle,
    f('error_code', 'int16', '0-3'),
    f('error_message', 'string', '1-3', 1),
    f('node_id', 'int32', '0-3'),
    f('host', 'string', '0-3'),
    f('port', 'int32', '0-3'),
    f(
      'coordinators',
      [f('key', 'string'), f('node_id', 'int32'), f('host', 'string'), f('port', 'int32'), f('error_code', 'int16'), f('error_message', 'string', '4+', 4)],
      '4+',
    ),
  ],
};

export const JOIN_GROUP: ApiSchema = {
  key: 11,
  name: 'JoinGroup',
  min: 0,
  max: 9,
  flexibleFrom: 6,
  request: [
    f('group_id', 'string'),
    f('session_timeout_ms', 'int32'),
    f('rebalance_timeout_ms', 'int32', '1+'),
    f('member_id', 'string'),
    f('group_instance_id', 'string', '5+', 5),
    f('protocol_type', 'string'),
    f('protocols', [f('name', 'string'), f('metadata', 'bytes')]),
    f('reason', 'string', '8+', 8),
  ],
  response: [
    f('throttle_time_ms', 'int32', '2+'),
    f('error_code', 'int16'),
    f('generation_id', 'int32'),
    f('protocol_type', 'string', '7+', 7),
    f('protocol_name', 'string', '0+', 7),
    f('leader', 'string'),
    f('skip_assignment', 'bool', '9+'),
    f('member_id', 'string'),
    f('members', [f('member_id', 'string'), f('group_instance_id', 'string', '5+', 5), f('metadata', 'bytes')]),
  ],
};

export const SYNC_GROUP: ApiSchema = {
  key: 14,
  name: 'SyncGroup',
  min: 0,
  max: 5,
  flexibleFrom: 4,
  request: [
    f('group_id', 'string'),
    f('generation_id', 'int32'),
    f('member_id', 'string'),
    f('group_instance_id', 'string', '3+', 3),
    f('protocol_type', 'string', '5+', 5),
    f('protocol_name', 'string', '5+', 5),
    f('assignments', [f('member_id', 'string'), f('assignment', 'bytes')]),
  ],
  response: [throttle, f('error_code', 'int16'), f('protocol_type', 'string', '5+', 5), f('protocol_name', 'string', '5+', 5), f('assignment', 'bytes')],
};

export const HEARTBEAT: ApiSchema = {
  key: 12,
  name: 'Heartbeat',
  min: 0,
  max: 4,
  flexibleFrom: 4,
  request: [f('group_id', 'string'), f('generation_id', 'int32'), f('member_id', 'string'), f('group_instance_id', 'string', '3+', 3)],
  response: [throttle, f('error_code', 'int16')],
};

export const LEAVE_GROUP: ApiSchema = {
  key: 13,
  name: 'LeaveGroup',
  min: 0,
  max: 5,
  flexibleFrom: 4,
  request: [
    f('group_id', 'string'),
    f('member_id', 'string', '0-2'),
    f('members', [f('member_id', 'string'), f('group_instance_id', 'string', '3+', 3), f('reason', 'string', '5+', 5)], '3+'),
  ],
  response: [throttle, f('error_code', 'int16'), f('members', [f('member_id', 'string'), f('group_instance_id', 'string', '3+', 3), f('error_code', 'int16')], '3+')],
};

export const OFFSET_COMMIT: ApiSchema = {
  key: 8,
  name: 'OffsetCommit',
  min: 2,
  max: 9,
  flexibleFrom: 8,
  request: [
    f('group_id', 'string'),
    f('generation_id', 'int32', '1+'),
    f('member_id', 'string', '1+'),
    f('group_instance_id', 'string', '7+', 7),
    f('retention_time_ms', 'int64', '2-4'),
    f('topics', [
      f('name', 'string'),
      f('partitions', [f('partition_index', 'int32'), f('committed_offset', 'int64'), f('committed_leader_epoch', 'int32', '6+'), f('committed_metadata', 'string', '0+', 0)]),
    ]),
  ],
  response: [f('throttle_time_ms', 'int32', '3+'), f('topics', [f('name', 'string'), f('partitions', [f('partition_index', 'int32'), f('error_code', 'int16')])])],
};

const committed = [
  f('partition_index', 'int32'),
  f('committed_offset', 'int64'),
  f('committed_leader_epoch', 'int32', '5+'),
  f('metadata', 'string', '0+', 0),
  f('error_code', 'int16'),
];

export const OFFSET_FETCH: ApiSchema = {
  key: 9,
  name: 'OffsetFetch',
  min: 1,
  max: 8,
  flexibleFrom: 6,
  request: [
    f('group_id', 'string', '0-7'),
    f('topics', [f('name', 'string'), f('partition_indexes', '[]int32')], '0-7', 2),
    f('groups', [f('group_id', 'string'), f('topics', [f('name', 'string'), f('partition_indexes', '[]int32')], '8+', 8)], '8+'),
    f('require_stable', 'bool', '7+'),
  ],
  response: [
    f('throttle_time_ms', 'int32', '3+'),
    f('topics', [f('name', 'string'), f('partitions', committed)], '0-7'),
    f('error_code', 'int16', '2-7'),
    f('groups', [f('group_id', 'string'), f('topics', [f('name', 'string'), f('partitions', committed)]), f('error_code', 'int16')], '8+'),
  ],
};

export const SASL_HANDSHAKE: ApiSchema = {
  key: 17,
  name: 'SaslHandshake',
  // librdkafka requires v0 in the range to use SASL at all, then uses v1
  min: 0,
  max: 1,
  flexibleFrom: Infinity,
  request: [f('mechanism', 'string')],
  response: [f('error_code', 'int16'), f('mechanisms', '[]string')],
};

export const SASL_AUTHENTICATE: ApiSchema = {
  key: 36,
  name: 'SaslAuthenticate',
  min: 0,
  max: 2,
  flexibleFrom: 2,
  request: [f('auth_bytes', 'bytes')],
  response: [f('error_code', 'int16'), f('error_message', 'string', '0+', 0), f('auth_bytes', 'bytes'), f('session_lifetime_ms', 'int64', '1+')],
};

/** Every API the broker serves, by key. */
export const APIS: ReadonlyMap<number, ApiSchema> = new Map(
  [API_VERSIONS, METADATA, PRODUCE, FETCH, LIST_OFFSETS, FIND_COORDINATOR, JOIN_GROUP, SYNC_GROUP, HEARTBEAT, LEAVE_GROUP, OFFSET_COMMIT, OFFSET_FETCH, SASL_HANDSHAKE, SASL_AUTHENTICATE].map(
    (s) => [s.key, s],
  ),
);

/** The error codes the broker answers with (Kafka's `Errors` table). */
export const ERR = {
  NONE: 0,
  OFFSET_OUT_OF_RANGE: 1,
  CORRUPT_MESSAGE: 2,
  UNKNOWN_TOPIC_OR_PARTITION: 3,
  INVALID_FETCH_SIZE: 4,
  COORDINATOR_NOT_AVAILABLE: 15,
  INVALID_TOPIC_EXCEPTION: 17,
  INVALID_REQUIRED_ACKS: 21,
  ILLEGAL_GENERATION: 22,
  INCONSISTENT_GROUP_PROTOCOL: 23,
  INVALID_GROUP_ID: 24,
  UNKNOWN_MEMBER_ID: 25,
  INVALID_SESSION_TIMEOUT: 26,
  REBALANCE_IN_PROGRESS: 27,
  UNSUPPORTED_SASL_MECHANISM: 33,
  ILLEGAL_SASL_STATE: 34,
  UNSUPPORTED_VERSION: 35,
  INVALID_RECORD: 87,
  SASL_AUTHENTICATION_FAILED: 58,
  UNSUPPORTED_FOR_MESSAGE_FORMAT: 43,
  TRANSACTIONAL_ID_AUTHORIZATION_FAILED: 53,
  UNSUPPORTED_COMPRESSION_TYPE: 76,
  FETCH_SESSION_ID_NOT_FOUND: 70,
  UNKNOWN_TOPIC_ID: 100,
  MEMBER_ID_REQUIRED: 79,
  GROUP_ID_NOT_FOUND: 69,
} as const;
