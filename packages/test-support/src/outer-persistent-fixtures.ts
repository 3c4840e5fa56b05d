// Outer persistent (batch-norm-like) fusions for the codegen tests and the GPU suite:
// native_batch_norm training written out (two-pass mean, biased var, normalize; outputs y, mean,
// invstd), fusion-ir's Welford batchNorm (channels-last, weight and bias), x − sum(x, outer) and
// x − mean(x, outer), reducing every dim but the last, in Float/Half/BFloat16 (computed in
// Float); and a registry [pointwise, reduction, outer_persistent] that tests the scheduler
// without the others (the default registry holds it too, after inner persistent).
import {
  add, batchNorm, broadcast, cast, Fusion, isReducedFloat, makeTensor, mean, mul, rsqrt, sub, sum, type DataType, type TensorView,
} from '@tsfuser/fusion-ir';
import {
  makeRuntimeInfo, OuterPersistentScheduler, PointwiseScheduler, ReductionScheduler, SchedulerRegistry, type RuntimeInfo,
} from '@tsfuser/scheduler';

export type OuterKind = 'batch_norm' | 'batch_norm_welford' | 'minus_sum' | 'minus_mean';

export interface OuterCase {
  name: string;
  kind: OuterKind;
  dtype: DataType;
  fusion: Fusion;
  sizes: number[][];
  /** Elements reduced per output (for the tolerance). */
  reduced: number;
  info: RuntimeInfo;
}

export function outerPersistentRegistry(): SchedulerRegistry {
  return new SchedulerRegistry([new PointwiseScheduler(), new ReductionScheduler(), new OuterPersistentScheduler()]);
}

const toFloat = (tv: TensorView): TensorView => (isReducedFloat(tv.dtype) ? cast(tv, 'Float') : tv);
const castBack = (tv: TensorView, d: DataType): TensorView => (tv.dtype === d ? tv : cast(tv, d));

/** Fusions over x of `shape`, reducing every dim but the last (channels-last). */
export function buildOuter(kind: OuterKind, dtype: DataType, shape: number[]): OuterCase {
  const fusion = new Fusion();
  const x = makeTensor(fusion, { shape: shape.map(() => -1), dtype });
  fusion.addInput(x);
  const sizes: number[][] = [shape];
  const rank = shape.length;
  const axes = Array.from({ length: rank - 1 }, (_, d) => d);
  const flags = Array.from({ length: rank }, (_, d) => d < rank - 1);
  const xf = toFloat(x);
  switch (kind) {
    case 'batch_norm': {
      // native_batch_norm training, two-pass: mean, biased var, (x − mean) · rsqrt(var + eps)
      const mu = mean(xf, axes);
      const xm = sub(xf, broadcast(mu, flags));
      const variance = mean(mul(xm, xm), axes);
      const invstd = rsqrt(add(variance, 1e-5));
      fusion.addOutput(castBack(mul(xm, broadcast(invstd, flags)), dtype));
      fusion.addOutput(mu);
      fusion.addOutput(invstd);
      break;
    }
    case 'batch_norm_welford': {
      const c = shape[rank - 1] as number;
      const w = makeTensor(fusion, { shape: [-1], dtype });
      const b = makeTensor(fusion, { shape: [-1], dtype });
      fusion.addInput(w);
      fusion.addInput(b);
      sizes.push([c], [c]);
      const r = batchNorm(x, w, b, null, null, 0.1, 1e-5, true, true);
      fusion.addOutput(r.output);
      fusion.addOutput(r.mean);
      fusion.addOutput(r.invstd);
      break;
    }
    case 'minus_sum':
      fusion.addOutput(castBack(sub(xf, broadcast(sum(xf, axes), flags)), dtype));
      break;
    case 'minus_mean':
      fusion.addOutput(castBack(sub(xf, broadcast(mean(xf, axes), flags)), dtype));
      break;
    default: {
      const unreachable: never = kind;
      throw new Error(`unknown fixture kind ${String(unreachable)}`);
    }
  }
  const reduced = shape.slice(0, -1).reduce((a, v) => a * v, 1);
  const name = `${kind}_${dtype}_${shape.join('x')}`;
  return { name, kind, dtype, fusion, sizes, reduced, info: makeRuntimeInfo(fusion, sizes.map((s) => ({ sizes: s }))) };
}

export const NS = [1, 7, 64, 1000, 4096];
export const CS = [1, 3, 32, 256, 1001];
export const DTYPES: DataType[] = ['Float', 'Half', 'BFloat16'];
export const KINDS: OuterKind[] = ['batch_norm', 'batch_norm_welford', 'minus_sum', 'minus_mean'];

