// The argument checks of nvFuser's python frontend for `fd.ops.slice` (python_direct ops.cpp,
// slice_fn), made before the op is recorded, in nvFuser's order and with its messages, so a
// definition nvFuser refuses (nvFuser's test_slice_error_checks) is refused here too:
//   1. strides given: as many as start_indices;
//   2. as many start_indices as the tensor has (non-reduction) dims;
//   3. as many end_indices as start_indices;
//   4. per dim: a constant start is >= 0; constant start and end have end >= start; the stride is
//      the constant 1 ("nvFuser Limitation").
// Invariant: only the frontend checks; @tsfuser/fusion-ir's slice keeps torch's normalization
// (negative indices, steps > 1) for the TorchScript import and the TypeScript builders that use it.
// A start or end known only at run time is not checked (nvFuser's isConstInt() guards) and is
// normalized as before.

import type { SizeOperand } from '@tsfuser/fusion-ir';
import { DefinitionError } from '../errors.js';

/** The operand's value when it is a constant integer (a literal or a constant scalar), else null. */
function constInt(v: SizeOperand): number | null {
  const c = typeof v === 'number' ? v : v.constNumber();
  return c !== null && Number.isInteger(c) ? c : null;
}

/** Throws nvFuser's RuntimeError text (as a DefinitionError) for a slice nvFuser's frontend refuses. */
export function checkSliceArguments(rank: number, starts: readonly SizeOperand[], ends: readonly SizeOperand[], strides: readonly SizeOperand[] | undefined): void {
  if (strides !== undefined && strides.length !== starts.length) {
    throw new DefinitionError(`Slice start_indices and strides don't match! Start Indices: ${starts.length} Strides: ${strides.length}`);
  }
  if (rank !== starts.length) {
    throw new DefinitionError(`Number of tensor dimensions does not match slice dimensions! (${rank} vs. ${starts.length})`);
  }
  if (starts.length !== ends.length) {
    throw new DefinitionError(`Slice indexing attribute dimensions don't match! Start Indices: ${starts.length} End Indices: ${ends.length}`);
  }
  starts.forEach((startOperand, d) => {
    const start = constInt(startOperand);
    const end = constInt(ends[d] as SizeOperand);
    if (start !== null && start < 0) {
      throw new DefinitionError(`Slice operation start_indices must be greater than or equal to 0. Start Indices: ${start}`);
    }
    if (start !== null && end !== null && end < start) {
      throw new DefinitionError(`Slice operation end_indices must be greater than or equal to start_indices. Start Indices: ${start} End Indices: ${end}`);
    }
    const stride = strides === undefined ? 1 : constInt(strides[d] as SizeOperand);
    if (stride !== 1) throw new DefinitionError('nvFuser Limitation: All slice operation strides must be of const size 1.');
  });
}
