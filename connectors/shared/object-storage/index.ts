/** Object naming and bodies shared by the object-storage sinks. */
export { type ObjectBodyEncoder, createObjectBodyEncoder } from './body.js';
export { type ObjectNamer, createObjectNamer, defaultExtension } from './naming.js';
export { DEFAULT_FILENAME_TIME_FORMAT, DEFAULT_KEY_PREFIX, type ObjectNamingConfig, objectNamingEntries } from './options.js';
