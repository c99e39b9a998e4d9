/** Options of the `journal` source (Vector's `journald` options). */
import * as v from 'valibot';
import { pathItem } from '../../../lib/config/options/checks.js';
import { acknowledgementsSchema } from '../../../lib/config/options/envelope.js';
import { posint } from '../../../lib/config/options/numbers.js';

const matchesSchema = v.optional(v.record(v.string(), v.array(v.string())), {});

/** The `journal` source options. */
export const JournalSourceConfig = v.pipe(
  v.strictObject({
    type: v.literal('journal'),
    batch_size: v.optional(v.pipe(posint(), v.description('Most records per batch; the checkpoint is set after each batch.')), 16),
    current_boot_only: v.optional(v.pipe(v.boolean(), v.description('Read only the current boot.')), true),
    since_now: v.optional(v.pipe(v.boolean(), v.description('Without a checkpoint, start at entries written from now on.')), false),
    data_dir: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.description('Where the checkpoint persists (default: the global data_dir).'))),
    include_units: v.optional(v.array(v.string()), []),
    exclude_units: v.optional(v.array(v.string()), []),
    include_matches: matchesSchema,
    exclude_matches: matchesSchema,
    journal_directory: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.description('Journal directory (default: the system journal).'))),
    journalctl_path: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.description('The journal command (default: journalctl from PATH).')), 'journalctl'),
    remap_priority: v.optional(v.pipe(v.boolean(), v.description('Deprecated: PRIORITY numbers become names (use remap instead).')), false),
    acknowledgements: acknowledgementsSchema,
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const c = dataset.value;
    const include = unitMatches(c.include_matches, c.include_units);
    const exclude = unitMatches(c.exclude_matches, c.exclude_units);
    const units = new Set(c.include_units.map(unitName));
    for (const u of c.exclude_units.map(unitName))
      if (units.has(u)) addIssue({ message: `unit "${u}" is both included and excluded`, path: [pathItem(c, 'exclude_units')] });
    for (const [field, values] of include)
      for (const value of values)
        if (exclude.get(field)?.has(value)) addIssue({ message: `${field}=${value} is both included and excluded`, path: [pathItem(c, 'exclude_matches')] });
  }),
);
/** Validated `journal` source options. */
export type JournalSourceConfig = v.InferOutput<typeof JournalSourceConfig>;

/** A unit name as matched: `.service` appended when it has no dot. */
export const unitName = (u: string): string => (u.includes('.') ? u : `${u}.service`);

/** Field -> accepted values, with the units merged in as `_SYSTEMD_UNIT` values. */
export function unitMatches(matches: Readonly<Record<string, readonly string[]>>, units: readonly string[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const field in matches) out.set(field, new Set(matches[field]));
  if (units.length > 0) {
    const set = out.get('_SYSTEMD_UNIT') ?? new Set<string>();
    for (const u of units) set.add(unitName(u));
    out.set('_SYSTEMD_UNIT', set);
  }
  return out;
}
