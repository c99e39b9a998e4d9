/** Option schemas both HEC sinks use (`siem_hec_metrics`, `logsvc_metrics`) beyond the shared option builders. */
import * as v from 'valibot';

/** A token sent as `Authorization: Splunk <token>`. */
export const hecToken = (description: string) => v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.description(description));
