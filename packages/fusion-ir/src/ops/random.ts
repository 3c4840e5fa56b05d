// Random tensor factories (nvFuser's csrc/ops/arith.cpp rand / randn / uniform / normal /
// rand_like / randn_like): each builds one RNGOp. Sizes follow `full` (a constant 1 gives a
// Broadcast ID); `uniform(0, 1)` and `normal(0, 1)` with constant parameters become the plain
// uniform / standard-normal ops, as nvFuser does. `rngSeed` and `rngOffset` (integral scalars or
// JS integers) come together or not at all; without them an op uses seed 0 and offset = the
// number of RNG ops built before it in the fusion (nvFuser draws them from PyTorch's CUDA
// generator; tsfuser has no global generator). What the numbers are: eval/random.ts.

import { isFloat8Type, isFloatingType, type DataType } from '../ir/data-type.js';
import { FusionIrError } from '../ir/errors.js';
import { RNGOp } from '../ir/expr.js';
import type { Fusion } from '../ir/fusion.js';
import type { RngOpType } from '../ir/op-types.js';
import type { Scalar } from '../ir/scalar.js';
import type { TensorView } from '../ir/tensor-view.js';
import { describe } from './operand.js';
import { shape, toExtent, type SizeOperand } from './shape.js';
import { categoryOf } from './type-promotion.js';
import { cast } from './unary.js';

/** rng_seed / rng_offset: both or neither. */
export interface RngOptions {
  rngSeed?: Scalar | number | bigint | null;
  rngOffset?: Scalar | number | bigint | null;
}

type ParamOperand = Scalar | number;

/** An rng_seed / rng_offset operand as an Int scalar of `fusion` (a JS integer becomes a constant). */
export function seedScalar(fusion: Fusion, op: string, name: string, v: Scalar | number | bigint): Scalar {
  if (typeof v === 'object') {
    if (v.fusion !== fusion) throw new FusionIrError(`${op}: ${name} ${v.symbolicName()} belongs to another fusion`);
    if (categoryOf(v.dtype) !== 1) throw new FusionIrError(`${op}: ${name} must be an integral scalar, got ${v.dtype}`);
    return v.dtype === 'Int' ? v : cast(v, 'Int');
  }
  if (typeof v === 'number' && (!Number.isInteger(v) || v < 0)) throw new FusionIrError(`${op}: ${name} ${v} is not a non-negative integer`);
  return fusion.constant(BigInt.asIntN(64, BigInt(v)), 'Int');
}

function seedAndOffset(fusion: Fusion, op: string, options: RngOptions): { seed: Scalar; offset: Scalar; seeded: boolean } {
  const seed = options.rngSeed ?? null;
  const offset = options.rngOffset ?? null;
  if ((seed === null) !== (offset === null)) throw new FusionIrError(`${op}: rng_seed and rng_offset must be provided together`);
  if (seed !== null && offset !== null) {
    return { seed: seedScalar(fusion, op, 'rng_seed', seed), offset: seedScalar(fusion, op, 'rng_offset', offset), seeded: true };
  }
  // sdpfa_fwd's dropout draws from the same stream: it counts as a random op too.
  const ordinal = fusion.allExprs().filter((e) => e.kind === 'RNGOp' || e.kind === 'SdpaFwdOp').length;
  return { seed: fusion.constant(0n, 'Int'), offset: fusion.constant(BigInt(ordinal), 'Int'), seeded: false };
}

function checkRngDtype(op: string, dtype: DataType): void {
  if (!isFloatingType(dtype)) throw new FusionIrError(`${op}: random distributions only create floating point types, got ${dtype}`);
  if (isFloat8Type(dtype)) throw new FusionIrError(`${op}: random numbers are not generated in ${dtype} (draw Float and cast)`);
}

function paramScalar(fusion: Fusion, op: string, v: ParamOperand): Scalar {
  if (typeof v === 'number') return fusion.constant(v, 'Double');
  if (v.fusion !== fusion) throw new FusionIrError(`${op}: parameter ${v.symbolicName()} belongs to another fusion`);
  if (v.dtype === 'Bool') throw new FusionIrError(`${op}: parameter ${v.symbolicName()} must be a number, got Bool`);
  return v.dtype === 'Double' ? v : cast(v, 'Double');
}

function isConstant(v: ParamOperand, value: number): boolean {
  return (typeof v === 'number' ? v : v.constNumber()) === value;
}

/** An RNGOp over `sizes` (the output's extents): the op shared by every factory here. */
function rngOutput(
  fusion: Fusion,
  op: string,
  rngOp: RngOpType,
  sizes: readonly SizeOperand[],
  parameters: readonly ParamOperand[],
  dtype: DataType,
  options: RngOptions,
): TensorView {
  checkRngDtype(op, dtype);
  const extents = sizes.map((s) => {
    const e = toExtent(fusion, op, s);
    const c = e.constNumber();
    if (c !== null && c < 0) throw new FusionIrError(`${op}: negative size ${c} in [${sizes.map(String).join(', ')}]`);
    return e;
  });
  const params = parameters.map((p) => paramScalar(fusion, op, p));
  const { seed, offset, seeded } = seedAndOffset(fusion, op, options);
  const logical = extents.map((e) => fusion.newIterDomain(e, e.constNumber() === 1 ? 'Broadcast' : 'Iteration'));
  const out = fusion.newTensorFromDomain(logical, dtype);
  new RNGOp(fusion, rngOp, out, dtype, extents, params, seed, offset, seeded);
  return out;
}

/** rand(fusion, shape, dtype = Float, options): uniform on [0, 1) (nvFuser's rand). */
export function rand(fusion: Fusion, sizes: readonly SizeOperand[], dtype: DataType = 'Float', options: RngOptions = {}): TensorView {
  return rngOutput(fusion, 'rand', 'uniform', sizes, [], dtype, options);
}

/** randn(fusion, shape, dtype = Float, options): standard normal (nvFuser's randn). */
export function randn(fusion: Fusion, sizes: readonly SizeOperand[], dtype: DataType = 'Float', options: RngOptions = {}): TensorView {
  return rngOutput(fusion, 'randn', 'normal_standard', sizes, [], dtype, options);
}

/** uniform(fusion, shape, low, high, dtype = Float, options): uniform on [low, high). */
export function uniform(
  fusion: Fusion,
  sizes: readonly SizeOperand[],
  low: ParamOperand,
  high: ParamOperand,
  dtype: DataType = 'Float',
  options: RngOptions = {},
): TensorView {
  if (isConstant(low, 0) && isConstant(high, 1)) return rngOutput(fusion, 'uniform', 'uniform', sizes, [], dtype, options);
  return rngOutput(fusion, 'uniform', 'uniform_range', sizes, [low, high], dtype, options);
}

/** normal(fusion, shape, mean, std, dtype = Float, options): normal with that mean and std. */
export function normal(
  fusion: Fusion,
  sizes: readonly SizeOperand[],
  mean: ParamOperand,
  std: ParamOperand,
  dtype: DataType = 'Float',
  options: RngOptions = {},
): TensorView {
  if (isConstant(mean, 0) && isConstant(std, 1)) return rngOutput(fusion, 'normal', 'normal_standard', sizes, [], dtype, options);
  return rngOutput(fusion, 'normal', 'normal_general', sizes, [mean, std], dtype, options);
}

function likeShape(op: string, tv: TensorView): Scalar[] {
  if (!isFloatingType(tv.dtype)) throw new FusionIrError(`${op}: input must have floating point type, but got ${describe(tv)}`);
  return shape(tv);
}

/** randLike(tv, options): uniform on [0, 1) with tv's sizes and dtype (nvFuser's rand_like). */
export function randLike(tv: TensorView, options: RngOptions = {}): TensorView {
  return rngOutput(tv.fusion, 'rand_like', 'uniform', likeShape('rand_like', tv), [], tv.dtype, options);
}

/** randnLike(tv, options): standard normal with tv's sizes and dtype (nvFuser's randn_like). */
export function randnLike(tv: TensorView, options: RngOptions = {}): TensorView {
  return rngOutput(tv.fusion, 'randn_like', 'normal_standard', likeShape('randn_like', tv), [], tv.dtype, options);
}
