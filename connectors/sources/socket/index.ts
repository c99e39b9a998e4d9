/** `socket`: receive events over TCP, UDP or a unix stream socket. */
import { defineSource } from '../../../lib/component.js';
import { decodingOutputType } from '../../../lib/codecs/index.js';
import { SocketSourceConfig } from './config.js';
import { socketWorkerDecoding } from './decoder.js';
import { buildSocketSource } from './source.js';

export { SocketSourceConfig } from './config.js';
export { buildSocketSource } from './source.js';

/** The `socket` source definition. */
export const socketSource = defineSource({
  drainsOnShutdown: true,
  type: 'socket',
  summary: 'Receive events over TCP, UDP or a unix socket, framed and decoded.',
  schema: SocketSourceConfig,
  outputs: (config) => [{ type: decodingOutputType(config.decoding) }],
  workerDecoding: socketWorkerDecoding,
  vectorOptions: [
    'permit_origin',
    'multicast_groups',
    'multicast_interface',
    'socket_file_mode',
    'max_connection_duration_secs',
    'tls_handshake_timeout_secs',
    'send_buffer_bytes',
    'tls',
  ],
  build: buildSocketSource,
});
