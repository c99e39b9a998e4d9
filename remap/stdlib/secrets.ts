/**
 * get_secret, set_secret, remove_secret: secrets travel in the event's metadata beside `%`, never in
 * the event or in `%` itself (Vector's sinks read API keys from them). A run sees its own copy of the
 * event's secrets, attached to its context; the program hands the copy back only when the run succeeds.
 */
import type { Value } from '../../lib/value.js';
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import type { Ctx } from '../runtime.js';

/** An event's secrets: name → secret text. */
export type Secrets = Map<string, string>;

const stores = new WeakMap<Ctx, Secrets>();

/** Gives a run its working copy of the event's secrets (an empty set when the event has none). */
export function attachSecrets(ctx: Ctx, secrets: ReadonlyMap<string, string> | undefined): void {
  stores.set(ctx, new Map(secrets));
}

/** The run's secrets after the program (what {@link attachSecrets} gave, as changed). */
export const secretsOf = (ctx: Ctx): Secrets => stores.get(ctx) ?? new Map();

/** Functions that read or write secrets: a program calling none of them runs without a store. */
export const SECRET_FUNCTIONS: ReadonlySet<string> = new Set(['get_secret', 'set_secret', 'remove_secret']);

function store(ctx: Ctx): Secrets {
  let s = stores.get(ctx);
  if (!s) stores.set(ctx, (s = new Map()));
  return s;
}

/** The functions of this file, for the stdlib list. */
export const secretFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'get_secret',
    description: 'The secret of that name in the event metadata, or null.',
    params: [{ name: 'key', kind: K.BYTES, required: true }],
    returns: K.k(K.BYTES | K.NULL),
    impure: true,
    call: ([key], env) => store(env.ctx).get(key as string) ?? null,
    examples: [{ source: 'set_secret("datadog_api_key", "secret value"); get_secret("datadog_api_key")', result: '"secret value"' }],
  }),
  defineFunction({
    name: 'set_secret',
    description: 'Sets a secret in the event metadata.',
    params: [
      { name: 'key', kind: K.BYTES, required: true },
      { name: 'secret', kind: K.BYTES, required: true },
    ],
    returns: K.K_NULL,
    impure: true,
    call: ([key, secret], env) => {
      store(env.ctx).set(key as string, secret as string);
      return null as Value;
    },
  }),
  defineFunction({
    name: 'remove_secret',
    description: 'Removes a secret from the event metadata.',
    params: [{ name: 'key', kind: K.BYTES, required: true }],
    returns: K.K_NULL,
    impure: true,
    call: ([key], env) => {
      store(env.ctx).delete(key as string);
      return null as Value;
    },
  }),
];
