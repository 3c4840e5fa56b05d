// The type an op computes in, exactly as the reference evaluator does: casts and predicate
// unary ops (isnan, signbit …) compute in the input's dtype, comparisons and logical binary ops
// in the promoted operand dtype, everything else in the output dtype (Half and BFloat16 are
// then computed in float by the emitter and rounded on store).

import { isComplexType, isPredicateBinaryOp, isPredicateUnaryOp, resultType, type DataType, type Expr } from '@tsfuser/fusion-ir';
import { LoweringError } from '../errors.js';
import type { ComputeOp } from '../kernel-ir/nodes.js';

export function computeOpOf(e: Expr): ComputeOp | null {
  switch (e.kind) {
    case 'UnaryOp':
      return { family: 'unary', op: e.op };
    case 'BinaryOp':
      return { family: 'binary', op: e.op };
    case 'TernaryOp':
      return { family: 'ternary', op: e.op };
    default:
      return null;
  }
}

export function computeDtypeOf(e: Expr): DataType {
  const out = e.outputs[0];
  if (out === undefined || out.kind === 'iterDomain') throw new LoweringError(`${e.kind} has no value output`);
  switch (e.kind) {
    case 'UnaryOp': {
      const input = e.inputs[0];
      if (input === undefined || input.kind === 'iterDomain') throw new LoweringError('unary op without a value input');
      // Complex inputs compute as complex whatever the output (abs, real, imag give reals).
      return isPredicateUnaryOp(e.op) || e.op === 'cast' || isComplexType(input.dtype) ? input.dtype : out.dtype;
    }
    case 'BinaryOp': {
      if (!isPredicateBinaryOp(e.op)) return out.dtype;
      const operands = e.inputs.map((v) => {
        if (v.kind === 'iterDomain') throw new LoweringError('binary op with an IterDomain operand');
        return { dtype: v.dtype, isTensor: v.kind === 'tensorView' };
      });
      return resultType(operands);
    }
    default:
      return out.dtype;
  }
}
