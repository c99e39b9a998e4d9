/**
 * The partition key of an object-storage sink's event (as Vector groups objects): the rendered
 * key prefix, with the rendered KMS key when that is a template (one object per pair). Used by the
 * sink on the main thread and by a pipeline worker that encodes for it (docs/threads.md), so both
 * group and refuse events alike.
 */
import type { Event } from '../../../lib/event.js';
import { TemplateError, compileTemplate } from '../../../lib/template.js';
import type { ObjectNamer } from './naming.js';

/** The key of one event; throws {@link TemplateError} when a referenced field is missing. */
export type ObjectPartition = (e: Event) => string;

/** Compiles the partition of a sink's `key_prefix` (through `namer`) and optional `ssekms_key_id` template. */
export function objectPartition(namer: ObjectNamer, kmsKeyId?: string): ObjectPartition {
  const kms = kmsKeyId === undefined ? undefined : compileTemplate(kmsKeyId);
  if (!kms?.isDynamic) return (e) => namer.prefixOf(e);
  return (e) => {
    const prefix = namer.prefixOf(e);
    const key = kms.render(e);
    if (key === undefined) throw new TemplateError(kms.text, `missing field(s) ${kms.missingFields(e).join(', ')}`);
    return JSON.stringify([prefix, key]);
  };
}

/** Splits a partition key of {@link objectPartition} into its key prefix and KMS key (compiled once per sink). */
export function partitionParts(kmsKeyId?: string): (partition: string | undefined) => [prefix: string, kmsKeyId: string | undefined] {
  if (kmsKeyId === undefined || !compileTemplate(kmsKeyId).isDynamic) return (partition) => [partition ?? '', undefined];
  return (partition) => JSON.parse(partition!) as [string, string];
}
