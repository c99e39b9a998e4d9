/**
 * The one codec and framing module: serializers for sinks, deserializers for sources, framing
 * both ways, and the option groups (`encoding`, `decoding`, `framing`) components put in schemas.
 */
export {
  ENCODING_CODECS,
  type EncodingCodec,
  type EncodingConfig,
  type LogSchemaKeys,
  DEFAULT_LOG_SCHEMA,
  EncodeError,
  type Serializer,
  createSerializer,
  encodingSchema,
  metricTagValuesOption,
} from './encoding.js';
export {
  FRAMING_METHODS,
  type FramingMethod,
  type FramingConfig,
  type Framer,
  type Deframer,
  type DeframerOptions,
  type FrameSink,
  type FrameDiscard,
  type LengthDelimitedOptions,
  DEFAULT_MAX_FRAME_LENGTH,
  LENGTH_DELIMITED_DEFAULTS,
  createFramer,
  createDeframer,
  defaultStreamFraming,
  deframeAll,
  framingSchema,
} from './framing.js';
export {
  DECODING_CODECS,
  type DecodingCodec,
  type DecodingConfig,
  DecodeError,
  defaultDecodingFraming,
  decodingOutputType,
  type Deserializer,
  type DeserializerOptions,
  type Stamp,
  createDeserializer,
  decodingSchema,
} from './decoding.js';
export { type BatchEncoder, type EncodedBatch, createBatchEncoder } from './batch.js';
export { TIMESTAMP_FORMATS, type TimestampFormat, timestampToken, valueToJSONText } from './json.js';
export { encodeLogfmt } from './logfmt.js';
export { type GelfKeys, toGelf } from './gelf.js';
export { metricToText } from './metric-text.js';
export { type SyslogMessage, parseSyslog, parseSyslogExact, syslogToFields } from './syslog.js';
export { type StreamDecoder, type StreamDecoderOptions, frameDiscardReporter, receivedBytesCounter, streamDecoderFactory } from './stream-decoder.js';
export { floatToken, nativeJsonLogText, nativeJsonMetricText, parseJsonValue, readNativeJson, type NativeReadOptions } from './native-json.js';
export { encodeNative, readNative } from './native-proto.js';
