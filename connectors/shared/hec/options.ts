/** Option schemas both HEC sinks use (`siem_hec_metrics`, `logsvc_metrics`). */
import * as v from 'valibot';
import { templateProblem } from './metadata.js';

/** A template option (`index`, `source`, `sourcetype`, `event_type`): checked to compile at load. */
export const hecTemplate = (description: string) =>
  v.pipe(
    v.string(),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const problem = templateProblem(dataset.value);
      if (problem) addIssue({ message: problem });
    }),
    v.description(description),
  );

/** A token sent as `Authorization: Splunk <token>`. */
export const hecToken = (description: string) => v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.description(description));

/** An http or https URL. */
export const httpUrl = (description: string) =>
  v.pipe(v.string(), v.url('must be a URL'), v.check((u) => /^https?:/i.test(u), 'must be an http or https URL'), v.description(description));
