// Checks that input dims the fusion treats as one dim have one size. Two input dims are the same
// dim when the fusion's exact logical map joins them (producer→consumer pairs that keep extent
// and index, as the pointwise scheduler's ExactLogicalMap); e.g. `add(T0, T1)` with T0 [-1] and
// T1 [-1] needs T0's and T1's sizes to agree. A disagreement is one InputMismatchError naming both
// inputs, instead of an evaluator error about an op's operand. A symbolic dim given size 1 is
// not a broadcast (nvFuser's rule: only dims declared 1 broadcast), so 1 against 5 is refused.
//
// The dim groups depend on the fusion alone: `inputExtentGroups` computes them once (a finalized
// definition keeps them), and `checkInputExtents` compares sizes per call — a cached execute's
// host time must not rebuild the exact map.

import { consumersOf, IdSets, logicalDomainPairs, type Fusion, type IterDomain } from '@tsfuser/fusion-ir';
import { Tensor } from '@tsfuser/device';
import { InputMismatchError } from '../errors.js';

/** Per fusion input: its printed name and, per logical (non-reduction) dim, its group or -1 (a broadcast dim, or a scalar input). */
export interface InputExtentGroups {
  readonly fusion: Fusion;
  readonly inputs: readonly { name: string; groups: readonly number[] }[];
  readonly groupCount: number;
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

/** The fusion's input dims grouped by its exact logical map (computed once per fusion). */
export function inputExtentGroups(fusion: Fusion): InputExtentGroups {
  const sets = exactSets(fusion);
  const numbers = new Map<IterDomain, number>();
  const inputs = fusion.inputs.map((v) => {
    if (v.kind !== 'tensorView') return { name: String(v.name), groups: [] };
    const groups = v.domain.logicalNoReductions().map((id) => {
      if (id.isBroadcast()) return -1;
      const root = sets.find(id);
      let group = numbers.get(root);
      if (group === undefined) {
        group = numbers.size;
        numbers.set(root, group);
      }
      return group;
    });
    return { name: `T${v.name}`, groups };
  });
  return { fusion, inputs, groupCount: numbers.size };
}

/** Throws an InputMismatchError when two tensor inputs give one fusion dim different sizes. */
export function checkInputExtents(plan: InputExtentGroups, inputs: readonly unknown[]): void {
  // Per group: the first tensor input giving it a size (input index, dim, size).
  let firstInput: Int32Array | null = null;
  let firstDim: Int32Array | null = null;
  let firstSize: Float64Array | null = null;
  plan.inputs.forEach(({ name, groups }, i) => {
    const t = inputs[i];
    if (groups.length === 0 || !(t instanceof Tensor)) return;
    firstInput ??= new Int32Array(plan.groupCount).fill(-1);
    firstDim ??= new Int32Array(plan.groupCount);
    firstSize ??= new Float64Array(plan.groupCount);
    for (let dim = 0; dim < groups.length; dim += 1) {
      const group = groups[dim] as number;
      const size = t.sizes[dim];
      if (group < 0 || size === undefined) continue;
      const seenIn = firstInput[group] as number;
      if (seenIn < 0) {
        firstInput[group] = i;
        firstDim[group] = dim;
        firstSize[group] = size;
      } else if (seenIn !== i && firstSize[group] !== size) {
        const first = plan.inputs[seenIn]?.name ?? '?';
        throw new InputMismatchError(
          i,
          `${name} dim ${dim} has size ${size}, but input ${seenIn} (${first}) dim ${firstDim[group] as number}, the same dim of the fusion, has size ${firstSize[group] as number}`,
        );
      }
    }
  });
}
