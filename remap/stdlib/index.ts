/** The standard library: every built-in function, one list. */
import type { FnDef } from '../function.js';
import { assertionFunctions } from './assertions.js';
import { coercionFunctions } from './coercions.js';
import { collectionFunctions } from './collections.js';
import { csvFunctions } from './csv.js';
import { baseEncodingFunctions } from './encoding-base16-base64.js';
import { charsetFunctions } from './encoding-charset.js';
import { compressionFunctions } from './encoding-compression.js';
import { mimeFunctions } from './encoding-mime.js';
import { percentEncodingFunctions } from './encoding-percent.js';
import { punycodeFunctions } from './encoding-punycode.js';
import { encryptionFunctions } from './encryption.js';
import { enrichmentTableFunctions } from './enrichment.js';
import { filePathFunctions } from './file-paths.js';
import { geoFunctions } from './geo.js';
import { hashFunctions } from './hashes.js';
import { ipFunctions } from './ip.js';
import { iterationFunctions } from './iteration.js';
import { jsonFunctions } from './json.js';
import { keyValueFunctions } from './key-value.js';
import { logFunctions } from './log.js';
import { datadogQueryFunctions } from './match-datadog-query.js';
import { numberFunctions } from './numbers.js';
import { awsFunctions } from './parse-aws.js';
import { cborFunctions } from './parse-cbor.js';
import { cefFunctions } from './parse-cef.js';
import { glogFunctions } from './parse-glog.js';
import { grokFunctions } from './parse-grok.js';
import { influxFunctions } from './parse-influxdb.js';
import { rubyHashFunctions } from './parse-ruby-hash.js';
import { syslogFunctions } from './parse-syslog.js';
import { tokenFunctions } from './parse-tokens.js';
import { unitFunctions } from './parse-units.js';
import { urlFunctions } from './parse-url.js';
import { webLogFunctions } from './parse-web-logs.js';
import { xmlFunctions } from './parse-xml.js';
import { yamlFunctions } from './parse-yaml.js';
import { pathFunctions } from './paths.js';
import { randomFunctions } from './random.js';
import { redactFunctions } from './redact.js';
import { reverseDnsFunctions } from './reverse-dns.js';
import { secretFunctions } from './secrets.js';
import { semanticMeaningFunctions } from './semantic-meaning.js';
import { regexFunctions } from './regex-match.js';
import { caseFunctions } from './string-case.js';
import { stringFunctions } from './strings.js';
import { systemFunctions } from './system.js';
import { timeFunctions } from './time.js';
import { typeCheckFunctions } from './type-checks.js';
import { uuidFunctions } from './uuid.js';

/** Every built-in function; compile() indexes it by name once. */
export const stdlib: readonly FnDef[] = [
  // values and types
  ...typeCheckFunctions,
  ...coercionFunctions,
  ...assertionFunctions,
  ...pathFunctions,
  ...collectionFunctions,
  ...iterationFunctions,
  // text and numbers
  ...stringFunctions,
  ...caseFunctions,
  ...regexFunctions,
  ...numberFunctions,
  ...randomFunctions,
  ...geoFunctions,
  ...timeFunctions,
  // encodings, digests and encryption
  ...jsonFunctions,
  ...keyValueFunctions,
  ...csvFunctions,
  ...baseEncodingFunctions,
  ...percentEncodingFunctions,
  ...punycodeFunctions,
  ...charsetFunctions,
  ...mimeFunctions,
  ...compressionFunctions,
  ...hashFunctions,
  ...encryptionFunctions,
  // parsers
  ...awsFunctions,
  ...cborFunctions,
  ...cefFunctions,
  ...glogFunctions,
  ...grokFunctions,
  ...influxFunctions,
  ...rubyHashFunctions,
  ...syslogFunctions,
  ...tokenFunctions,
  ...unitFunctions,
  ...urlFunctions,
  ...webLogFunctions,
  ...xmlFunctions,
  ...yamlFunctions,
  // network, environment and events
  ...ipFunctions,
  ...reverseDnsFunctions,
  ...filePathFunctions,
  ...uuidFunctions,
  ...systemFunctions,
  ...logFunctions,
  ...redactFunctions,
  ...datadogQueryFunctions,
  ...secretFunctions,
  ...semanticMeaningFunctions,
  ...enrichmentTableFunctions,
];
