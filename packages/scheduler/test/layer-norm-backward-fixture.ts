// layer_norm backward (aten::native_layer_norm_backward over the last dim, computed in Float):
// from grad_out [N, H], x [N, H], mean [N], rstd [N] and weight [H]:
//   xhat = (x − mean)·rstd,  g = grad_out·weight
//   grad_input  = rstd · (g − sum(g, 1)/H − xhat · sum(g·xhat, 1)/H)     (inner reductions)
//   grad_weight = sum(grad_out · xhat, 0),  grad_bias = sum(grad_out, 0)   (outer reductions)
// each output cast back to the input dtype. The inner-outer persistent scheduler's fixture.
import { broadcast, cast, div, expand, Fusion, isReducedFloat, makeTensor, mul, sub, sum, type DataType, type TensorView } from '@tsfuser/fusion-ir';

function toFloat(tv: TensorView): TensorView {
  return isReducedFloat(tv.dtype) ? cast(tv, 'Float') : tv;
}

function castBack(tv: TensorView, dtype: DataType): TensorView {
  return tv.dtype === dtype ? tv : cast(tv, dtype);
}

/**
 * Builds the fusion; inputs: grad_out, x, mean, rstd, weight; outputs: grad_input, grad_weight,
 * grad_bias. `expanded`: every broadcast followed by an expand to [N, H], as the Python frontend's
 * broadcast_in_dim(shape=T0.shape()) writes it.
 */
export function layerNormBackwardFusion(dtype: DataType, hidden: number, expanded = false): Fusion {
  const f = new Fusion();
  const go = makeTensor(f, { shape: [-1, -1], dtype });
  const x = makeTensor(f, { shape: [-1, -1], dtype });
  const mean = makeTensor(f, { shape: [-1], dtype: 'Float' });
  const rstd = makeTensor(f, { shape: [-1], dtype: 'Float' });
  const w = makeTensor(f, { shape: [-1], dtype });
  for (const t of [go, x, mean, rstd, w]) f.addInput(t);
  const gof = toFloat(go);
  const bcast = (t: TensorView, dims: boolean[]): TensorView => {
    const b = broadcast(t, dims);
    return expanded ? expand(b, dims.map((isNew, d) => (isNew ? (go.domain.logical[d]?.extent ?? -1) : -1))) : b;
  };
  const rstdB = bcast(rstd, [false, true]);
  const xhat = mul(sub(toFloat(x), bcast(mean, [false, true])), rstdB);
  const g = mul(gof, bcast(toFloat(w), [true, false]));
  const a = bcast(sum(mul(g, xhat), [1]), [false, true]);
  const b = bcast(sum(g, [1]), [false, true]);
  const gi = mul(sub(sub(g, div(b, hidden)), div(mul(xhat, a), hidden)), rstdB);
  f.addOutput(castBack(gi, dtype));
  f.addOutput(castBack(sum(mul(gof, xhat), [0]), dtype));
  f.addOutput(castBack(sum(gof, [0]), dtype));
  return f;
}

/** Input sizes for N rows of H elements. */
export function layerNormBackwardSizes(rows: number, hidden: number): number[][] {
  return [[rows, hidden], [rows, hidden], [rows], [rows], [hidden]];
}
