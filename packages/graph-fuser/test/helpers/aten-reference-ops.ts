// The ops of the test-side aten reference (see aten-reference.ts), dispatched by node kind with
// arguments read positionally as PyTorch's schemas order them, and runAtenReference(graph, inputs).
import { constantValue, type Graph, type Node } from '@tsfuser/jit-ir';
import type { DataType } from '@tsfuser/fusion-ir';
import {
  BITWISE, LOGICAL, UNARY_BOOL, COMPARE, DTYPE_CODES, Interp, UNARY_FLOAT, UNARY_KEEP, accOf, floatOf, geluGrad, geluValue, isScalar, nanMax, nanMin,
  normalizeGroups, refScalar, sigmoid, softmaxRef, variance, type RefValue,
} from './aten-reference.js';
import {
  expandRef, isFloating, isRef, map, numel, permuteRef, reduce, reductionGroups, reshapeRef, resultType, roundTo, type RefTensor,
} from './ref-tensor.js';

type Out = RefValue[];

function dtypeCode(it: Interp, n: Node, i: number): DataType | null {
  if (i >= n.inputs.length || it.isNone(n, i)) return null;
  const d = DTYPE_CODES[it.num(n, i)];
  if (d === undefined) throw new Error(`reference: dtype code ${it.num(n, i)}`);
  return d;
}

function withAlpha(it: Interp, n: Node, sign: number, reversed: boolean): Out {
  const alpha = n.inputs.length > 2 ? it.num(n, 2) : 1;
  const dtype = resultType([it.promo(n, 0), it.promo(n, 1)]);
  const [a, b] = [it.operand(n, 0), it.operand(n, 1)];
  return [reversed ? map([a, b], dtype, (x, y) => y - alpha * x) : map([a, b], dtype, (x, y) => x + sign * alpha * y)];
}

function divide(it: Interp, n: Node): Out {
  const mode = n.inputs.length > 2 ? it.str(n, 2) : null;
  const rt = resultType([it.promo(n, 0), it.promo(n, 1)]);
  const [a, b] = [it.operand(n, 0), it.operand(n, 1)];
  if (mode === null) return [map([a, b], floatOf(rt), (x, y) => x / y)];
  if (mode === 'trunc') return [map([a, b], rt, (x, y) => Math.trunc(x / y))];
  return [map([a, b], rt, (x, y) => Math.floor(x / y))];
}

function clampRef(it: Interp, n: Node, lo: number | null, hi: number | null): Out {
  const promos = [it.promo(n, 0), ...[lo, hi].flatMap((i) => (i === null || it.isNone(n, i) ? [] : [it.promo(n, i)]))];
  const dtype = resultType(promos);
  const bound = (i: number | null, dflt: number) => (i === null || it.isNone(n, i) ? dflt : it.operand(n, i));
  return [map([it.operand(n, 0), bound(lo, -Infinity), bound(hi, Infinity)], dtype, (x, l, h) => nanMin(nanMax(x, l), h))];
}

function cast(t: RefTensor, dtype: DataType): RefTensor {
  return map([t], dtype, (x) => x);
}

function toRef(it: Interp, n: Node): Out {
  const x = it.tensor(n, 0);
  const second = n.input(1).type.kind;
  if (second === 'Tensor') return [cast(x, it.tensor(n, 1).dtype)];
  const at = second === 'Device' ? 2 : 1;
  const d = dtypeCode(it, n, at);
  return [d === null ? x : cast(x, d)];
}

function reduceDims(it: Interp, n: Node, i: number): number[] {
  return i < n.inputs.length ? it.ints(n, i) : [];
}

function sumRef(it: Interp, n: Node, mean: boolean): Out {
  const allDims = n.inputs.length === 2;
  const x0 = it.tensor(n, 0);
  const d = dtypeCode(it, n, allDims ? 1 : 3);
  const x = d === null ? x0 : cast(x0, d);
  const dtype = mean ? x.dtype : isFloating(x.dtype) ? x.dtype : 'Int';
  const dims = allDims ? [] : reduceDims(it, n, 1);
  const keep = allDims ? false : it.num(n, 2) !== 0;
  return [reduce(x, dims, keep, dtype, (v) => v.reduce((a, b) => a + b, 0) / (mean ? v.length : 1))];
}

function varStd(it: Interp, n: Node, sqrt: boolean): Out {
  const x = it.tensor(n, 0);
  let dims: number[] = [];
  let correction = 1;
  let keep = false;
  if (n.inputs.length === 2) correction = it.num(n, 1) !== 0 ? 1 : 0;
  else {
    dims = reduceDims(it, n, 1);
    const c = n.input(2).type.kind;
    if (c === 'Bool') correction = it.num(n, 2) !== 0 ? 1 : 0;
    else correction = it.isNone(n, 2) ? 1 : it.num(n, 2);
    keep = it.num(n, 3) !== 0;
  }
  return [reduce(x, dims, keep, x.dtype, (v) => (sqrt ? Math.sqrt(variance(v, correction)) : variance(v, correction)))];
}

function softmaxOp(it: Interp, n: Node, log: boolean, underscore: boolean): Out {
  let x = it.tensor(n, 0);
  if (underscore && it.num(n, 2) !== 0) x = cast(x, 'Float');
  const d = underscore ? null : dtypeCode(it, n, 2);
  if (d !== null) x = cast(x, d);
  return [softmaxRef(x, it.num(n, 1), x.dtype, log)];
}

function softmaxBackward(it: Interp, n: Node): Out {
  const g = it.tensor(n, 0);
  const y = it.tensor(n, 1);
  const dim = it.num(n, 2);
  const dtype = dtypeCode(it, n, 3) ?? g.dtype;
  const { groups } = reductionGroups(y, [dim < 0 ? dim + y.shape.length : dim]);
  const data = new Float64Array(y.data.length);
  for (const grp of groups) {
    const s = grp.reduce((acc, i) => acc + (g.data[i] as number) * (y.data[i] as number), 0);
    for (const i of grp) data[i] = roundTo(dtype, (y.data[i] as number) * ((g.data[i] as number) - s));
  }
  return [{ dtype, shape: y.shape, data }];
}

function layerNormRef(it: Interp, n: Node, native: boolean): Out {
  const x = it.tensor(n, 0);
  const k = it.ints(n, 1).length;
  const rank = x.shape.length;
  const inner = numel(x.shape.slice(rank - k));
  const w = it.optTensor(n, 2);
  const b = it.optTensor(n, 3);
  const eps = it.num(n, 4);
  const { keptShape, groups } = reductionGroups(x, Array.from({ length: k }, (_, i) => rank - k + i));
  const { out, mean, invstd } = normalizeGroups(x, groups, eps);
  const data = out.map((v, i) => roundTo(x.dtype, v * (w?.data[i % inner] ?? 1) + (b?.data[i % inner] ?? 0)));
  const y: RefTensor = { dtype: x.dtype, shape: x.shape, data };
  if (!native) return [y];
  const acc = accOf(x.dtype);
  return [y, { dtype: acc, shape: keptShape, data: Float64Array.from(mean, (v) => roundTo(acc, v)) }, { dtype: acc, shape: keptShape, data: Float64Array.from(invstd, (v) => roundTo(acc, v)) }];
}

function batchNormRef(it: Interp, n: Node, outputs: number): Out {
  const x = it.tensor(n, 0);
  const [w, b, rm, rv] = [it.optTensor(n, 1), it.optTensor(n, 2), it.optTensor(n, 3), it.optTensor(n, 4)];
  const training = it.num(n, 5) !== 0;
  const momentum = it.num(n, 6);
  const eps = it.num(n, 7);
  const dims = x.shape.map((_, d) => d).filter((d) => d !== 1);
  const { groups } = reductionGroups(x, dims);
  const stats = training ? normalizeGroups(x, groups, eps) : normalizeGroups(x, groups, eps, [...(rm?.data ?? [])], [...(rv?.data ?? [])]);
  const channels = x.shape[1] as number;
  const perChannel = numel(x.shape.slice(2));
  const data = stats.out.map((v, i) => {
    const c = Math.floor(i / perChannel) % channels;
    return roundTo(x.dtype, v * (w?.data[c] ?? 1) + (b?.data[c] ?? 0));
  });
  if (training && rm !== null && rv !== null) {
    const unbiased = groups.map((g) => variance(g.map((i) => x.data[i] as number), 1));
    it.markUpdated(n.input(3), { dtype: rm.dtype, shape: rm.shape, data: rm.data.map((v, c) => roundTo(rm.dtype, (1 - momentum) * v + momentum * (stats.mean[c] as number))) });
    it.markUpdated(n.input(4), { dtype: rv.dtype, shape: rv.shape, data: rv.data.map((v, c) => roundTo(rv.dtype, (1 - momentum) * v + momentum * (unbiased[c] as number))) });
  }
  const acc = accOf(x.dtype);
  const other: RefValue = { kind: 'other' };
  const stat = (v: number[]): RefValue => (training ? { dtype: acc, shape: [channels], data: Float64Array.from(v, (e) => roundTo(acc, e)) } : other);
  const all: RefValue[] = [{ dtype: x.dtype, shape: x.shape, data }, stat(stats.mean), stat(stats.invstd), other, other];
  return all.slice(0, outputs);
}

function maskOf(it: Interp, n: Node, i: number): boolean[] {
  const v = it.arg(n, i);
  if (isRef(v) || v.kind !== 'list') throw new Error('reference: output_mask is not a list');
  return v.items.map((x) => isScalar(x) && x.value !== 0);
}

function tensorOf(dtype: DataType, shape: readonly number[], values: ArrayLike<number>): RefTensor {
  return { dtype, shape: [...shape], data: Float64Array.from(values, (v) => roundTo(dtype, v)) };
}

function layerNormBackwardRef(it: Interp, n: Node): Out {
  const [dy, x] = [it.tensor(n, 0), it.tensor(n, 1)];
  const k = it.ints(n, 2).length;
  const [mean, rstd] = [it.tensor(n, 3), it.tensor(n, 4)];
  const [w, b] = [it.optTensor(n, 5), it.optTensor(n, 6)];
  const mask = maskOf(it, n, 7);
  const rank = x.shape.length;
  const innerShape = x.shape.slice(rank - k);
  const inner = numel(innerShape);
  const { groups } = reductionGroups(x, Array.from({ length: k }, (_, i) => rank - k + i));
  const gi = new Float64Array(x.data.length);
  const gw = new Float64Array(inner);
  const gb = new Float64Array(inner);
  groups.forEach((grp, g) => {
    const [m, r] = [mean.data[g] as number, rstd.data[g] as number];
    const xhat = grp.map((i) => ((x.data[i] as number) - m) * r);
    const gv = grp.map((i) => (dy.data[i] as number) * (w?.data[i % inner] ?? 1));
    const mg = gv.reduce((a, v) => a + v, 0) / grp.length;
    const mgx = gv.reduce((a, v, j) => a + v * (xhat[j] as number), 0) / grp.length;
    grp.forEach((i, j) => {
      gi[i] = r * ((gv[j] as number) - mg - (xhat[j] as number) * mgx);
      gw[i % inner] = (gw[i % inner] as number) + (dy.data[i] as number) * (xhat[j] as number);
      gb[i % inner] = (gb[i % inner] as number) + (dy.data[i] as number);
    });
  });
  const other: RefValue = { kind: 'other' };
  return [
    mask[0] === true ? tensorOf(x.dtype, x.shape, gi) : other,
    mask[1] === true && w !== null ? tensorOf(w.dtype, innerShape, gw) : other,
    mask[2] === true && b !== null ? tensorOf(b.dtype, innerShape, gb) : other,
  ];
}

function batchNormBackwardRef(it: Interp, n: Node): Out {
  const [dy, x] = [it.tensor(n, 0), it.tensor(n, 1)];
  const [w, rm, rv, sm, si] = [2, 3, 4, 5, 6].map((i) => it.optTensor(n, i));
  const train = it.num(n, 7) !== 0;
  const eps = it.num(n, 8);
  const mask = maskOf(it, n, 9);
  const channels = x.shape[1] as number;
  const { groups } = reductionGroups(x, x.shape.map((_, d) => d).filter((d) => d !== 1));
  const gi = new Float64Array(x.data.length);
  const gw = new Float64Array(channels);
  const gb = new Float64Array(channels);
  groups.forEach((grp, c) => {
    const m = (train ? sm : rm)?.data[c] as number;
    const invstd = train ? (si?.data[c] as number) : 1 / Math.sqrt((rv?.data[c] as number) + eps);
    const scale = invstd * (w?.data[c] ?? 1);
    const xhat = grp.map((i) => ((x.data[i] as number) - m) * invstd);
    const sumDy = grp.reduce((a, i) => a + (dy.data[i] as number), 0);
    const sumDyXhat = grp.reduce((a, i, j) => a + (dy.data[i] as number) * (xhat[j] as number), 0);
    const count = grp.length;
    grp.forEach((i, j) => {
      const d = dy.data[i] as number;
      gi[i] = train ? (d - sumDy / count - (xhat[j] as number) * (sumDyXhat / count)) * scale : d * scale;
    });
    gw[c] = sumDyXhat;
    gb[c] = sumDy;
  });
  const other: RefValue = { kind: 'other' };
  const pd = w?.dtype ?? x.dtype;
  return [
    mask[0] === true ? tensorOf(x.dtype, x.shape, gi) : other,
    mask[1] === true && w !== null ? tensorOf(pd, [channels], gw) : other,
    mask[2] === true ? tensorOf(pd, [channels], gb) : other,
  ];
}

function squeezeRef(it: Interp, n: Node): Out {
  const x = it.tensor(n, 0);
  const rank = x.shape.length;
  const dims = n.inputs.length > 1 ? it.ints(n, 1).map((d) => (d < 0 ? d + rank : d)) : x.shape.map((_, d) => d);
  return [{ ...x, shape: x.shape.filter((s, d) => !(s === 1 && dims.includes(d))) }];
}

function flattenRef(it: Interp, n: Node): Out {
  const x = it.tensor(n, 0);
  const rank = x.shape.length;
  const s = ((it.num(n, 1) % rank) + rank) % rank;
  const e = ((it.num(n, 2) % rank) + rank) % rank;
  return [reshapeRef(x, [...x.shape.slice(0, s), numel(x.shape.slice(s, e + 1)), ...x.shape.slice(e + 1)])];
}

function constantRef(n: Node): Out {
  const type = n.output().type;
  const a = n.attribute('value');
  if (type.kind === 'Tensor') {
    const value = a?.kind === 't' && a.value.kind === 'scalar' ? a.value.value : a?.kind === 'i' || a?.kind === 'f' ? Number(a.value) : NaN;
    const dtype: DataType = type.scalarType === 'Long' ? 'Int' : type.scalarType === 'Float' ? 'Float' : type.scalarType === 'Int' ? 'Int32' : 'Double';
    return [{ dtype, shape: [], data: Float64Array.of(value) }];
  }
  const c = constantValue(n);
  switch (c?.kind) {
    case 'int':
      return [refScalar('int', Number(c.value))];
    case 'float':
      return [refScalar('float', c.value)];
    case 'bool':
      return [refScalar('bool', c.value ? 1 : 0)];
    case 'str':
      return [{ kind: 'str', value: c.value }];
    case 'none':
      return [{ kind: 'none' }];
    case 'intList':
      return [{ kind: 'list', items: c.value.map((v) => refScalar('int', Number(v))) }];
    default:
      return [{ kind: 'other' }];
  }
}

function evalNode(it: Interp, n: Node): Out {
  const name = n.kind.slice(n.kind.indexOf('::') + 2);
  const floatUnary = UNARY_FLOAT[name];
  if (n.kind.startsWith('aten::') && floatUnary !== undefined && n.inputs.length === 1) {
    const x = it.tensor(n, 0);
    return [map([x], floatOf(x.dtype), floatUnary)];
  }
  const keepUnary = UNARY_KEEP[name];
  if (n.kind.startsWith('aten::') && keepUnary !== undefined) return [map([it.tensor(n, 0)], it.tensor(n, 0).dtype, keepUnary)];
  const isBool = UNARY_BOOL[name];
  if (n.kind.startsWith('aten::') && isBool !== undefined) return [map([it.tensor(n, 0)], 'Bool', (x) => (isBool(x) ? 1 : 0))];
  const logical = LOGICAL[name];
  if (n.kind.startsWith('aten::') && logical !== undefined) return [map([it.operand(n, 0), it.operand(n, 1)], 'Bool', (a, b) => (logical(a !== 0, b !== 0) ? 1 : 0))];
  const bitwise = BITWISE[name];
  if (n.kind.startsWith('aten::') && bitwise !== undefined) {
    const dtype = resultType([it.promo(n, 0), it.promo(n, 1)]);
    return [map([it.operand(n, 0), it.operand(n, 1)], dtype, dtype === 'Bool' ? (a, b) => bitwise(a, b) & 1 : bitwise)];
  }
  const cmp = COMPARE[name];
  if (n.kind.startsWith('aten::') && cmp !== undefined) return [map([it.operand(n, 0), it.operand(n, 1)], 'Bool', (a, b) => (cmp(a, b) ? 1 : 0))];
  const bin = (fn: (a: number, b: number) => number, dtype = resultType([it.promo(n, 0), it.promo(n, 1)])): Out => [map([it.operand(n, 0), it.operand(n, 1)], dtype, fn)];
  switch (n.kind) {
    case 'prim::Constant':
      return constantRef(n);
    case 'prim::ListConstruct':
      return [{ kind: 'list', items: n.inputs.map((v) => it.get(v)) }];
    case 'prim::profile':
    case 'prim::profile_ivalue':
      return n.inputs.map((v) => it.get(v));
    case 'aten::add':
      return withAlpha(it, n, 1, false);
    case 'aten::sub':
      return withAlpha(it, n, -1, false);
    case 'aten::rsub':
      return withAlpha(it, n, -1, true);
    case 'aten::mul':
      return bin((a, b) => a * b);
    case 'aten::div':
      return divide(it, n);
    case 'aten::true_divide':
      return [map([it.operand(n, 0), it.operand(n, 1)], floatOf(resultType([it.promo(n, 0), it.promo(n, 1)])), (a, b) => a / b)];
    case 'aten::fmod':
      return bin((a, b) => a % b);
    case 'aten::remainder':
      return bin((a, b) => { const r = a % b; return r !== 0 && (r < 0) !== (b < 0) ? r + b : r; });
    case 'aten::atan2':
      return bin(Math.atan2, floatOf(resultType([it.promo(n, 0), it.promo(n, 1)])));
    case 'aten::bitwise_not': {
      const x = it.tensor(n, 0);
      return [map([x], x.dtype, x.dtype === 'Bool' ? (v) => (v === 0 ? 1 : 0) : (v) => ~v)];
    }
    case 'aten::amin':
      return [reduce(it.tensor(n, 0), reduceDims(it, n, 1), it.num(n, 2) !== 0, it.tensor(n, 0).dtype, (v) => v.reduce(nanMin, Infinity))];
    case 'aten::reshape_as':
    case 'aten::view_as':
      return [reshapeRef(it.tensor(n, 0), it.tensor(n, 1).shape)];
    case 'aten::pow':
      return bin((a, b) => a ** b);
    case 'aten::addcmul': {
      const value = n.inputs.length > 3 ? it.num(n, 3) : 1;
      const dtype = resultType([it.promo(n, 0), it.promo(n, 1), it.promo(n, 2)]);
      return [map([it.operand(n, 0), it.operand(n, 1), it.operand(n, 2)], dtype, (t, a, b) => t + value * a * b)];
    }
    case 'aten::lerp': {
      const dtype = resultType([it.promo(n, 0), it.promo(n, 1)]);
      return [map([it.operand(n, 0), it.operand(n, 1), it.operand(n, 2)], dtype, (a, b, w) => a + w * (b - a))];
    }
    case 'prim::NumToTensor': {
      const v = it.arg(n, 0);
      if (!isScalar(v)) throw new Error('reference: NumToTensor of a non-number');
      const dtype: DataType = v.kind === 'int' ? 'Int' : v.kind === 'float' ? 'Double' : 'Bool';
      return [{ dtype, shape: [], data: Float64Array.of(v.value) }];
    }
    case 'prim::ListUnpack': {
      const v = it.arg(n, 0);
      if (isRef(v) || v.kind !== 'list') throw new Error('reference: ListUnpack of a non-list');
      return v.items;
    }
    case 'aten::maximum':
      return bin(nanMax);
    case 'aten::minimum':
      return bin(nanMin);
    case 'aten::where':
      return [map([it.operand(n, 0), it.operand(n, 1), it.operand(n, 2)], resultType([it.promo(n, 1), it.promo(n, 2)]), (c, a, b) => (c !== 0 ? a : b))];
    case 'aten::clamp':
    case 'aten::hardtanh':
      return clampRef(it, n, 1, 2);
    case 'aten::clamp_min':
      return clampRef(it, n, 1, null);
    case 'aten::clamp_max':
      return clampRef(it, n, null, 1);
    case 'aten::threshold':
      return [map([it.tensor(n, 0), it.num(n, 1), it.num(n, 2)], it.tensor(n, 0).dtype, (x, t, v) => (x > t ? x : v))];
    case 'aten::threshold_backward':
      return [map([it.tensor(n, 0), it.tensor(n, 1), it.num(n, 2)], it.tensor(n, 0).dtype, (g, x, t) => (x <= t ? 0 : g))];
    case 'aten::leaky_relu':
      return [map([it.tensor(n, 0), it.num(n, 1)], it.tensor(n, 0).dtype, (x, s) => (x > 0 ? x : x * s))];
    case 'aten::gelu':
      return [map([it.tensor(n, 0)], floatOf(it.tensor(n, 0).dtype), (x) => geluValue(x, it.str(n, 1) === 'tanh'))];
    case 'aten::gelu_backward':
      return [map([it.tensor(n, 0), it.tensor(n, 1)], it.tensor(n, 0).dtype, (g, x) => g * geluGrad(x, it.str(n, 2) === 'tanh'))];
    case 'aten::silu_backward':
      return [map([it.tensor(n, 0), it.tensor(n, 1)], it.tensor(n, 0).dtype, (g, x) => g * sigmoid(x) * (1 + x * (1 - sigmoid(x))))];
    case 'aten::sigmoid_backward':
      return [map([it.tensor(n, 0), it.tensor(n, 1)], it.tensor(n, 0).dtype, (g, y) => g * y * (1 - y))];
    case 'aten::tanh_backward':
      return [map([it.tensor(n, 0), it.tensor(n, 1)], it.tensor(n, 0).dtype, (g, y) => g * (1 - y * y))];
    case 'aten::dropout':
      if (it.num(n, 2) !== 0) throw new Error('reference: training dropout');
      return [it.tensor(n, 0)];
    case 'aten::to':
      return toRef(it, n);
    case 'aten::type_as':
      return [cast(it.tensor(n, 0), it.tensor(n, 1).dtype)];
    case 'aten::sum':
      return sumRef(it, n, false);
    case 'aten::mean':
      return sumRef(it, n, true);
    case 'aten::cumsum': {
      const x = it.tensor(n, 0);
      const rank = x.shape.length;
      const dim = it.num(n, 1);
      const dtype = dtypeCode(it, n, 2) ?? (isFloating(x.dtype) ? x.dtype : 'Int');
      const { groups } = reductionGroups(x, [dim < 0 ? dim + rank : dim]);
      const data = new Float64Array(x.data.length);
      for (const grp of groups) {
        let s = 0;
        for (const i of grp) {
          s += x.data[i] as number;
          data[i] = roundTo(dtype, s);
        }
      }
      return [{ dtype, shape: x.shape, data }];
    }
    case 'aten::amax':
      return [reduce(it.tensor(n, 0), reduceDims(it, n, 1), it.num(n, 2) !== 0, it.tensor(n, 0).dtype, (v) => v.reduce(nanMax, -Infinity))];
    case 'aten::var':
      return varStd(it, n, false);
    case 'aten::std':
      return varStd(it, n, true);
    case 'aten::softmax':
      return softmaxOp(it, n, false, false);
    case 'aten::log_softmax':
      return softmaxOp(it, n, true, false);
    case 'aten::_softmax':
      return softmaxOp(it, n, false, true);
    case 'aten::_log_softmax':
      return softmaxOp(it, n, true, true);
    case 'aten::_softmax_backward_data':
      return softmaxBackward(it, n);
    case 'aten::_log_softmax_backward_data': {
      const [g, y] = [it.tensor(n, 0), it.tensor(n, 1)];
      const dim = it.num(n, 2);
      const dtype = dtypeCode(it, n, 3) ?? g.dtype;
      const { groups } = reductionGroups(y, [dim < 0 ? dim + y.shape.length : dim]);
      const data = new Float64Array(y.data.length);
      for (const grp of groups) {
        const s = grp.reduce((acc, i) => acc + (g.data[i] as number), 0);
        for (const i of grp) data[i] = roundTo(dtype, (g.data[i] as number) - Math.exp(y.data[i] as number) * s);
      }
      return [{ dtype, shape: y.shape, data }];
    }
    case 'aten::native_layer_norm_backward':
      return layerNormBackwardRef(it, n);
    case 'aten::native_batch_norm_backward':
      return batchNormBackwardRef(it, n);
    case 'aten::layer_norm':
      return layerNormRef(it, n, false);
    case 'aten::native_layer_norm':
      return layerNormRef(it, n, true);
    case 'aten::batch_norm':
      return batchNormRef(it, n, 1);
    case 'aten::native_batch_norm':
      return batchNormRef(it, n, 3);
    case 'aten::_batch_norm_impl_index':
      return batchNormRef(it, n, 5);
    case 'aten::reshape':
    case 'aten::view':
      return [reshapeRef(it.tensor(n, 0), it.ints(n, 1))];
    case 'aten::flatten':
      return flattenRef(it, n);
    case 'aten::permute':
      return [permuteRef(it.tensor(n, 0), it.ints(n, 1))];
    case 'aten::transpose': {
      const x = it.tensor(n, 0);
      const perm = x.shape.map((_, d) => d);
      const r = x.shape.length;
      const [a, b] = [(it.num(n, 1) + r) % r, (it.num(n, 2) + r) % r];
      [perm[a], perm[b]] = [perm[b] as number, perm[a] as number];
      return [permuteRef(x, perm)];
    }
    case 'aten::t': {
      const x = it.tensor(n, 0);
      return [x.shape.length < 2 ? x : permuteRef(x, [1, 0])];
    }
    case 'aten::squeeze':
      return squeezeRef(it, n);
    case 'aten::unsqueeze': {
      const x = it.tensor(n, 0);
      const r = x.shape.length + 1;
      const d = (it.num(n, 1) + r) % r;
      return [{ ...x, shape: [...x.shape.slice(0, d), 1, ...x.shape.slice(d)] }];
    }
    case 'aten::expand':
      return [expandRef(it.tensor(n, 0), it.ints(n, 1))];
    case 'aten::expand_as':
      return [expandRef(it.tensor(n, 0), it.tensor(n, 1).shape)];
    case 'aten::contiguous':
      return [it.tensor(n, 0)];
    case 'aten::size': {
      const x = it.tensor(n, 0);
      if (n.inputs.length > 1) return [refScalar('int', x.shape.at(it.num(n, 1)) as number)];
      return [{ kind: 'list', items: x.shape.map((s) => refScalar('int', s)) }];
    }
    default:
      throw new Error(`reference: no semantics for ${n.kind}`);
  }
}

export interface ReferenceResult {
  outputs: RefValue[];
  /** Graph inputs that the graph updated in place (training batch norm running stats), by index. */
  updated: Map<number, RefTensor>;
}

/** Runs `graph` on `inputs` with eager aten semantics. */
export function runAtenReference(graph: Graph, inputs: readonly RefValue[]): ReferenceResult {
  const it = new Interp(graph);
  graph.inputs.forEach((v, i) => it.set(v, inputs[i] ?? { kind: 'none' }));
  for (const n of graph.nodes()) {
    const outs = evalNode(it, n);
    n.outputs.forEach((o, i) => it.set(o, outs[i] ?? { kind: 'other' }));
  }
  return { outputs: graph.outputs.map((v) => it.get(v)), updated: it.updated };
}

export { isScalar, isRef };
