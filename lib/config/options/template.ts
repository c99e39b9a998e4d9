/**
 * The template option: a string with `{{ field.path }}` references and strftime items, rendered
 * per event. It is compiled at load, so a malformed one is a config error at its option path, and
 * the component's build step can compile it again without a failure path.
 */
import * as v from 'valibot';
import { TemplateError, compileTemplate } from '../../template.js';

/** Why `text` is not a template (the compiler's message, naming the template), or undefined when it compiles. */
export function templateProblem(text: string): string | undefined {
  try {
    compileTemplate(text);
    return undefined;
  } catch (err) {
    if (err instanceof TemplateError) return err.message;
    throw err; // not a template problem but a fault of the compiler: let it surface
  }
}

/** What a template option refuses besides a malformed template. */
export interface TemplateRules {
  /** Refuse the empty string ("must not be empty"): for names an empty rendering cannot stand for. */
  readonly nonEmpty?: boolean;
}

const compiles = v.rawCheck<string>(({ dataset, addIssue }) => {
  if (!dataset.typed) return;
  const problem = templateProblem(dataset.value);
  if (problem !== undefined) addIssue({ message: problem });
});

/** A template option, compiled at load; a malformed one is reported as `invalid template "…": <reason>`. */
export function templateSchema(description: string, rules: TemplateRules = {}) {
  // the empty template compiles (to ""), so an empty value gets one issue, never two
  return rules.nonEmpty
    ? v.pipe(v.string(), v.minLength(1, 'must not be empty'), compiles, v.description(description))
    : v.pipe(v.string(), compiles, v.description(description));
}
