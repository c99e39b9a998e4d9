/**
 * Collapsing metrics of one series within one batch (as Vector does): incremental values add
 * up (counters sum, sets unite, distribution samples join, histograms with the same buckets add),
 * an absolute value replaces the one before.
 */
import type { MetricKind, MetricValue } from '../../../lib/event.js';

/** `next` folded into `acc`; a fresh value, neither input is changed. */
export function mergeMetricValue(kind: MetricKind, acc: MetricValue, next: MetricValue): MetricValue {
  if (kind === 'absolute') return next;
  switch (acc.type) {
    case 'counter':
    case 'gauge':
      return next.type === acc.type ? { type: acc.type, value: acc.value + next.value } : next;
    case 'set':
      return next.type === 'set' ? { type: 'set', values: [...new Set([...acc.values, ...next.values])] } : next;
    case 'distribution':
      return next.type === 'distribution' ? { type: 'distribution', samples: acc.samples.concat(next.samples), statistic: next.statistic } : next;
    case 'aggregated_histogram': {
      if (next.type !== 'aggregated_histogram' || !sameBounds(acc.buckets, next.buckets)) return next;
      return {
        type: 'aggregated_histogram',
        buckets: acc.buckets.map((b, i) => ({ upper_limit: b.upper_limit, count: b.count + next.buckets[i]!.count })),
        count: acc.count + next.count,
        sum: acc.sum + next.sum,
      };
    }
    default:
      // summaries' quantiles cannot be added: the latest wins
      return next;
  }
}

const sameBounds = (a: readonly { upper_limit: number }[], b: readonly { upper_limit: number }[]) =>
  a.length === b.length && a.every((x, i) => x.upper_limit === b[i]!.upper_limit);
