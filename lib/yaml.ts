/** The `yaml` package, loaded on first use (lib/lazy-module.ts): YAML configs, `parse_yaml`, YAML views of tapped events. */
import type * as Yaml from 'yaml';
import { lazyModule } from './lazy-module.js';

export const yaml = lazyModule<typeof Yaml>('yaml');
