// Checks that input dims the fusion treats as one dim have one size, before a backend runs that
// does not check them itself (the reference evaluator, a caller's Backend): the runtime's check
// (@tsfuser/runtime extent-groups.ts, the one implementation) as one InputMismatchError naming
// both inputs, instead of an evaluator error about an op's operand. The GPU backend declares
// `checksInputExtents`: its executor cache makes the same check once per new input layout and the
// backend reports it as the same InputMismatchError, so a cached GPU execute checks nothing here.
// The dim groups depend on the fusion alone: a finalized definition keeps them.
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
