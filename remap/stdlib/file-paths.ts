/** File path functions: basename, dirname, split_path. */
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';

/** The functions of this file, for the stdlib list. */
export const filePathFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'basename',
    description: 'Last component of a path.',
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.k(K.BYTES | K.NULL),
    call: ([v]) => {
      const parts = (v as string).split('/').filter(Boolean);
      return parts.length ? parts[parts.length - 1]! : null;
    },
  }),
  defineFunction({
    name: 'dirname',
    description: 'Directory part of a path.',
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    fallible: true,
    returns: K.K_BYTES,
    call: ([v]) => {
      const s = v as string;
      const abs = s.startsWith('/');
      const parts = s.split('/').filter(Boolean);
      parts.pop();
      if (parts.length === 0) return abs ? '/' : '.';
      return (abs ? '/' : '') + parts.join('/');
    },
  }),
  defineFunction({
    name: 'split_path',
    description: 'Components of a path.',
    params: [{ name: 'value', kind: K.BYTES, required: true }],
    returns: K.arrayOf(K.K_BYTES),
    call: ([v]) => {
      const s = v as string;
      const parts = s.split('/').filter(Boolean);
      return s.startsWith('/') ? ['/', ...parts] : parts;
    },
  }),
];
