/**
 * The console's rate history: every second the component totals are sampled, and the last 15
 * minutes are kept, so a page opened now draws its charts and labels from the first paint instead
 * of waiting two ticks of the throughput subscriptions.
 */
import type { MetricsRegistry } from '../../telemetry/registry.js';
import { RECEIVED_EVENTS, SENT_EVENTS, sampleMetrics } from '../metrics.js';

/** Milliseconds between samples. */
export const HISTORY_STEP_MS = 1000;
/** Samples kept: 15 minutes at one a second. */
export const HISTORY_SAMPLES = 900;

/** One component's totals at one instant; `outputs` holds sent events per output (`_default` included). */
interface Totals {
  readonly received: number;
  readonly sent: number;
  readonly errors: number;
  /** Buffer fill 0..1, null for a component without a buffer. */
  readonly fill: number | null;
  readonly outputs: ReadonlyMap<string, number>;
}

interface Sample {
  /** Milliseconds since the epoch. */
  readonly at: number;
  readonly totals: ReadonlyMap<string, Totals>;
}

/** One component's series, one value per `timestamps` entry (null before it existed). */
export interface ComponentSeries {
  readonly componentId: string;
  /** Events per second received, sent, and errors per second. */
  readonly received: (number | null)[];
  readonly sent: (number | null)[];
  readonly errors: (number | null)[];
  readonly fill: (number | null)[];
  /** Events per second of each output. */
  readonly outputs: { outputId: string; sent: (number | null)[] }[];
  /** The totals now: the page shows them before its first tick. */
  readonly receivedTotal: number;
  readonly sentTotal: number;
  readonly errorsTotal: number;
}

/** The history as the API returns it: the timestamps (seconds since the epoch) and every component's series. */
export interface History {
  readonly timestamps: number[];
  readonly components: ComponentSeries[];
}

/** A ring of samples; `record` adds one, `read` turns consecutive totals into rates. */
export class RateHistory {
  private readonly samples: Sample[] = [];
  private next = 0;

  constructor(private readonly capacity = HISTORY_SAMPLES) {}

  /** Samples the registry; `fills` gives each buffered component's fill. */
  record(registry: MetricsRegistry, at: number, fills: ReadonlyMap<string, number>): void {
    const totals = new Map<string, Totals>();
    for (const [id, c] of sampleMetrics(registry, new Date(at)).components) {
      totals.set(id, { received: c.values.get(RECEIVED_EVENTS) ?? 0, sent: c.values.get(SENT_EVENTS) ?? 0, errors: c.errors ?? 0, fill: fills.get(id) ?? null, outputs: c.byOutput });
    }
    const sample = { at, totals };
    if (this.samples.length < this.capacity) this.samples.push(sample);
    else this.samples[this.next] = sample;
    this.next = (this.next + 1) % this.capacity;
  }

  /** Rates between consecutive samples, oldest first; a counter that went down (a restart) reads 0. */
  read(): History {
    const ordered = this.samples.length < this.capacity ? this.samples : [...this.samples.slice(this.next), ...this.samples.slice(0, this.next)];
    const timestamps = ordered.slice(1).map((s) => s.at / 1000);
    const ids = new Set<string>();
    for (const s of ordered) for (const id of s.totals.keys()) ids.add(id);
    const rate = (a: number | undefined, b: number | undefined, ms: number) => (a === undefined || b === undefined ? null : Math.max(0, b - a) / (ms / 1000));
    const components: ComponentSeries[] = [];
    for (const id of ids) {
      const received: (number | null)[] = [], sent: (number | null)[] = [], errors: (number | null)[] = [], fill: (number | null)[] = [];
      const outputIds = new Set<string>();
      for (const s of ordered) for (const o of s.totals.get(id)?.outputs.keys() ?? []) outputIds.add(o);
      const outputs = [...outputIds].map((outputId) => ({ outputId, sent: [] as (number | null)[] }));
      for (let i = 1; i < ordered.length; i++) {
        const a = ordered[i - 1]!, b = ordered[i]!;
        const ta = a.totals.get(id), tb = b.totals.get(id);
        const ms = b.at - a.at || HISTORY_STEP_MS;
        received.push(rate(ta?.received, tb?.received, ms));
        sent.push(rate(ta?.sent, tb?.sent, ms));
        errors.push(rate(ta?.errors, tb?.errors, ms));
        fill.push(tb?.fill ?? null);
        for (const o of outputs) o.sent.push(rate(ta?.outputs.get(o.outputId), tb?.outputs.get(o.outputId), ms));
      }
      const last = ordered.at(-1)?.totals.get(id);
      components.push({ componentId: id, received, sent, errors, fill, outputs, receivedTotal: last?.received ?? 0, sentTotal: last?.sent ?? 0, errorsTotal: last?.errors ?? 0 });
    }
    return { timestamps, components };
  }
}
