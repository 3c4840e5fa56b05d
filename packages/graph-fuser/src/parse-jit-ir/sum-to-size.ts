// Lowerings of aten::sum_to_size and the JIT's aten::_grad_sum_to_size (autodiff's reduction of a
// broadcast gradient back to an operand's size): leading dims the target lacks are summed away,
// dims the target has as 1 but the input does not are summed with keepdim; _grad_sum_to_size with
// size None is the identity. The size must be a compile-time constant (or profiled value).
// Invariant: the result has exactly the target's rank; a dim the input already has as broadcast
// (size 1) is never reduced.

import { set, sum, type TensorView } from '@tsfuser/fusion-ir';
import type { NodeArgs } from './args.js';
import type { OpTableSection } from './op-entry.js';
import { out } from './operands.js';
import type { JitVal } from './values.js';

/** x summed down to `size` (torch's sum_to semantics). */
function sumTo(args: NodeArgs, x: TensorView, size: readonly number[]): TensorView {
  const rank = x.rank();
  if (size.length > rank) return args.fail(`size of ${size.length} dims does not fit an input of rank ${rank}`);
  const lead = rank - size.length;
  const ids = x.domain.logicalNoReductions();
  const keep: number[] = [];
  size.forEach((s, i) => {
    const d = lead + i;
    if (s === 1 && ids[d]?.isBroadcast() !== true) keep.push(d);
  });
  let r = keep.length > 0 ? sum(x, keep, true) : x;
  if (lead > 0) r = sum(r, Array.from({ length: lead }, (_, i) => i), false);
  return r === x ? set(x) : r;
}

function lowerSumToSize(args: NodeArgs): JitVal[] {
  const x = args.tensor('self');
  const size = args.optionalIntList('size');
  return out(size === null ? set(x) : sumTo(args, x, size));
}

export const SUM_TO_SIZE_OPS: OpTableSection = {
  'aten::sum_to_size': {
    schemas: ['aten::sum_to_size(Tensor self, int[] size) -> Tensor'],
    constants: ['size'],
    lower: lowerSumToSize,
  },
  'aten::_grad_sum_to_size': {
    schemas: ['aten::_grad_sum_to_size(Tensor(a) self, int[]? size) -> Tensor(a)'],
    constants: ['size'],
    lower: lowerSumToSize,
  },
};
