/**
 * The classic consumer-group protocol of Kafka's group coordinator: Empty → PreparingRebalance (every
 * member must join again; those that do not within the rebalance timeout are dropped) →
 * CompletingRebalance (the leader received every member's subscription and sends the assignment
 * with SyncGroup) → Stable. Members that stop heartbeating for their session timeout are dropped,
 * which starts a rebalance, as a LeaveGroup does. Offsets are committed per group and checked
 * against the generation and member, so a member fenced by a rebalance cannot commit.
 */
import { randomUUID } from 'node:crypto';
import type { Struct } from './codec.js';
import { ERR } from './schemas.js';

type Reply = (response: Struct) => void;

interface Member {
  readonly id: string;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  protocols: Array<{ name: string; metadata: Buffer }>;
  instanceId: string | null;
  join: Reply | undefined;
  sync: Reply | undefined;
  assignment: Buffer;
  timer: NodeJS.Timeout | undefined;
}

type State = 'Empty' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable';

/** Committed offset of one partition. */
export interface Committed {
  readonly offset: number;
  readonly metadata: string | null;
}

/** A group's membership, for tests to look at. */
export interface GroupView {
  readonly state: State;
  readonly generation: number;
  readonly members: readonly string[];
}

const MIN_SESSION_MS = 1_000;
const MAX_SESSION_MS = 300_000;

class Group {
  state: State = 'Empty';
  generation = 0;
  protocolType: string | undefined;
  protocol: string | undefined;
  leader: string | undefined;
  readonly members = new Map<string, Member>();
  readonly pending = new Set<string>();
  readonly offsets = new Map<string, Committed>();
  private rebalanceTimer: NodeJS.Timeout | undefined;

  constructor(readonly id: string) {}

  join(req: Struct, version: number, clientId: string, reply: Reply): void {
    const session = req.session_timeout_ms as number;
    const protocols = req.protocols as Array<{ name: string; metadata: Buffer }>;
    const fail = (code: number, memberId = req.member_id as string) =>
      reply({ error_code: code, generation_id: -1, protocol_name: version >= 7 ? null : '', leader: '', member_id: memberId, members: [] });
    if (session < MIN_SESSION_MS || session > MAX_SESSION_MS) return fail(ERR.INVALID_SESSION_TIMEOUT);
    if (this.members.size > 0 && (req.protocol_type !== this.protocolType || !protocols.some((p) => [...this.members.values()].every((m) => m.protocols.some((q) => q.name === p.name)))))
      return fail(ERR.INCONSISTENT_GROUP_PROTOCOL);
    let memberId = req.member_id as string;
    if (memberId === '') {
      memberId = `${clientId}-${randomUUID()}`;
      // from v4 a new member first learns its id, then joins with it
      if (version >= 4) {
        this.pending.add(memberId);
        return fail(ERR.MEMBER_ID_REQUIRED, memberId);
      }
    } else if (!this.members.has(memberId) && !this.pending.delete(memberId)) return fail(ERR.UNKNOWN_MEMBER_ID);
    const member: Member = this.members.get(memberId) ?? { id: memberId, sessionTimeoutMs: session, rebalanceTimeoutMs: 0, protocols, instanceId: null, join: undefined, sync: undefined, assignment: Buffer.alloc(0), timer: undefined };
    member.sessionTimeoutMs = session;
    member.rebalanceTimeoutMs = version >= 1 ? (req.rebalance_timeout_ms as number) : session;
    member.protocols = protocols;
    member.instanceId = (req.group_instance_id as string | null | undefined) ?? null;
    member.join = (response) => reply({ ...response, protocol_type: this.protocolType ?? null });
    this.members.set(memberId, member);
    this.protocolType = req.protocol_type as string;
    this.touch(member);
    if (this.state !== 'PreparingRebalance') this.prepareRebalance();
    this.tryCompleteJoin();
  }

  sync(req: Struct, reply: Reply): void {
    const member = this.members.get(req.member_id as string);
    const fail = (code: number) => reply({ error_code: code, assignment: Buffer.alloc(0) });
    if (member === undefined) return fail(ERR.UNKNOWN_MEMBER_ID);
    if (req.generation_id !== this.generation) return fail(ERR.ILLEGAL_GENERATION);
    if ((req.protocol_type ?? this.protocolType) !== this.protocolType || (req.protocol_name ?? this.protocol) !== this.protocol) return fail(ERR.INCONSISTENT_GROUP_PROTOCOL);
    if (this.state === 'PreparingRebalance') return fail(ERR.REBALANCE_IN_PROGRESS);
    this.touch(member);
    const ok = (m: Member) => ({ error_code: 0, protocol_type: this.protocolType, protocol_name: this.protocol, assignment: m.assignment });
    if (this.state === 'Stable') return reply(ok(member));
    member.sync = reply;
    if (member.id !== this.leader) return;
    const given = new Map((req.assignments as Array<{ member_id: string; assignment: Buffer }>).map((a) => [a.member_id, a.assignment]));
    for (const m of this.members.values()) m.assignment = given.get(m.id) ?? Buffer.alloc(0);
    this.state = 'Stable';
    for (const m of this.members.values()) {
      const r = m.sync;
      m.sync = undefined;
      r?.(ok(m));
    }
  }

  heartbeat(req: Struct): number {
    const member = this.members.get(req.member_id as string);
    if (member === undefined) return ERR.UNKNOWN_MEMBER_ID;
    if (req.generation_id !== this.generation) return ERR.ILLEGAL_GENERATION;
    this.touch(member);
    return this.state === 'PreparingRebalance' ? ERR.REBALANCE_IN_PROGRESS : ERR.NONE;
  }

  leave(memberId: string): number {
    const member = this.members.get(memberId);
    if (member === undefined) return ERR.UNKNOWN_MEMBER_ID;
    this.remove(member);
    return ERR.NONE;
  }

  /** Checks that a commit comes from the current generation (or is a plain commit to a group with no members). */
  commitError(req: Struct, version: number): number {
    const generation = version >= 1 ? (req.generation_id as number) : -1;
    const memberId = version >= 1 ? (req.member_id as string) : '';
    if (generation < 0 && memberId === '') return this.members.size === 0 ? ERR.NONE : ERR.UNKNOWN_MEMBER_ID;
    const member = this.members.get(memberId);
    if (member === undefined) return ERR.UNKNOWN_MEMBER_ID;
    if (generation !== this.generation) return ERR.ILLEGAL_GENERATION;
    if (this.state === 'CompletingRebalance') return ERR.REBALANCE_IN_PROGRESS;
    this.touch(member);
    return ERR.NONE;
  }

  view(): GroupView {
    return { state: this.state, generation: this.generation, members: [...this.members.keys()] };
  }

  close(): void {
    clearTimeout(this.rebalanceTimer);
    for (const m of this.members.values()) clearTimeout(m.timer);
  }

  /** Restarts a member's session timer: it is dropped when nothing comes from it for its session timeout. */
  private touch(member: Member): void {
    clearTimeout(member.timer);
    member.timer = setTimeout(() => {
      if (this.members.get(member.id) === member) this.remove(member);
    }, member.sessionTimeoutMs);
    member.timer.unref();
  }

  private remove(member: Member): void {
    clearTimeout(member.timer);
    this.members.delete(member.id);
    member.join?.({ error_code: ERR.UNKNOWN_MEMBER_ID, generation_id: -1, leader: '', member_id: member.id, members: [] });
    member.sync?.({ error_code: ERR.UNKNOWN_MEMBER_ID, assignment: Buffer.alloc(0) });
    if (this.leader === member.id) this.leader = undefined;
    if (this.members.size === 0) {
      clearTimeout(this.rebalanceTimer);
      this.state = 'Empty';
      this.generation++;
      this.protocol = undefined;
      return;
    }
    if (this.state !== 'PreparingRebalance') this.prepareRebalance();
    this.tryCompleteJoin();
  }

  private prepareRebalance(): void {
    this.state = 'PreparingRebalance';
    // members waiting for an assignment learn that a new round started
    for (const m of this.members.values()) {
      const r = m.sync;
      m.sync = undefined;
      r?.({ error_code: ERR.REBALANCE_IN_PROGRESS, assignment: Buffer.alloc(0) });
    }
    clearTimeout(this.rebalanceTimer);
    const timeout = Math.max(...[...this.members.values()].map((m) => m.rebalanceTimeoutMs));
    this.rebalanceTimer = setTimeout(() => {
      // members that did not join again in time are out of the group
      for (const m of [...this.members.values()]) if (m.join === undefined) this.remove(m);
      this.tryCompleteJoin();
    }, timeout);
    this.rebalanceTimer.unref();
  }

  private tryCompleteJoin(): void {
    if (this.state !== 'PreparingRebalance' || this.members.size === 0) return;
    const members = [...this.members.values()];
    if (members.some((m) => m.join === undefined)) return;
    clearTimeout(this.rebalanceTimer);
    this.generation++;
    if (this.leader === undefined || !this.members.has(this.leader)) this.leader = members[0]!.id;
    const leader = this.members.get(this.leader)!;
    this.protocol = leader.protocols.find((p) => members.every((m) => m.protocols.some((q) => q.name === p.name)))?.name;
    this.state = 'CompletingRebalance';
    for (const m of members) {
      const r = m.join!;
      m.join = undefined;
      this.touch(m);
      r({
        error_code: 0,
        generation_id: this.generation,
        protocol_name: this.protocol,
        leader: this.leader,
        skip_assignment: false,
        member_id: m.id,
        members:
          m.id === this.leader
            ? members.map((x) => ({ member_id: x.id, group_instance_id: x.instanceId, metadata: x.protocols.find((p) => p.name === this.protocol)!.metadata }))
            : [],
      });
    }
  }
}

/** Every group of the broker. */
export class GroupCoordinator {
  private readonly groups = new Map<string, Group>();

  group(id: string): Group {
    let g = this.groups.get(id);
    if (g === undefined) this.groups.set(id, (g = new Group(id)));
    return g;
  }

  find(id: string): Group | undefined {
    return this.groups.get(id);
  }

  view(id: string): GroupView | undefined {
    return this.groups.get(id)?.view();
  }

  committed(id: string): ReadonlyMap<string, Committed> {
    return this.groups.get(id)?.offsets ?? new Map();
  }

  close(): void {
    for (const g of this.groups.values()) g.close();
  }
}
