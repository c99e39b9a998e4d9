/** `version` of the `vector` source and sink: only protocol version 2 exists. */
import * as v from 'valibot';

export const versionSchema = v.optional(
  v.pipe(
    v.string(),
    v.check(
      (x) => x === '2',
      'only version "2" of the vector protocol is supported; version "1" (the TCP protocol of Vector before 0.13) was removed from Vector and is not offered',
    ),
    v.description('Version of the vector protocol: "2" (gRPC), the only one.'),
  ),
);
