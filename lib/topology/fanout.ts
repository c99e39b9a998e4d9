/**
 * Fan-out of one component output to its consumers (as in Vector): each consumer gets its own
 * copy of a batch (the last one gets the original), so a consumer mutating its events never
 * affects another. Everything here runs synchronously inside the producer's `next()`.
 */
import { type EventBatch, batchSize, settleAll } from '../event.js';
import type { Counter } from '../telemetry/registry.js';

/** The input side of a transform or sink. */
export interface Port {
  /** `bytes` is the batch's estimated size, computed once by the producer. */
  push(batch: EventBatch, bytes: number): void;
  /** An upstream output finished (its source completed); the port completes after its last one. */
  upstreamEnded(from: Fanout): void;
}

export function cloneBatch(batch: EventBatch): EventBatch {
  const out: EventBatch = new Array(batch.length);
  for (let i = 0; i < batch.length; i++) out[i] = batch[i]!.clone();
  return out;
}

/** Sees every batch an output emits, before its consumers; must neither keep nor mutate it. */
export type TapObserver = (batch: EventBatch) => void;

export class Fanout {
  private consumers: Port[] = [];
  private taps: TapObserver[] = [];
  ended = false;
  constructor(
    readonly id: string,
    private readonly sentEvents: Counter,
    private readonly sentBytes: Counter,
  ) {}

  get consumerCount(): number {
    return this.consumers.length;
  }
  attach(p: Port): void {
    if (!this.consumers.includes(p)) this.consumers = [...this.consumers, p];
  }
  detach(p: Port): void {
    this.consumers = this.consumers.filter((c) => c !== p);
  }
  has(p: Port): boolean {
    return this.consumers.includes(p);
  }
  /** Adds an observer (the management API's tap); returns its removal. */
  addTap(t: TapObserver): () => void {
    this.taps = [...this.taps, t];
    return () => {
      this.taps = this.taps.filter((x) => x !== t);
    };
  }

  /** `bytes` saves walking the batch again when the caller already sized it. */
  emit(batch: EventBatch, bytes: number = batchSize(batch)): void {
    const n = batch.length;
    if (n === 0) return;
    this.sentEvents.add(n);
    this.sentBytes.add(bytes);
    const taps = this.taps;
    for (let i = 0; i < taps.length; i++) taps[i]!(batch);
    const cs = this.consumers;
    if (cs.length === 0) {
      // an output nobody consumes drops its events, as in Vector ("has no consumers" warning)
      settleAll(batch, 'delivered');
      return;
    }
    for (let i = 0; i < cs.length - 1; i++) cs[i]!.push(cloneBatch(batch), bytes);
    cs[cs.length - 1]!.push(batch, bytes);
  }

  end(): void {
    this.ended = true;
    for (const c of this.consumers) c.upstreamEnded(this);
  }
}
