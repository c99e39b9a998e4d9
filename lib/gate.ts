/**
 * Credit links between producers and the bounded buffers they feed.
 *
 * RxJS pushes and has no demand signal; a {@link Gate} is that signal. A buffer closes its gate
 * when full (`when_full = block`); a source checks `isOpen` after each emission and stops reading
 * its socket or polling until `open$` says otherwise.
 */
import {
  BehaviorSubject,
  type Observable,
  type ObservableInput,
  defer,
  distinctUntilChanged,
  filter,
  first,
  from,
  of,
  repeat,
  switchMap,
  take,
} from 'rxjs';

export interface Gate {
  /** Hot-path check after next(). */
  readonly isOpen: boolean;
  /** Transitions; wait on these, never poll. Replays the current state to new subscribers. */
  readonly open$: Observable<boolean>;
}

const NOW = of(undefined);

/** Emits once when the gate is (or becomes) open. */
export const whenOpen = (g: Gate): Observable<unknown> => (g.isOpen ? NOW : g.open$.pipe(first(Boolean)));

/** Promise form of {@link whenOpen}, for pull loops. */
export function waitOpen(g: Gate): Promise<void> | undefined {
  if (g.isOpen) return undefined;
  return new Promise((resolve) => {
    const sub = g.open$.pipe(first(Boolean)).subscribe(() => {
      resolve();
      queueMicrotask(() => sub?.unsubscribe());
    });
  });
}

/** A gate a component opens and closes itself. */
export class GateController implements Gate {
  private readonly state$: BehaviorSubject<boolean>;
  readonly open$: Observable<boolean>;
  constructor(initial = true) {
    this.state$ = new BehaviorSubject(initial);
    this.open$ = this.state$.pipe(distinctUntilChanged());
  }
  get isOpen(): boolean {
    return this.state$.value;
  }
  set(open: boolean): void {
    if (this.state$.value !== open) this.state$.next(open);
  }
  open(): void {
    this.set(true);
  }
  close(): void {
    this.set(false);
  }
}

/** Always open: for producers nothing downstream can block (drop_newest, no consumers). */
export const OPEN_GATE: Gate = { isOpen: true, open$: of(true) };

/**
 * Open while every member is open. Members change at run time (reload adds and removes sinks),
 * so the source holding this gate keeps one object for its whole life.
 */
export class AllGate implements Gate {
  private members: readonly Gate[] = [];
  private readonly ctl = new GateController(true);
  private subs: { unsubscribe(): void }[] = [];
  readonly open$ = this.ctl.open$;
  get isOpen(): boolean {
    return this.ctl.isOpen;
  }
  setMembers(members: readonly Gate[]): void {
    for (const s of this.subs) s.unsubscribe();
    this.members = members;
    this.subs = members.map((g) => g.open$.subscribe(() => this.recompute()));
    this.recompute();
  }
  private recompute(): void {
    let open = true;
    for (const g of this.members) if (!g.isOpen) open = false;
    this.ctl.set(open);
  }
}

/** Gate from an observable of states (tests, adapters). */
export function gateFrom(states$: Observable<boolean>, initial = true): Gate & { dispose(): void } {
  const ctl = new GateController(initial);
  const sub = states$.subscribe((s) => ctl.set(s));
  return { get isOpen() { return ctl.isOpen; }, open$: ctl.open$, dispose: () => sub.unsubscribe() };
}

/**
 * Repeats a read while the gate is open; the next pull waits for credit (after `pace`, when given:
 * a timer between reads). `undefined` = empty poll, not emitted.
 */
export function pullWhile<T>(read: () => ObservableInput<T | undefined>, gate: Gate, pace?: () => ObservableInput<unknown>): Observable<T> {
  const credit = pace === undefined ? () => whenOpen(gate) : () => from(pace()).pipe(take(1), switchMap(() => whenOpen(gate)));
  return defer(read).pipe(
    repeat({ delay: credit }),
    filter((x): x is T => x !== undefined),
  );
}
