/**
 * weir's protobuf schema of the label store's push request (Loki's `logproto.PushRequest`, same
 * field numbers), shared by the `labelstore` sink and the test peer so both read one definition.
 * The entry timestamp is `google.protobuf.Timestamp` on the wire, declared here under a local name
 * with the same fields and numbers.
 */
import type protobufNs from 'protobufjs';
import { lazyModule } from '../../../lib/lazy-module.js';

const protobuf = lazyModule<typeof protobufNs>('protobufjs');

/** The schema text (proto3). */
const PUSH_PROTO = `
syntax = "proto3";
package logproto;
message PushRequest { repeated StreamAdapter streams = 1; string format = 2; }
message StreamAdapter { string labels = 1; repeated EntryAdapter entries = 2; uint64 hash = 3; }
message LabelPairAdapter { string name = 1; string value = 2; }
message EntryAdapter {
  WireTimestamp timestamp = 1;
  string line = 2;
  repeated LabelPairAdapter structuredMetadata = 3;
  repeated LabelPairAdapter parsed = 4;
}
message WireTimestamp { int64 seconds = 1; int32 nanos = 2; }
`;

let pushRequest: protobufNs.Type | undefined;

/** `logproto.PushRequest`, field names as written in {@link PUSH_PROTO} (parsed on first use). */
export function pushRequestType(): protobufNs.Type {
  return (pushRequest ??= protobuf().parse(PUSH_PROTO, { keepCase: true }).root.lookupType('logproto.PushRequest'));
}

/** One entry as the sink encodes it: the timestamp split as the wire carries it. */
export interface PushEntry {
  readonly timestamp: { readonly seconds: number; readonly nanos: number };
  readonly line: string;
}

/** One stream: its label text (`{a="1", b="2"}`) and its entries. */
export interface PushStream {
  readonly labels: string;
  readonly entries: readonly PushEntry[];
}

/** Encodes a push request (uncompressed protobuf). */
export function encodePush(streams: readonly PushStream[]): Uint8Array {
  return pushRequestType().encode({ streams }).finish();
}
