/** `tls.client_metadata_key` of listening sources: the client certificate's subject on each event. */
import { type EventBatch, LogEvent } from '../../lib/event.js';
import { type Path, setPath } from '../../lib/path.js';

/** Writes `{ subject }` at `key` of every log event; each gets its own object (events are mutable downstream). */
export function addClientMetadata(batch: EventBatch, key: Path, subject: string): void {
  for (let i = 0; i < batch.length; i++) {
    const e = batch[i];
    if (e instanceof LogEvent) setPath(e.fields, key, { subject });
  }
}
