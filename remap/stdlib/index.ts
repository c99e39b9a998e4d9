/** The standard library: every built-in function, one list. */
import type { FnDef } from '../function.js';
import { binaryFunctions, codecFunctions, punycodeFunctions } from './codecs.js';
import { albFunctions, awsFunctions, influxFunctions } from './parse-aws.js';
import { charsetRubyFunctions } from './charset-ruby.js';
import { cryptoFunctions } from './crypto.js';
import { datadogQueryFunctions } from './match-datadog-query.js';
import { xmlFunctions } from './parse-xml.js';
import { grokFunctions } from './grok.js';
import { collectionFunctions } from './collections.js';
import { ipFunctions } from './ip.js';
import { iterationFunctions } from './iteration.js';
import { miscFunctions } from './misc.js';
import { moreFunctions } from './more.js';
import { numberFunctions } from './numbers.js';
import { jsonFunctions } from './parse-json.js';
import { keyValueFunctions } from './parse-key-value.js';
import { miscParseFunctions } from './parse-misc.js';
import { syslogFunctions } from './parse-syslog.js';
import { pathEntryFunctions } from './paths-entries.js';
import { redactFunctions } from './redact.js';
import { webLogFunctions } from './parse-web-logs.js';
import { regexFunctions } from './regex-fns.js';
import { stringFunctions } from './strings.js';
import { timeFunctions } from './time.js';
import { typeFunctions } from './types.js';

/** Every built-in function; compile() indexes it by name once. */
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
  ...punycodeFunctions,
  ...binaryFunctions,
  ...miscFunctions,
  ...ipFunctions,
  ...moreFunctions,
  ...redactFunctions,
  ...pathEntryFunctions,
  ...webLogFunctions,
  ...awsFunctions,
  ...albFunctions,
  ...influxFunctions,
  ...grokFunctions,
  ...cryptoFunctions,
  ...xmlFunctions,
  ...charsetRubyFunctions,
  ...datadogQueryFunctions,
];
