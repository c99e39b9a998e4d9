/** `socket`: send events over TCP, UDP or a unix stream socket. */
import { defineSink } from '../../../lib/component.js';
import { streamWorkerEncoding } from '../../shared/stream-records.js';
import { SocketSinkConfig } from './config.js';
import { buildSocketSink, socketHealthcheck } from './sink.js';

export { SocketSinkConfig } from './config.js';
export { buildSocketSink, socketHealthcheck } from './sink.js';

/** The `socket` sink definition. */
export const socketSink = defineSink({
  type: 'socket',
  summary: 'Send events over TCP, UDP or a unix socket, encoded and framed.',
  schema: SocketSinkConfig,
  // the Vector socket sink's options weir's lacks (Vector's socket source has more)
  vectorOptions: ['send_buffer_bytes', 'tls'],
  input: 'any',
  // text codecs: a worker writes each event's text, the sink frames runs of them
  workerEncoding: (config) => streamWorkerEncoding(config.encoding),
  build: buildSocketSink,
  healthcheck: (config) => socketHealthcheck(config),
});
