/** Internal events of the `file` sink: each logs and counts together. */
import type { SinkContext } from '../../../lib/component.js';
import type { Event } from '../../../lib/event.js';
import type { Template } from '../../../lib/template.js';

/** Events whose path template could not be rendered (a referenced field is missing); dropped. */
export function templateFailed(ctx: SinkContext, template: Template, events: readonly Event[]): void {
  ctx.telemetry.counter('component_errors_total', { error_type: 'template_failed', stage: 'processing' }).add(events.length);
  ctx.telemetry.counter('component_discarded_events_total', { intentional: 'false' }).add(events.length);
  ctx.log.warn('Failed rendering the path template; events dropped.', {
    template: template.text,
    missing: template.missingFields(events[0]!).join(', '),
    dropped: events.length,
  });
}
