// Core pass `kernel-signature` — kernel signature. In: the fusion's inputs and outputs. Out: the kernel parameters
// in order (inputs, then outputs; tensors as Tensor<T, rank> structs, scalars by value), the
// kernel-side name of every symbolic extent (`i2` read once from `T0.logical_size[2]`; a derived
// extent of a segment input, e.g. a reshape's size, as `e3`) and of every scalar input.
// Invariant: every symbolic extent of an input or output tensor is named.

import { type Scalar } from '@tsfuser/fusion-ir';
import { LoweringError } from '../errors.js';
import { iconst, iceilDiv, iadd, imul, idiv, imod, isym, type IndexExpr } from '../kernel-ir/index-expr.js';
import type { IndexLocal, KernelParam } from '../kernel-ir/nodes.js';
import type { LoweringContext } from './context.js';

export function buildSignature(ctx: LoweringContext): { params: KernelParam[]; indexLocals: IndexLocal[] } {
  const params: KernelParam[] = [];
  const indexLocals: IndexLocal[] = [];
  const bind = (s: Scalar, value: string): void => {
    if (s.constNumber() !== null || ctx.scalarNames.has(s)) return;
    if (s.definition !== null) {
      // A derived extent (a segment input that a reshape or slice produced): named as a whole
      // (its expression may use ops extentExpr cannot emit, e.g. a slice's clamping); other
      // Scalars with the same text find it by text.
      const name = `e${indexLocals.length}`;
      ctx.scalarNames.set(s, name);
      ctx.extentNamesByText.set(s.symbolicName(), name);
      indexLocals.push({ name, value });
      return;
    }
    const name = s.symbolicName();
    ctx.scalarNames.set(s, name);
    indexLocals.push({ name, value });
  };
  const addTensors = (vals: typeof ctx.fusion.inputs, role: 'input' | 'output'): void => {
    vals.forEach((v, position) => {
      if (v.kind === 'tensorView') {
        const name = ctx.tensorName(v);
        const logical = v.domain.logicalNoReductions();
        params.push({ kind: 'tensor', name, dtype: v.dtype, rank: logical.length, role, position });
        logical.forEach((id, d) => {
          if (id.isBroadcast()) {
            if (id.expandedExtent !== null) bind(id.expandedExtent, `${name}.logical_size[${d}]`);
          } else {
            bind(id.extent, `${name}.logical_size[${d}]`);
          }
        });
      } else if (v.kind === 'scalar' && role === 'input') {
        const name = v.symbolicName();
        ctx.scalarNames.set(v, name);
        params.push({ kind: 'scalar', name, dtype: v.dtype, role: 'input', position });
      } else {
        throw new LoweringError(`${role} ${position} is not a tensor or scalar input`);
      }
    });
  };
  addTensors(ctx.fusion.inputs, 'input');
  addTensors(ctx.fusion.outputs, 'output');
  return { params, indexLocals };
}

/** Index expression of an integer extent: constant, named symbol, or arithmetic of those. */
export function extentExpr(ctx: LoweringContext, s: Scalar): IndexExpr {
  const c = s.constNumber();
  if (c !== null) return iconst(c);
  const name = ctx.scalarNames.get(s) ?? (s.definition !== null ? ctx.extentNamesByText.get(s.symbolicName()) : undefined);
  if (name !== undefined) return isym(name);
  const def = s.definition;
  if (def !== null && def.kind === 'BinaryOp') {
    const a = extentExpr(ctx, def.lhs() as Scalar);
    const b = extentExpr(ctx, def.rhs() as Scalar);
    switch (def.op) {
      case 'ceilDiv':
        return iceilDiv(a, b);
      case 'mul':
        return imul(a, b);
      case 'add':
        return iadd(a, b);
      case 'div':
        return idiv(a, b);
      case 'mod':
        return imod(a, b);
      default:
        break;
    }
  }
  throw new LoweringError(`extent ${s.symbolicName()} is neither constant nor derived from a tensor argument's sizes`);
}

