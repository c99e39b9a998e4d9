/**
 * `weir tap`: prints sampled events flowing out of (or into) components of a running weir, through
 * the management API's `outputEventsByComponentIdPatterns` subscription, as Vector's `vector tap`.
 */
import { EMPTY, Subject, defer, filter, finalize, map, mergeMap, retry, takeUntil, timer } from 'rxjs';
import { yaml } from '../../lib/yaml.js';
import { ApiError, healthy, subscribeAll } from './api/client.js';

export interface TapFlags {
  url: string;
  outputsOf: string[];
  inputsOf: string[];
  limit: number;
  interval: number;
  format: 'json' | 'yaml' | 'logfmt';
  meta: boolean;
  quiet: boolean;
  durationMs?: number;
  reconnect: boolean;
}

const TAP = `subscription OutputEventsByComponentIdPatternsSubscription(
  $outputsPatterns: [String!]!, $inputsPatterns: [String!], $limit: Int!, $interval: Int!, $encoding: EventEncodingType!) {
  outputEventsByComponentIdPatterns(outputsPatterns: $outputsPatterns, inputsPatterns: $inputsPatterns, limit: $limit, interval: $interval) {
    __typename
    ... on Log { componentId componentType componentKind message timestamp string(encoding: $encoding) }
    ... on Metric { componentId componentType componentKind timestamp string(encoding: $encoding) }
    ... on Trace { componentId componentType componentKind string(encoding: $encoding) }
    ... on EventNotification { message }
  }
}`;

interface TapItem {
  __typename: string;
  componentId?: string;
  componentType?: string;
  componentKind?: string;
  string?: string;
  message?: string;
}

/** The text printed for one event: the server's encoding, or with `--meta` the event inside its component's details. */
export function formatTapEvent(item: TapItem, flags: Pick<TapFlags, 'format' | 'meta'>): string {
  const text = item.string ?? '';
  // YAML documents in a row need their separator to be read back
  if (!flags.meta) return flags.format === 'yaml' && !text.startsWith('---') ? '---\n' + text.trimEnd() : text;
  const meta = { component_id: item.componentId, component_kind: item.componentKind, component_type: item.componentType };
  switch (flags.format) {
    case 'json':
      return JSON.stringify({ ...meta, event: JSON.parse(text) as unknown });
    case 'yaml':
      return '---\n' + yaml().stringify({ ...meta, event: yaml().parse(text) as unknown }).trimEnd();
    case 'logfmt':
      return `component_id=${item.componentId} component_kind=${item.componentKind} component_type=${item.componentType} ${text}`;
  }
}

/** Runs the tap until interrupted or `--duration-ms` has passed; resolves with the exit code. */
export async function tapCommand(patterns: string[], flags: TapFlags): Promise<number> {
  if (!(await healthy(flags.url))) {
    process.stderr.write(`[tap] the API is unreachable at ${flags.url}: is weir running with api.enabled = true?\n`);
    return 69; // EX_UNAVAILABLE, as Vector exits
  }
  const outputs = [...flags.outputsOf, ...patterns];
  const variables = {
    outputsPatterns: outputs.length === 0 && flags.inputsOf.length === 0 ? ['*'] : outputs,
    inputsPatterns: flags.inputsOf.length ? flags.inputsOf : null,
    limit: flags.limit,
    interval: flags.interval,
    encoding: flags.format.toUpperCase(),
  };
  const stop = new Subject<void>();
  const onSignal = () => stop.next();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let failure: Error | undefined;
  await new Promise<void>((resolve) => {
    defer(() => subscribeAll(flags.url, [{ document: TAP, variables }]))
      .pipe(
        mergeMap(({ data }) => (data.outputEventsByComponentIdPatterns as TapItem[]) ?? EMPTY),
        // a reconnect needs a fresh socket; the API's own errors (a bad pattern) are final
        retry({ delay: (err) => (flags.reconnect && !(err instanceof ApiError && !/cannot reach/.test(err.message)) ? timer(1000) : timerError(err)) }),
        filter((item) => item.__typename !== 'EventNotification' || !flags.quiet),
        map((item) => (item.__typename === 'EventNotification' ? { err: true, text: item.message ?? '' } : { err: false, text: formatTapEvent(item, flags) })),
        takeUntil(stop),
        flags.durationMs !== undefined ? takeUntil(timer(flags.durationMs)) : (s) => s,
        finalize(() => resolve()),
      )
      .subscribe({
        next: ({ err, text }) => (err ? process.stderr : process.stdout).write(text + '\n'),
        error: (err: Error) => (failure = err),
      });
  });
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  if (failure) {
    process.stderr.write(`[tap] ${failure.message}\n`);
    return 1;
  }
  return 0;
}

const timerError = (err: unknown) =>
  defer(() => {
    throw err;
  });
