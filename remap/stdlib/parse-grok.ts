/** parse_grok: `%{PATTERN:field}` expressions over a library of the common grok patterns. */
import type { ObjectValue } from '../../lib/value.js';
import { type FnDef, FunctionCompileError, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { builtRegex } from '../regex.js';
import { fail } from './errors.js';

/** The usual grok pattern names, each a regex that may refer to others with %{NAME}. */
const PATTERNS: Record<string, string> = {
  USERNAME: '[a-zA-Z0-9._-]+',
  USER: '%{USERNAME}',
  EMAILLOCALPART: "[a-zA-Z0-9!#$%&'*+/=?^_`{|}~-]+(?:\\.[a-zA-Z0-9!#$%&'*+/=?^_`{|}~-]+)*",
  EMAILADDRESS: '%{EMAILLOCALPART}@%{HOSTNAME}',
  INT: '(?:[+-]?(?:[0-9]+))',
  BASE10NUM: '(?:[+-]?(?:[0-9]+(?:\\.[0-9]+)?|\\.[0-9]+))',
  NUMBER: '(?:%{BASE10NUM})',
  BASE16NUM: '(?:0[xX]?[0-9a-fA-F]+)',
  BASE16FLOAT: '\\b(?:[+-]?(?:0x)?(?:[0-9A-Fa-f]+(?:\\.[0-9A-Fa-f]*)?|\\.[0-9A-Fa-f]+))\\b',
  POSINT: '\\b(?:[1-9][0-9]*)\\b',
  NONNEGINT: '\\b(?:[0-9]+)\\b',
  WORD: '\\b\\w+\\b',
  NOTSPACE: '\\S+',
  SPACE: '\\s*',
  DATA: '.*?',
  GREEDYDATA: '.*',
  QUOTEDSTRING: '(?:"(?:\\\\.|[^\\\\"])*"|\'(?:\\\\.|[^\\\\\'])*\'|`(?:\\\\.|[^\\\\`])*`)',
  QS: '%{QUOTEDSTRING}',
  UUID: '[A-Fa-f0-9]{8}-(?:[A-Fa-f0-9]{4}-){3}[A-Fa-f0-9]{12}',
  MAC: '(?:%{CISCOMAC}|%{WINDOWSMAC}|%{COMMONMAC})',
  CISCOMAC: '(?:(?:[A-Fa-f0-9]{4}\\.){2}[A-Fa-f0-9]{4})',
  WINDOWSMAC: '(?:(?:[A-Fa-f0-9]{2}-){5}[A-Fa-f0-9]{2})',
  COMMONMAC: '(?:(?:[A-Fa-f0-9]{2}:){5}[A-Fa-f0-9]{2})',
  IPV6: '(?:(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}|(?:[0-9A-Fa-f]{1,4}:){1,7}:|(?:[0-9A-Fa-f]{1,4}:){1,6}:[0-9A-Fa-f]{1,4}|(?:[0-9A-Fa-f]{1,4}:){1,5}(?::[0-9A-Fa-f]{1,4}){1,2}|(?:[0-9A-Fa-f]{1,4}:){1,4}(?::[0-9A-Fa-f]{1,4}){1,3}|(?:[0-9A-Fa-f]{1,4}:){1,3}(?::[0-9A-Fa-f]{1,4}){1,4}|(?:[0-9A-Fa-f]{1,4}:){1,2}(?::[0-9A-Fa-f]{1,4}){1,5}|[0-9A-Fa-f]{1,4}:(?::[0-9A-Fa-f]{1,4}){1,6}|:(?:(?::[0-9A-Fa-f]{1,4}){1,7}|:)|(?:[0-9A-Fa-f]{1,4}:){6}%{IPV4}|::(?:ffff(?::0{1,4})?:)?%{IPV4})',
  IPV4: '(?<![0-9])(?:(?:[0-1]?[0-9]{1,2}|2[0-4][0-9]|25[0-5])[.](?:[0-1]?[0-9]{1,2}|2[0-4][0-9]|25[0-5])[.](?:[0-1]?[0-9]{1,2}|2[0-4][0-9]|25[0-5])[.](?:[0-1]?[0-9]{1,2}|2[0-4][0-9]|25[0-5]))(?![0-9])',
  IP: '(?:%{IPV6}|%{IPV4})',
  HOSTNAME: '\\b(?:[0-9A-Za-z][0-9A-Za-z-]{0,62})(?:\\.(?:[0-9A-Za-z][0-9A-Za-z-]{0,62}))*(?:\\.?|\\b)',
  IPORHOST: '(?:%{IP}|%{HOSTNAME})',
  HOSTPORT: '%{IPORHOST}:%{POSINT}',
  PATH: '(?:%{UNIXPATH}|%{WINPATH})',
  UNIXPATH: '(?:/[\\w_%!$@:.,+~-]*)+',
  WINPATH: '(?:[A-Za-z]+:|\\\\)(?:\\\\[^\\\\?*]*)+',
  URIPROTO: '[A-Za-z](?:[A-Za-z0-9+\\-.]+)+',
  URIHOST: '%{IPORHOST}(?::%{POSINT})?',
  URIPATH: "(?:/[A-Za-z0-9$.+!*'(){},~:;=@#%&_\\-]*)+",
  URIPARAM: "\\?[A-Za-z0-9$.+!*'|(){},~@#%&/=:;_?\\-\\[\\]<>]*",
  URIPATHPARAM: '%{URIPATH}(?:%{URIPARAM})?',
  URI: '%{URIPROTO}://(?:%{USER}(?::[^@]*)?@)?(?:%{URIHOST})?(?:%{URIPATHPARAM})?',
  MONTH: '\\b(?:[Jj]an(?:uary|uar)?|[Ff]eb(?:ruary|ruar)?|[Mm](?:a|ä)?r(?:ch|z)?|[Aa]pr(?:il)?|[Mm]a(?:y|i)?|[Jj]un(?:e|i)?|[Jj]ul(?:y|i)?|[Aa]ug(?:ust)?|[Ss]ep(?:tember)?|[Oo](?:c|k)?t(?:ober)?|[Nn]ov(?:ember)?|[Dd]e(?:c|z)(?:ember)?)\\b',
  MONTHNUM: '(?:0?[1-9]|1[0-2])',
  MONTHNUM2: '(?:0[1-9]|1[0-2])',
  MONTHDAY: '(?:(?:0[1-9])|(?:[12][0-9])|(?:3[01])|[1-9])',
  DAY: '(?:Mon(?:day)?|Tue(?:sday)?|Wed(?:nesday)?|Thu(?:rsday)?|Fri(?:day)?|Sat(?:urday)?|Sun(?:day)?)',
  YEAR: '(?:\\d\\d){1,2}',
  HOUR: '(?:2[0123]|[01]?[0-9])',
  MINUTE: '(?:[0-5][0-9])',
  SECOND: '(?:(?:[0-5]?[0-9]|60)(?:[:.,][0-9]+)?)',
  TIME: '(?!<[0-9])%{HOUR}:%{MINUTE}(?::%{SECOND})(?![0-9])',
  DATE_US: '%{MONTHNUM}[/-]%{MONTHDAY}[/-]%{YEAR}',
  DATE_EU: '%{MONTHDAY}[./-]%{MONTHNUM}[./-]%{YEAR}',
  ISO8601_TIMEZONE: '(?:Z|[+-]%{HOUR}(?::?%{MINUTE}))',
  ISO8601_SECOND: '(?:%{SECOND}|60)',
  TIMESTAMP_ISO8601: '%{YEAR}-%{MONTHNUM}-%{MONTHDAY}[T ]%{HOUR}:?%{MINUTE}(?::?%{SECOND})?%{ISO8601_TIMEZONE}?',
  DATE: '%{DATE_US}|%{DATE_EU}',
  DATESTAMP: '%{DATE}[- ]%{TIME}',
  TZ: '(?:[APMCE][SD]T|UTC)',
  DATESTAMP_RFC822: '%{DAY} %{MONTH} %{MONTHDAY} %{YEAR} %{TIME} %{TZ}',
  DATESTAMP_OTHER: '%{DAY} %{MONTH} %{MONTHDAY} %{TIME} %{TZ} %{YEAR}',
  SYSLOGTIMESTAMP: '%{MONTH} +%{MONTHDAY} %{TIME}',
  PROG: '[\\x21-\\x5a\\x5c\\x5e-\\x7e]+',
  SYSLOGPROG: '%{PROG:program}(?:\\[%{POSINT:pid}\\])?',
  SYSLOGHOST: '%{IPORHOST}',
  SYSLOGFACILITY: '<%{NONNEGINT:facility}.%{NONNEGINT:priority}>',
  HTTPDATE: '%{MONTHDAY}/%{MONTH}/%{YEAR}:%{TIME} %{INT}',
  QUOTEDSTRINGNOQUOTE: '"(?:\\\\.|[^\\\\"])*"',
  SYSLOGBASE: '%{SYSLOGTIMESTAMP:timestamp} (?:%{SYSLOGFACILITY} )?%{SYSLOGHOST:logsource} %{SYSLOGPROG}:',
  COMMONAPACHELOG:
    '%{IPORHOST:clientip} %{USER:ident} %{USER:auth} \\[%{HTTPDATE:timestamp}\\] "(?:%{WORD:verb} %{NOTSPACE:request}(?: HTTP/%{NUMBER:httpversion})?|%{DATA:rawrequest})" %{NUMBER:response} (?:%{NUMBER:bytes}|-)',
  COMBINEDAPACHELOG: '%{COMMONAPACHELOG} %{QS:referrer} %{QS:agent}',
  LOGLEVEL:
    '(?:[Aa]lert|ALERT|[Tt]race|TRACE|[Dd]ebug|DEBUG|[Nn]otice|NOTICE|[Ii]nfo|INFO|[Ww]arn?(?:ing)?|WARN?(?:ING)?|[Ee]rr?(?:or)?|ERR?(?:OR)?|[Cc]rit?(?:ical)?|CRIT?(?:ICAL)?|[Ff]atal|FATAL|[Ss]evere|SEVERE|EMERG(?:ENCY)?|[Ee]merg(?:ency)?)',
};

/** A compiled grok expression: the JS regex and the field name of each capture group. */
interface Grok {
  readonly re: RegExp;
  readonly fields: readonly [group: string, field: string][];
}

/** Expands `%{NAME:field}` references recursively; throws for unknown names or cycles. */
export function compileGrok(pattern: string): Grok {
  const fields: [string, string][] = [];
  const expand = (p: string, depth: number): string => {
    if (depth > 30) throw new Error('grok pattern recursion too deep');
    return p.replace(/%\{(\w+)(?::([\w.@[\]-]+))?(?::\w+)?\}/g, (_m, name: string, field: string | undefined) => {
      const def = PATTERNS[name];
      if (def === undefined) throw new Error(`the given pattern definition name "${name}" could not be found`);
      const body = expand(def, depth + 1);
      if (field === undefined) return `(?:${body})`;
      const group = `g${fields.length}`;
      fields.push([group, field]);
      return `(?<${group}>${body})`;
    });
  };
  const source = expand(pattern.replace(/\(\?P</g, '(?<'), 0);
  return { re: builtRegex(source), fields };
}

/** The functions of this file, for the stdlib list. */
export const grokFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'parse_grok',
    description: 'Parses a string with a grok pattern.',
    fresh: true,
    params: [
      { name: 'value', kind: K.BYTES, required: true },
      { name: 'pattern', kind: K.BYTES, required: true },
    ],
    fallible: true,
    returns: K.objectOf(K.K_BYTES),
    prepare: (args) => {
      const p = args[1]!;
      if (!p.isConstant || typeof p.constant !== 'string') throw new FunctionCompileError('expected static expression', 'pattern');
      try {
        return compileGrok(p.constant);
      } catch (e) {
        throw new FunctionCompileError(`grok pattern error: ${(e as Error).message}`, 'pattern', JSON.stringify(p.constant));
      }
    },
    call: ([v], env) => {
      const g = env.prepared as Grok;
      const m = g.re.exec(v as string);
      if (!m?.groups) return fail('unable to parse input with grok pattern');
      const out: ObjectValue = {};
      for (const [group, field] of g.fields) {
        const x = m.groups[group];
        if (x !== undefined) out[field] = x;
      }
      return out;
    },
  }),
];
