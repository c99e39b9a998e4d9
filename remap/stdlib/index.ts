/** The standard library: every built-in function, one list. */
import type { FnDef } from '../function.js';
import { codecFunctions } from './codecs.js';
import { collectionFunctions } from './collections.js';
import { iterationFunctions } from './iteration.js';
import { miscFunctions } from './misc.js';
import { numberFunctions } from './numbers.js';
import { jsonFunctions } from './parse-json.js';
import { keyValueFunctions } from './parse-key-value.js';
import { miscParseFunctions } from './parse-misc.js';
import { syslogFunctions } from './parse-syslog.js';
import { regexFunctions } from './regex-fns.js';
import { stringFunctions } from './strings.js';
import { timeFunctions } from './time.js';
import { typeFunctions } from './types.js';

export const stdlib: readonly FnDef[] = [
  ...typeFunctions,
  ...stringFunctions,
  ...collectionFunctions,
  ...iterationFunctions,
  ...numberFunctions,
  ...timeFunctions,
  ...jsonFunctions,
  ...keyValueFunctions,
  ...regexFunctions,
  ...syslogFunctions,
  ...miscParseFunctions,
  ...codecFunctions,
  ...miscFunctions,
];
