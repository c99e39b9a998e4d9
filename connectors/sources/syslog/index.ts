/** `syslog`: receive RFC 5424 and RFC 3164 messages over TCP, UDP or a unix stream socket. */
import { defineSource } from '../../../lib/component.js';
import { SyslogSourceConfig } from './config.js';
import { buildSyslogSource } from './source.js';

export { SyslogSourceConfig } from './config.js';
export { buildSyslogSource } from './source.js';

/** The `syslog` source definition. */
export const syslogSource = defineSource({
  drainsOnShutdown: true,
  type: 'syslog',
  summary: 'Receive syslog messages (RFC 5424, RFC 3164) over TCP, UDP or a unix socket.',
  schema: SyslogSourceConfig,
  outputs: () => [{ type: 'log' }],
  vectorOptions: ['permit_origin', 'socket_file_mode', 'tls_handshake_timeout_secs', 'log_namespace'],
  build: buildSyslogSource,
});
