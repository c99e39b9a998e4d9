/**
 * The `index`, `source` and `sourcetype` members of a HEC envelope (as Vector writes them): each a
 * template rendered per event. A template that does not render leaves its member out and the event
 * is still sent (Vector's behaviour); the failure is logged and counted.
 */
import type { ComponentContext } from '../../../lib/component.js';
import type { Event } from '../../../lib/event.js';
import { type Template, compileTemplate } from '../../../lib/template.js';

/** The rendered members; undefined = left out. */
export interface HecMetadata {
  index: string | undefined;
  source: string | undefined;
  sourcetype: string | undefined;
}

/** The three templates as configured (any may be unset). */
export interface HecMetadataTemplates {
  readonly index?: string | undefined;
  readonly source?: string | undefined;
  readonly sourcetype?: string | undefined;
}

/** Renders the members of one event. */
export type MetadataRenderer = (e: Event) => HecMetadata;

/**
 * Compiles the templates once. `tz` applies to their strftime items. Throws TemplateError for a
 * malformed template (the schemas check them first, so a config never gets here with one).
 */
export function metadataRenderer(t: HecMetadataTemplates, tz: string | undefined, ctx: Pick<ComponentContext, 'telemetry' | 'log'>): MetadataRenderer {
  const failures = ctx.telemetry.counter('component_errors_total', { error_type: 'template_failed', stage: 'processing' });
  const compile = (text: string | undefined): Template | undefined => (text === undefined ? undefined : compileTemplate(text));
  const index = compile(t.index);
  const source = compile(t.source);
  const sourcetype = compile(t.sourcetype);
  const render = (tpl: Template | undefined, member: string, e: Event): string | undefined => {
    if (!tpl) return undefined;
    const out = tpl.render(e, tz);
    if (out === undefined) {
      failures.add();
      ctx.log.error('Failed to render template; the member is left out and the event is sent.', { member, template: tpl.text, missing_fields: tpl.missingFields(e).join(', ') });
    }
    return out;
  };
  return (e) => ({ index: render(index, 'index', e), source: render(source, 'source', e), sourcetype: render(sourcetype, 'sourcetype', e) });
}

/**
 * Tag names the templates refer to (`{{ tags.env }}` or `{{ env }}` both name `env`): the metrics
 * sink leaves them out of `fields`, as Vector does, since they already shaped the envelope.
 */
export function templatedTagKeys(t: HecMetadataTemplates): Set<string> {
  const keys = new Set<string>();
  for (const text of [t.index, t.source, t.sourcetype]) {
    if (text === undefined) continue;
    for (const f of compileTemplate(text).fields) keys.add(f.startsWith('tags.') ? f.slice(5) : f);
  }
  return keys;
}
