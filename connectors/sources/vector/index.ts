/** `vector`: receive events from Vector (or weir) over the `vector` protocol, version 2. */
import { defineSource } from '../../../lib/component.js';
import { VectorSourceConfig } from './config.js';
import { buildVectorSource } from './source.js';

export { VectorSourceConfig } from './config.js';
export { buildVectorSource } from './source.js';

/** The `vector` source definition: logs and metrics on the default output. */
export const vectorSource = defineSource({
  drainsOnShutdown: true,
  acknowledges: true,
  type: 'vector',
  summary: 'Receive logs and metrics from Vector or weir over the vector protocol (version 2, gRPC).',
  schema: VectorSourceConfig,
  vectorOptions: ['log_namespace'],
  outputs: () => [{ type: 'any' }],
  build: buildVectorSource,
});
