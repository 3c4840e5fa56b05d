// Input dims the fusion treats as one dim must have one size. Two input dims are the same dim
// when the fusion's exact logical map joins them (producer → consumer pairs that keep extent
// and index, as the pointwise scheduler's ExactLogicalMap): `add(T0, T1)` with T0 [-1] and
// T1 [-1] needs equal sizes, though each input dim has a symbolic extent of its own (so binding
// the extents alone accepts [8, 8] + [4, 16] and launches kernels that read out of bounds). A
// symbolic dim given size 1 is no broadcast (nvFuser's rule: only dims declared 1 broadcast).
// The groups depend on the fusion alone (computed once); the check compares sizes per call.
// This is the one implementation: the executor cache checks with it on each new layout key, and
// tsfuser's frontend with it before choosing a backend.
// Invariant: `inputExtentMismatch` is null exactly when every group gets one size.

import { consumersOf, IdSets, logicalDomainPairs, type Fusion, type IterDomain } from '@tsfuser/fusion-ir';

/** Per fusion input: its printed name and, per logical (non-reduction) dim, its group or -1 (a broadcast dim, or a scalar input). */
export interface InputExtentGroups {
  readonly fusion: Fusion;
  readonly inputs: readonly { name: string; groups: readonly number[] }[];
  readonly groupCount: number;
}

/** Which input dim disagrees, and with which earlier one (`detail` says both). */
export interface InputExtentMismatch {
  input: number;
  detail: string;
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

/** The fusion's input dims grouped by its exact logical map (compute once per fusion). */
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

/** The first input dim whose size disagrees with its group's, or null; `sizesOf(i)` is input i's sizes (null: not a tensor). */
export function inputExtentMismatch(plan: InputExtentGroups, sizesOf: (input: number) => readonly number[] | null): InputExtentMismatch | null {
  if (plan.groupCount === 0) return null;
  // Per group: the first tensor input giving it a size (input index, dim, size).
  const firstInput = new Int32Array(plan.groupCount).fill(-1);
  const firstDim = new Int32Array(plan.groupCount);
  const firstSize = new Float64Array(plan.groupCount);
  for (let i = 0; i < plan.inputs.length; i += 1) {
    const { name, groups } = plan.inputs[i] as InputExtentGroups['inputs'][number];
    const sizes = groups.length === 0 ? null : sizesOf(i);
    if (sizes === null) continue;
    for (let dim = 0; dim < groups.length; dim += 1) {
      const group = groups[dim] as number;
      const size = sizes[dim];
      if (group < 0 || size === undefined) continue;
      const seenIn = firstInput[group] as number;
      if (seenIn < 0) {
        firstInput[group] = i;
        firstDim[group] = dim;
        firstSize[group] = size;
      } else if (seenIn !== i && firstSize[group] !== size) {
        const first = plan.inputs[seenIn]?.name ?? '?';
        return {
          input: i,
          detail: `${name} dim ${dim} has size ${size}, but input ${seenIn} (${first}) dim ${firstDim[group] as number}, the same dim of the fusion, has size ${firstSize[group] as number}`,
        };
      }
    }
  }
  return null;
}
