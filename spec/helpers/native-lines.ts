/** native_json lines in Vector's exact shape: one per metric kind and a log with every value kind. */

/** One line per metric kind, in Vector's native_json shape (field order, f64 as floats, tag sets). */
export const METRIC_LINES = [
  '{"metric":{"name":"requests","namespace":"web","tags":{"code":["200","ok"],"host":"a","bare":null,"empty":[],"with_bare":["x",null]},"timestamp":"2024-05-01T12:00:00.123456789Z","interval_ms":10000,"kind":"incremental","counter":{"value":3.0}}}',
  '{"metric":{"name":"temp","timestamp":"2024-05-01T12:00:00Z","kind":"absolute","gauge":{"value":-1.5}}}',
  '{"metric":{"name":"users","kind":"incremental","set":{"values":["alice","bob"]}}}',
  '{"metric":{"name":"latency","tags":{"region":"eu"},"kind":"incremental","distribution":{"samples":[{"value":1.0,"rate":3},{"value":2.5,"rate":1}],"statistic":"histogram"}}}',
  '{"metric":{"name":"sizes","kind":"incremental","distribution":{"samples":[{"value":0.25,"rate":1}],"statistic":"summary"}}}',
  '{"metric":{"name":"duration","namespace":"app","kind":"absolute","aggregated_histogram":{"buckets":[{"upper_limit":0.005,"count":1},{"upper_limit":1.0,"count":4},{"upper_limit":"inf","count":7}],"count":7,"sum":12.75}}}',
  '{"metric":{"name":"rpc","interval_ms":1,"kind":"absolute","aggregated_summary":{"quantiles":[{"quantile":0.5,"value":3.0},{"quantile":0.99,"value":11.25}],"count":20,"sum":80.0}}}',
];

/** A log with every value kind; integral floats carry a fraction so they stay floats. */
export const LOG_LINE =
  '{"log":{"message":"héllo \\"world\\"\\n","count":42,"negative":-7,"ratio":0.25,"whole_float":2.0,"big_float":1e+21,"ok":true,"no":false,"nothing":null,' +
  '"nested":{"a":{"b":[1,2.5,"x",null,{"c":false}]},"empty":{}},"list":[],"timestamp":"2024-05-01T12:00:00.000001Z","host":"peer","source_type":"stdin"}}';
