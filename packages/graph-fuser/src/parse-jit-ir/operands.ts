// Operand preparation shared by pointwise lowerings: TorchScript broadcasts implicitly
// (numpy rules, right-aligned), Fusion IR only explicitly, so lower-rank tensors get leading
// broadcast dims here; and runtime integral scalars meeting floating tensors are cast to Double
// first, as nvFuser's parser did (the seed's `d116 = (double)(i17)` for add's int alpha).

import { broadcast, cast, categoryOf, type Operand, type Scalar, type TensorView } from '@tsfuser/fusion-ir';
import type { JitVal } from './values.js';

export function isTensor(o: Operand): o is TensorView {
  return typeof o === 'object' && o.kind === 'tensorView';
}

function isRuntimeScalar(o: Operand): o is Scalar {
  return typeof o === 'object' && o.kind === 'scalar' && !o.isConst();
}

/** Gives lower-rank tensors leading broadcast dims so every tensor operand has the same rank. */
export function broadcastOperands(operands: readonly Operand[]): Operand[] {
  const rank = Math.max(0, ...operands.map((o) => (isTensor(o) ? o.rank() : 0)));
  return operands.map((o) => {
    if (!isTensor(o) || o.rank() === 0 || o.rank() === rank) return o;
    const flags = Array.from({ length: rank }, (_, d) => d < rank - o.rank());
    return broadcast(o, flags);
  });
}

/** Casts runtime int/bool scalars to Double when a floating tensor is among the operands. */
export function promoteScalarOperands(operands: readonly Operand[]): Operand[] {
  const floating = operands.some((o) => isTensor(o) && categoryOf(o.dtype) === 2);
  if (!floating) return [...operands];
  return operands.map((o) => (isRuntimeScalar(o) && categoryOf(o.dtype) !== 2 ? cast(o, 'Double') : o));
}

/** Both steps: what every pointwise lowering does with its operands. */
export function prepareOperands(operands: readonly Operand[]): Operand[] {
  return broadcastOperands(promoteScalarOperands(operands));
}

/** One lowered output. */
export function out(v: TensorView | Scalar): JitVal[] {
  return [v.kind === 'tensorView' ? { kind: 'tensor', tv: v } : { kind: 'scalar', scalar: v }];
}

/** True when `o` is the constant 1 (an alpha that needs no multiply). */
export function isOne(o: Operand): boolean {
  if (typeof o === 'number') return o === 1;
  if (typeof o === 'bigint') return o === 1n;
  if (typeof o === 'boolean') return false;
  return o.kind === 'scalar' && o.isConst() && o.constNumber() === 1;
}
