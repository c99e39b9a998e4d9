/** The component pages (docs/components/<type>.md): which exist, and their generated parts. */
import { components } from '../connectors/index.js';
import { componentExamples } from '../connectors/examples.js';
import type { ComponentDef } from '../lib/component.js';
import { GENERATED_END, GENERATED_START, generatedPart } from '../lib/config/reference.js';

/** The folder of the component pages. */
export const pagesDir = new URL('../docs/components/', import.meta.url);

/** A catalog component's example pipeline, if it has one. */
export const exampleOf = (def: ComponentDef): string | undefined => componentExamples[`${def.kind}.${def.type}`];

/** One page per type token, with every component of that type (a type may be a source and a sink). */
export function componentPages(): { type: string; file: URL; generated: string }[] {
  const types = [...new Set(components.map((c) => c.type))].sort();
  const order = { source: 0, transform: 1, sink: 2 } as const;
  return types.map((type) => {
    const defs = components.filter((c) => c.type === type).sort((a, b) => order[a.kind] - order[b.kind]);
    return { type, file: new URL(`${type}.md`, pagesDir), generated: generatedPart(defs, exampleOf) };
  });
}

/** The generated part of a page's text, markers included, or undefined when it has none. */
export function generatedOf(text: string): string | undefined {
  const start = text.indexOf(GENERATED_START);
  const end = text.indexOf(GENERATED_END, start);
  return start < 0 || end < 0 ? undefined : text.slice(start, end + GENERATED_END.length) + '\n';
}

/** A page with its generated part replaced (or appended, for a page without one); the hand-written part stays. */
export function withGenerated(text: string, generated: string): string {
  const current = generatedOf(text);
  if (current === undefined) return `${text.trimEnd()}\n\n${generated}`;
  const start = text.indexOf(GENERATED_START);
  return text.slice(0, start) + generated + text.slice(start + current.length).replace(/^\n+/, '');
}
