// Pointwise fixture fusions for codegen tests, each with the runtime sizes to compile for.
import {
  add, binaryOp, broadcast, cast, Fusion, makeTensor, mul, relu, ternaryOp, unaryOp,
  BINARY_OP_TYPES, TERNARY_OP_TYPES, UNARY_OP_TYPES, type DataType, type TensorView,
} from '@tsfuser/fusion-ir';
import { makeRuntimeInfo, type RuntimeInfo } from '@tsfuser/scheduler';

export interface Fixture {
  name: string;
  fusion: Fusion;
  info: RuntimeInfo;
}

function fixture(name: string, fusion: Fusion, sizes: (number[] | null)[], strides?: (number[] | undefined)[]): Fixture {
  return { name, fusion, info: makeRuntimeInfo(fusion, sizes.map((s, i) => (s === null ? null : { sizes: s, ...(strides?.[i] ? { strides: strides[i] } : {}) }))) };
}

export function broadcastAddMul(contiguous = true): Fusion {
  const fusion = new Fusion();
  const t0 = makeTensor(fusion, { shape: [-1, 1, -1], ...(contiguous ? {} : { contiguity: [false, null, false] }) });
  const t1 = makeTensor(fusion, { shape: [-1, -1, -1] });
  fusion.addInput(t0);
  fusion.addInput(t1);
  fusion.addOutput(mul(add(t0, t1), 3));
  return fusion;
}

/** Inference batch norm + residual add + relu (the seed exercise), NCHW. */
export function batchNormAddRelu(): Fusion {
  const fusion = new Fusion();
  const x = makeTensor(fusion, { shape: [-1, -1, -1, -1] });
  const res = makeTensor(fusion, { shape: [-1, -1, -1, -1] });
  const chans = [0, 1, 2, 3].map(() => makeTensor(fusion, { shape: [-1] }));
  for (const t of [x, res, ...chans]) fusion.addInput(t);
  const [w, b, mean, invstd] = chans.map((c) => broadcast(c, [true, false, true, true])) as [TensorView, TensorView, TensorView, TensorView];
  const y = add(mul(mul(binaryOp('sub', x, mean), invstd), w), b);
  fusion.addOutput(relu(add(y, res)));
  return fusion;
}

function unaryFusion(op: (typeof UNARY_OP_TYPES)[number], dtype: DataType): Fusion {
  const fusion = new Fusion();
  const a = makeTensor(fusion, { shape: [-1, -1], dtype });
  fusion.addInput(a);
  fusion.addOutput(op === 'cast' ? cast(a, 'Double') : unaryOp(op, a));
  return fusion;
}

export function allFixtures(): Fixture[] {
  const out: Fixture[] = [];
  out.push(fixture('bcast_big', broadcastAddMul(), [[64, 1, 8192], [64, 512, 8192]]));
  out.push(fixture('bcast_odd', broadcastAddMul(), [[3, 1, 7], [3, 5, 7]]));
  out.push(fixture('bcast_zero', broadcastAddMul(), [[0, 1, 4], [0, 3, 4]]));
  out.push(fixture('bcast_noncontig', broadcastAddMul(false), [[4, 1, 6], [4, 5, 6]], [[12, 6, 2], undefined]));
  out.push(fixture('batchnorm', batchNormAddRelu(), [[8, 32, 14, 14], [8, 32, 14, 14], [32], [32], [32], [32]]));
  // real / imag / complex need complex values (complex-fixtures.ts), which the simulator cannot hold.
  const complexOnly = new Set<string>(['real', 'imag', 'complex']);
  const floatUnary = UNARY_OP_TYPES.filter((op) => op !== 'bitwise_not' && !complexOnly.has(op));
  for (const dtype of ['Float', 'Half', 'BFloat16', 'Double'] as const) {
    for (const op of floatUnary) out.push(fixture(`unary_${op}_${dtype}`, unaryFusion(op, dtype), [[33, 17]]));
  }
  for (const dtype of ['Int32', 'Int', 'Bool'] as const) {
    for (const op of ['abs', 'neg', 'bitwise_not', 'logical_not', 'sign', 'cast', 'isnan', 'exp'] as const) {
      if (dtype === 'Bool' && (op === 'neg' || op === 'sign')) continue;
      out.push(fixture(`unary_${op}_${dtype}`, unaryFusion(op, dtype), [[8, 9]]));
    }
  }
  const intOnly = new Set(['bitwise_and', 'bitwise_or', 'bitwise_xor', 'bitwise_left_shift', 'bitwise_right_shift', 'logical_right_shift', 'gcd']);
  for (const dtype of ['Float', 'Half', 'Int32', 'Int', 'Double', 'BFloat16', 'Bool'] as const) {
    for (const op of BINARY_OP_TYPES) {
      if (complexOnly.has(op)) continue;
      const isFloat = dtype === 'Float' || dtype === 'Half' || dtype === 'Double' || dtype === 'BFloat16';
      if (intOnly.has(op) && isFloat) continue;
      if (dtype === 'Bool' && (op === 'pow' || op === 'div' || op === 'mod' || op === 'fmod' || op === 'remainder' || op === 'floordiv' || op === 'ceilDiv' || op === 'gcd' || op === 'sub')) continue;
      const fusion = new Fusion();
      const a = makeTensor(fusion, { shape: [-1, -1], dtype });
      const b = makeTensor(fusion, { shape: [-1, -1], dtype });
      fusion.addInput(a);
      fusion.addInput(b);
      fusion.addOutput(binaryOp(op, a, b));
      out.push(fixture(`binary_${op}_${dtype}`, fusion, [[16, 31], [16, 31]]));
    }
  }
  for (const op of TERNARY_OP_TYPES) {
    for (const dtype of ['Float', 'Half', 'Int32'] as const) {
      if (op === 'lerp' && dtype === 'Int32') continue;
      const fusion = new Fusion();
      const a = makeTensor(fusion, { shape: [-1], dtype: op === 'where' ? 'Bool' : dtype });
      const b = makeTensor(fusion, { shape: [-1], dtype });
      const c = makeTensor(fusion, { shape: [-1], dtype });
      for (const t of [a, b, c]) fusion.addInput(t);
      fusion.addOutput(ternaryOp(op, a, b, c, dtype) as TensorView);
      out.push(fixture(`ternary_${op}_${dtype}`, fusion, [[1000], [1000], [1000]]));
    }
  }
  // casts between every pair of dtypes
  const dtypes: DataType[] = ['Bool', 'Int32', 'Int', 'Half', 'BFloat16', 'Float', 'Double'];
  for (const from of dtypes) {
    for (const to of dtypes) {
      const fusion = new Fusion();
      const a = makeTensor(fusion, { shape: [-1], dtype: from });
      fusion.addInput(a);
      fusion.addOutput(cast(a, to));
      out.push(fixture(`cast_${from}_${to}`, fusion, [[4096]]));
    }
  }
  // size-1 (all broadcast) and scalar input
  {
    const fusion = new Fusion();
    const a = makeTensor(fusion, { shape: [1, 1] });
    const s = fusion.newSymbolicScalar('Double');
    fusion.addInput(a);
    fusion.addInput(s);
    fusion.addOutput(mul(a, s));
    out.push(fixture('size_one_scalar', fusion, [[1, 1], null]));
  }
  return out;
}
