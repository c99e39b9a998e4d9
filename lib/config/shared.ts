/**
 * `SinkEnvelope` under its former module name, for the component definitions that still import it
 * from here. The option builders live in ./options/, one file per concern.
 */
export type { SinkEnvelope } from './options/envelope.js';
