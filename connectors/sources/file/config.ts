/** Options of the `file` source, with the defaults of Vector's `file` source documentation page. */
import * as v from 'valibot';
import { posint, uint } from '../../../lib/config/options/numbers.js';
import { charsetName } from './charset.js';

const nonEmpty = () => v.pipe(v.string(), v.minLength(1, 'must not be empty'));

/** Older names Vector still accepts for some options; the current name wins when both are written. */
const ALIASES: Readonly<Record<string, string>> = {
  ignore_older: 'ignore_older_secs',
  glob_minimum_cooldown: 'glob_minimum_cooldown_ms',
  fingerprinting: 'fingerprint',
  remove_after: 'remove_after_secs',
};

/** Renames Vector's older option names to the current ones (a both-written alias stays, and is refused as unknown). */
const renameAliases = v.transform((x: unknown) => {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) return x;
  const raw = x as Record<string, unknown>;
  if (!Object.keys(ALIASES).some((a) => Object.hasOwn(raw, a))) return x;
  const out: Record<string, unknown> = {};
  for (const [k, value] of Object.entries(raw)) {
    const to = ALIASES[k];
    out[to !== undefined && !Object.hasOwn(raw, to) ? to : k] = value;
  }
  return out;
});

/** `acknowledgements = true` is Vector's short form of `acknowledgements.enabled = true`. */
const acknowledgementsOption = v.optional(
  v.pipe(
    v.unknown(),
    v.transform((x: unknown) => (typeof x === 'boolean' ? { enabled: x } : x)),
    v.strictObject({
      enabled: v.optional(v.pipe(v.boolean(), v.description('Deprecated in Vector and without effect: acknowledgements are asked for by sinks.'))),
    }),
  ),
  {},
);

/** How a file is told apart from another (`fingerprint`). */
const fingerprintSchema = v.optional(
  v.strictObject({
    strategy: v.optional(
      v.pipe(v.picklist(['checksum', 'device_and_inode']), v.description('checksum: a hash of the first lines (survives copies); device_and_inode: the file system identity.')),
      'checksum',
    ),
    lines: v.optional(v.pipe(posint(), v.description('checksum: how many lines the hash covers; a file with fewer complete lines waits until it grows.')), 1),
    ignored_header_bytes: v.optional(v.pipe(uint(), v.description('checksum: bytes skipped at the start of the file before hashing (a constant header).')), 0),
  }),
  {},
);

const regexSchema = (what: string) =>
  v.pipe(
    v.string(),
    v.check((s) => {
      try {
        new RegExp(s);
        return true;
      } catch {
        return false;
      }
    }, 'must be a valid regular expression'),
    v.description(what),
  );

/** Joining consecutive lines into one event (`multiline`); every option is required, as in Vector. */
const multilineSchema = v.optional(
  v.strictObject({
    start_pattern: regexSchema('A line matching this opens a message.'),
    condition_pattern: regexSchema('Judges the lines after the first; what a match means depends on mode.'),
    mode: v.pipe(
      v.picklist(['continue_through', 'continue_past', 'halt_before', 'halt_with']),
      v.description('continue_through / continue_past: matching lines join (continue_past also takes the first line that does not); halt_before / halt_with: lines join until one matches (halt_with takes it too).'),
    ),
    timeout_ms: v.pipe(posint(), v.description('An open message is emitted this long after its last line.')),
  }),
);

/** The `file` source options. */
export const FileSourceConfig = v.pipe(
  v.unknown(),
  renameAliases,
  v.strictObject({
    type: v.literal('file'),
    include: v.pipe(v.array(nonEmpty()), v.minLength(1, 'must name at least one path or pattern'), v.description('Paths or glob patterns (`*`, `?`, `[…]`, `{a,b}`, `**`) of the files to read.')),
    exclude: v.optional(v.pipe(v.array(nonEmpty()), v.description('Glob patterns of paths to leave out, applied after include.')), []),
    glob_minimum_cooldown_ms: v.optional(v.pipe(uint(), v.description('Least time in milliseconds between two searches for files matching include.')), 1000),
    read_from: v.optional(v.pipe(v.picklist(['beginning', 'end']), v.description('Where a file found at startup without a checkpoint is read from; files found later are read from the beginning.')), 'beginning'),
    ignore_older_secs: v.optional(v.pipe(uint(), v.description('Files last modified this long before startup are read from their end only, checkpoint or not (gzip files not at all).'))),
    max_line_bytes: v.optional(v.pipe(posint(), v.description('Longest line in bytes; longer lines are discarded and counted.')), 102_400),
    max_read_bytes: v.optional(v.pipe(posint(), v.description('Most bytes read from one file before the next file gets its turn.')), 2048),
    line_delimiter: v.optional(v.pipe(nonEmpty(), v.description('The string that ends a line.')), '\n'),
    file_key: v.optional(v.pipe(v.string(), v.description('Field holding the path of the file an event was read from; "" leaves it out.')), 'file'),
    host_key: v.optional(v.pipe(v.string(), v.description('Field holding the host name (default: the global log_schema.host_key); "" leaves it out.'))),
    offset_key: v.optional(v.pipe(v.string(), v.description('Field holding the byte offset of the line in its file; absent or "": no such field.'))),
    data_dir: v.optional(v.pipe(nonEmpty(), v.description('Where the checkpoints persist, under <data_dir>/<component id>/ (default: the global data_dir).'))),
    ignore_checkpoints: v.optional(v.pipe(v.boolean(), v.description('Ignore saved checkpoints (they are still written): read_from decides where reading starts. Default false (true with start_at_beginning = true).'))),
    rotate_wait_secs: v.optional(
      v.pipe(uint(), v.description('How long a file that no longer matches include (rotated away, deleted) stays open while it has unread data.')),
      Number.MAX_SAFE_INTEGER,
    ),
    oldest_first: v.optional(v.pipe(v.boolean(), v.description('Read the oldest file (by creation time) to its end before newer ones, instead of taking turns.')), false),
    remove_after_secs: v.optional(
      v.pipe(uint(), v.description('Delete a file once it was read to its end (and, with acknowledgements, delivered) and nothing was added for this long.')),
    ),
    encoding: v.optional(
      v.strictObject({
        charset: v.pipe(
          v.string(),
          v.rawCheck(({ dataset, addIssue }) => {
            if (!dataset.typed) return;
            const name = charsetName(dataset.value);
            if (typeof name !== 'string') addIssue({ message: name.error });
          }),
          v.description('Character set of the files (an Encoding Standard label such as utf-16le, windows-1252, shift_jis); events are UTF-8.'),
        ),
      }),
    ),
    fingerprint: fingerprintSchema,
    internal_metrics: v.optional(
      v.strictObject({
        include_file_tag: v.optional(v.pipe(v.boolean(), v.description('Tag the per-file internal metrics (files_added_total …) with the file path; one series per file.')), false),
      }),
      {},
    ),
    multiline: multilineSchema,
    ignore_not_found: v.optional(v.pipe(v.boolean(), v.description('A path the glob lists that cannot be found when opened (a dangling symbolic link, a file deleted meanwhile) is skipped silently instead of counted as an error.')), false),
    start_at_beginning: v.optional(v.pipe(v.boolean(), v.description('Deprecated (use ignore_checkpoints and read_from): true makes ignore_checkpoints default to true.'))),
    message_start_indicator: v.optional(regexSchema('Deprecated (use multiline): a line matching this opens a message, the lines up to the next match join it (multiline halt_before with this as both patterns); ignored when multiline is set.')),
    multi_line_timeout: v.optional(v.pipe(uint(), v.description('Deprecated (use multiline.timeout_ms): with message_start_indicator, an open message is emitted this many milliseconds after its last line.')), 1000),
    acknowledgements: acknowledgementsOption,
  }),
);
/** Validated `file` source options. */
export type FileSourceConfig = v.InferOutput<typeof FileSourceConfig>;
