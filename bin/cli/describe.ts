/** `weir list <type>`: the reference of one component type (options from its schema, an example), in a terminal. */
import { componentExamples } from '../../connectors/examples.js';
import { components } from '../../connectors/index.js';
import { componentText, optionRows } from '../../lib/config/reference.js';
import { suggest } from '../../lib/config/suggest.js';

/**
 * Prints every component of the type (`socket` is a source and a sink) or of the Vector name
 * (`loki`); returns the exit code: 0, or 1 for a type the catalog does not have.
 */
export function describeCommand(type: string, format: string, out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): number {
  const defs = components.filter((c) => c.type === type).concat(components.filter((c) => c.aliases?.includes(type)));
  if (defs.length === 0) {
    const known = [...new Set(components.flatMap((c) => [c.type, ...(c.aliases ?? [])]))];
    const near = suggest(type, known);
    err.write(`error: unknown component type "${type}"${near ? `; did you mean "${near}"?` : ''} (weir list shows them all)\n`);
    return 1;
  }
  const example = (kind: string, t: string) => componentExamples[`${kind}.${t}`];
  if (format === 'json') {
    const rows = defs.map((d) => ({ kind: d.kind, type: d.type, summary: d.summary, aliases: d.aliases ?? [], options: optionRows(d), example: example(d.kind, d.type) ?? null }));
    out.write(JSON.stringify(rows) + '\n');
    return 0;
  }
  out.write(defs.map((d) => componentText(d, example(d.kind, d.type))).join('\n'));
  return 0;
}
