// Checks that input dims the fusion treats as one dim have one size, before a backend runs: the
// runtime's check (@tsfuser/runtime extent-groups.ts: the exact logical map's dim groups, one
// implementation for the executor cache and this frontend) as one InputMismatchError naming
// both inputs, instead of an evaluator error about an op's operand. The dim groups depend on
// the fusion alone: a finalized definition keeps them, so a cached execute's host time does not
// rebuild the exact map.

import { inputExtentGroups, inputExtentMismatch, type InputExtentGroups } from '@tsfuser/runtime';
import { Tensor } from '@tsfuser/device';
import { InputMismatchError } from '../errors.js';

export { inputExtentGroups, type InputExtentGroups };

/** Throws an InputMismatchError when two tensor inputs give one fusion dim different sizes. */
export function checkInputExtents(plan: InputExtentGroups, inputs: readonly unknown[]): void {
  const mismatch = inputExtentMismatch(plan, (i) => {
    const t = inputs[i];
    return t instanceof Tensor ? t.sizes : null;
  });
  if (mismatch !== null) throw new InputMismatchError(mismatch.input, mismatch.detail);
}
