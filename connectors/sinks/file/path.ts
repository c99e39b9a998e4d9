/**
 * The path an event goes to: the `file` sink's `path` template rendered in its time zone. Used by the
 * sink on the main thread and by a pipeline worker that encodes for it (docs/threads.md), so both
 * name and refuse alike.
 */
import type { Event } from '../../../lib/event.js';
import { type Template, TemplateError, compileTemplate } from '../../../lib/template.js';
import { resolveTimezone } from '../../../lib/time/strftime.js';

export interface FilePath {
  readonly template: Template;
  /** The event's path; throws a {@link TemplateError} naming the fields it misses. */
  render(e: Event): string;
}

/** Compiles the template once per sink; `timezone` is the sink's, else the global one. */
export function filePath(path: string, timezone: string | undefined): FilePath {
  const template = compileTemplate(path);
  const tz = resolveTimezone(timezone);
  return {
    template,
    render: (e) => {
      const p = template.isDynamic ? template.render(e, tz) : template.text;
      if (p === undefined) throw new TemplateError(template.text, `missing ${template.missingFields(e).join(', ')}`);
      return p;
    },
  };
}
