// Inner persistent normalization fusions for codegen tests and the GPU normalization suite:
// softmax, log_softmax, layer_norm (two-pass var_mean written out: mean, then mean of squared
// deviations; and fusion-ir's Welford layerNorm, which the scheduler translates to the same)
// with weight/bias and its mean/invstd outputs, and rms_norm with weight, over the last dim, in Float/Half/BFloat16 (computed in
// Float), for named row lengths (1, 7, 1000, 4096, 5000, and 0 — refused, left to
// segmentation) and a seeded generator of random ones.
import {
  add, cast, Fusion, isReducedFloat, layerNorm, logSoftmax, makeTensor, mean, mul, rmsNorm, rsqrt, softmax, sub, broadcast,
  type DataType, type TensorView,
} from '@tsfuser/fusion-ir';
import { InnerPersistentScheduler, makeRuntimeInfo, SchedulerRegistry, type InnerPersistentOverrides, type RuntimeInfo } from '@tsfuser/scheduler';

/** layer_norm: two-pass var_mean written out; layer_norm_welford: fusion-ir's layerNorm (Welford, translated by the scheduler). */
export type NormalizationKind = 'softmax' | 'log_softmax' | 'layer_norm' | 'layer_norm_welford' | 'rms_norm';
export const NORMALIZATION_KINDS: readonly NormalizationKind[] = ['softmax', 'log_softmax', 'layer_norm', 'layer_norm_welford', 'rms_norm'];

export interface NormalizationSpec {
  kind: NormalizationKind;
  dtype: DataType;
  /** Input shape; the last dim is normalized. */
  shape: number[];
  /** layer_norm / rms_norm: a weight (and for layer_norm a bias) over the last dim. */
  affine?: boolean;
}

export interface NormalizationCase {
  name: string;
  spec: NormalizationSpec;
  fusion: Fusion;
  /** Sizes of each fusion input (contiguous). */
  sizes: number[][];
  info: RuntimeInfo;
}

/** Only the inner persistent scheduler (tests that must not fall back to segmentation). */
export function innerPersistentRegistry(overrides: InnerPersistentOverrides = {}): SchedulerRegistry {
  return new SchedulerRegistry([new InnerPersistentScheduler(overrides)]);
}

function toFloat(tv: TensorView): TensorView {
  return isReducedFloat(tv.dtype) ? cast(tv, 'Float') : tv;
}

function castBack(tv: TensorView, dtype: DataType): TensorView {
  return tv.dtype === dtype ? tv : cast(tv, dtype);
}

/**
 * aten::native_layer_norm over the last dim with a two-pass var_mean: returns output, mean and
 * invstd (both Float, keeping the normalized dim as size 1).
 */
export function layerNormTwoPass(x: TensorView, weight: TensorView | null, bias: TensorView | null, eps = 1e-5): TensorView[] {
  const rank = x.rank();
  const last = rank - 1;
  const xf = toFloat(x);
  const mu = mean(xf, [last], true);
  const xm = sub(xf, mu);
  const variance = mean(mul(xm, xm), [last], true);
  const invstd = rsqrt(add(variance, eps));
  let y = mul(xm, invstd);
  const lead = Array.from({ length: rank }, (_, d) => d < rank - 1);
  if (weight !== null) y = mul(y, broadcast(toFloat(weight), lead));
  if (bias !== null) y = add(y, broadcast(toFloat(bias), lead));
  return [castBack(y, x.dtype), mu, invstd];
}

export function buildNormalization(name: string, spec: NormalizationSpec): NormalizationCase {
  const fusion = new Fusion();
  const { shape, dtype, kind } = spec;
  const x = makeTensor(fusion, { shape: shape.map(() => -1), dtype });
  fusion.addInput(x);
  const sizes: number[][] = [shape];
  const rowLength = shape[shape.length - 1] as number;
  const param = (): TensorView => {
    const w = makeTensor(fusion, { shape: [-1], dtype });
    fusion.addInput(w);
    sizes.push([rowLength]);
    return w;
  };
  const last = shape.length - 1;
  switch (kind) {
    case 'softmax':
      fusion.addOutput(softmax(x, last));
      break;
    case 'log_softmax':
      fusion.addOutput(logSoftmax(x, last));
      break;
    case 'layer_norm': {
      const w = spec.affine === true ? param() : null;
      const b = spec.affine === true ? param() : null;
      for (const o of layerNormTwoPass(x, w, b)) fusion.addOutput(o);
      break;
    }
    case 'layer_norm_welford': {
      const w = spec.affine === true ? param() : null;
      const b = spec.affine === true ? param() : null;
      const r = layerNorm(x, 1, w, b);
      fusion.addOutput(r.output);
      fusion.addOutput(r.mean);
      fusion.addOutput(r.invstd);
      break;
    }
    case 'rms_norm': {
      const w = spec.affine === true ? param() : null;
      const r = rmsNorm(x, 1, w);
      fusion.addOutput(r.output);
      fusion.addOutput(r.invstd);
      break;
    }
    default: {
      const unreachable: never = kind;
      throw new Error(`unknown normalization ${String(unreachable)}`);
    }
  }
  return { name, spec, fusion, sizes, info: makeRuntimeInfo(fusion, sizes.map((s) => ({ sizes: s }))) };
}

export const FIXTURE_ROW_LENGTHS: readonly number[] = [1, 7, 1000, 4096, 5000];
export const FIXTURE_DTYPES: readonly DataType[] = ['Float', 'Half', 'BFloat16'];

/** Every kind × dtype × row length (rows: 6, so short rows share blocks), plus 3-D inputs. */
export function normalizationFixtures(rows = 6): NormalizationCase[] {
  const cases: NormalizationCase[] = [];
  for (const kind of NORMALIZATION_KINDS) {
    for (const dtype of FIXTURE_DTYPES) {
      for (const r of FIXTURE_ROW_LENGTHS) {
        const affine = kind !== 'softmax' && kind !== 'log_softmax';
        cases.push(buildNormalization(`${kind}_${dtype}_${r}`, { kind, dtype, shape: [rows, r], affine }));
      }
    }
    cases.push(buildNormalization(`${kind}_Float_3d`, { kind, dtype: 'Float', shape: [3, 5, 96], affine: kind !== 'softmax' }));
  }
  return cases;
}

/** Size-0 rows: the inner persistent scheduler refuses them (segmentation takes over). */
export function emptyRowFixtures(): NormalizationCase[] {
  return NORMALIZATION_KINDS.map((kind) => buildNormalization(`${kind}_Float_0`, { kind, dtype: 'Float', shape: [4, 0] }));
}


/** A random normalization: kind, dtype, 1–3 leading dims, a row length up to `maxRow`. */
export function randomNormalizationSpec(rand: () => number, maxRow = 6000, maxRows = 300): NormalizationSpec {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const kind = pick(NORMALIZATION_KINDS);
  const dtype = pick(FIXTURE_DTYPES);
  const row = rand() < 0.2 ? pick([1, 2, 3, 31, 33, 127, 128, 129, 1024, 2048, 4096]) : 1 + Math.floor(rand() ** 2 * maxRow);
  const lead: number[] = [];
  const nLead = 1 + Math.floor(rand() * 2.5);
  let rows = 1;
  for (let i = 0; i < nLead; i += 1) {
    const d = 1 + Math.floor(rand() * Math.max(1, Math.floor(maxRows / rows) ** (1 / (nLead - i))));
    lead.push(d);
    rows *= d;
  }
  return { kind, dtype, shape: [...lead, row], affine: kind !== 'softmax' && kind !== 'log_softmax' && rand() < 0.7 };
}
