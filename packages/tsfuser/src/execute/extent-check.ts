// Checks that input dims the fusion treats as one dim have one size. Two input dims are the same
// dim when the fusion's exact logical map joins them (producer→consumer pairs that keep extent
// and index, as the pointwise scheduler's ExactLogicalMap); e.g. `add(T0, T1)` with T0 [-1] and
// T1 [-1] needs T0's and T1's sizes to agree. A disagreement is one InputMismatchError naming both
// inputs, instead of an evaluator error about an op's operand. A symbolic dim given size 1 is
// not a broadcast (nvFuser's rule: only dims declared 1 broadcast), so 1 against 5 is refused.

import { consumersOf, IdSets, logicalDomainPairs, type Fusion, type IterDomain } from '@tsfuser/fusion-ir';
import { Tensor } from '@tsfuser/device';
import { InputMismatchError } from '../errors.js';

interface Seen {
  input: number;
  name: string;
  dim: number;
  size: number;
}

function exactSets(fusion: Fusion): IdSets {
  const sets = new IdSets();
  for (const p of fusion.allTvs()) {
    for (const c of consumersOf(p)) {
      for (const pair of logicalDomainPairs(p, c)) if (pair.exact) sets.union(pair.producer, pair.consumer);
    }
  }
  return sets;
}

/** Throws an InputMismatchError when two tensor inputs give one fusion dim different sizes. */
export function checkInputExtents(fusion: Fusion, inputs: readonly unknown[]): void {
  const tensors = fusion.inputs.flatMap((v, i) => (v.kind === 'tensorView' && inputs[i] instanceof Tensor ? [{ tv: v, t: inputs[i], i }] : []));
  if (tensors.length < 2) return;
  const sets = exactSets(fusion);
  const seen = new Map<IterDomain, Seen>();
  for (const { tv, t, i } of tensors) {
    tv.domain.logicalNoReductions().forEach((id, dim) => {
      const size = t.sizes[dim];
      if (size === undefined || id.isBroadcast()) return;
      const root = sets.find(id);
      const first = seen.get(root);
      if (first === undefined) {
        seen.set(root, { input: i, name: `T${tv.name}`, dim, size });
        return;
      }
      if (first.size !== size && first.input !== i) {
        throw new InputMismatchError(
          i,
          `T${tv.name} dim ${dim} has size ${size}, but input ${first.input} (${first.name}) dim ${first.dim}, the same dim of the fusion, has size ${first.size}`,
        );
      }
    });
  }
}
