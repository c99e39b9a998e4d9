/** The health check of the HTTP sinks: one request, never retried, bounded in time. */
import type { HttpService } from './service.js';

export interface HealthcheckRequest {
  readonly method: string;
  readonly url: string;
  readonly headers?: Record<string, string>;
  /** Statuses that mean healthy (default: exactly 200). */
  readonly ok?: (status: number) => boolean;
  readonly timeoutMs: number;
}

/** Rejects with a reason naming the URL and the status when the destination is not healthy. */
export async function httpHealthcheck(service: HttpService, req: HealthcheckRequest): Promise<void> {
  const res = await service.send({ method: req.method, url: req.url, headers: req.headers }, AbortSignal.timeout(req.timeoutMs));
  const ok = req.ok ?? ((s: number) => s === 200);
  if (!ok(res.status)) throw new Error(`health check ${req.method} ${req.url} answered ${res.status}${res.body ? `: ${res.body.slice(0, 200)}` : ''}`);
}
