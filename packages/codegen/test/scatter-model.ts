// A host model of the greedy scatter kernel (emit/greedy/scatter-kernel.ts), for tests: it runs
// the kernel's algorithm with the kernel's parameters — the output starts as the launch plan's
// copy of self / acc, then each update point (one thread each) is decomposed row-major over the
// point sizes, its index value checked (outside [0, size): the kernel's __trap(), thrown here as
// an Error naming the point), and its element stored (scatter) or atomically added
// (index_put_accumulate) with the rounding of the hardware atomic: Float adds through
// Math.fround, Half / BFloat16 round each sum to the type (red.global.add.noftz), Int32 wraps,
// Int wraps at 64 bits. The points run in a seeded random order, as atomics from many threads
// arrive in an order no one controls. The kernel simulator interprets kernel IR, which greedy
// kernels do not have; this model is their counterpart, checked against the reference
// evaluator, while nvcc checks the CUDA text and the GPU suite the kernel itself.
import { castTo, contiguousStrides, HostTensor, type DataType, type ElementValue, type Fusion, type TensorView } from '@tsfuser/fusion-ir';
import { scatterScalarSource, type GreedyParams } from '@tsfuser/scheduler';

function atomicAdd(dtype: DataType, a: ElementValue, b: ElementValue): ElementValue {
  switch (dtype) {
    case 'Int':
      return BigInt.asIntN(64, BigInt(a as number | bigint | boolean) + BigInt(b as number | bigint | boolean));
    case 'Int32':
      return (Number(a) + Number(b)) | 0;
    case 'Float':
      return Math.fround(Number(a) + Number(b));
    case 'Double':
      return Number(a) + Number(b);
    case 'Half':
    case 'BFloat16':
      return Number(castTo(Number(a) + Number(b), dtype));
    default:
      throw new Error(`scatter model: no atomic add for ${dtype}`);
  }
}

/** Runs the scatter kernel `p` describes on the segment `fusion`'s inputs (contiguous host tensors or scalars). */
export function runScatterModel(p: GreedyParams, fusion: Fusion, inputs: readonly (HostTensor | number)[], next: () => number): HostTensor {
  const k = p.kernel;
  if (k.kind !== 'scatter') throw new Error(`scatter model: a ${k.kind} kernel`);
  const op = fusion.exprs().find((e) => e.kind === 'ScatterOp' || e.kind === 'IndexPutAccumulateOp');
  if (op === undefined) throw new Error('scatter model: no scatter in the segment');
  const tensorOf = (tv: TensorView): HostTensor => {
    const v = inputs[fusion.inputs.indexOf(tv)];
    if (!(v instanceof HostTensor)) throw new Error(`scatter model: T${tv.name} is not a tensor input`);
    return v.contiguous();
  };
  const self = tensorOf(op.kind === 'ScatterOp' ? op.selfTv() : op.accTv());
  const index = tensorOf(op.indexTv());
  const srcVal = op.kind === 'ScatterOp' ? op.src() : op.valueTv();
  const src = srcVal.kind === 'tensorView' ? tensorOf(srcVal) : null;
  let scalar: ElementValue | null = null;
  if (srcVal.kind === 'scalar') {
    const s = scatterScalarSource(fusion, srcVal, p.dtype);
    if (s === null) throw new Error('scatter model: the scalar src is neither a constant nor an input');
    // An input of another dtype is converted to the output's, as the kernel's cast does.
    scalar = s.kind === 'constant' ? s.value : castTo(inputs[fusion.inputs.indexOf(s.scalar)] as number, p.dtype);
  }
  // The copy step: the output starts as self.
  const out = HostTensor.empty(p.dtype, self.sizes);
  for (let i = 0; i < self.numel; i += 1) out.setFlat(i, self.get(i));
  const outStrides = contiguousStrides(out.sizes);
  const indexStrides = contiguousStrides(index.sizes);
  const points = k.accumulate ? [index.sizes[0] as number, ...out.sizes.slice(1)] : [...index.sizes];
  const count = points.reduce((a, b) => a * b, 1);
  const order = Array.from({ length: count }, (_, i) => i);
  for (let i = count - 1; i > 0; i -= 1) {
    const j = Math.floor(next() * (i + 1));
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  for (const point of order) {
    const c = new Array<number>(points.length).fill(0);
    let rest = point;
    for (let d = points.length - 1; d >= 0; d -= 1) {
      c[d] = rest % (points[d] as number);
      rest = Math.floor(rest / (points[d] as number));
    }
    const indexLinear = k.accumulate ? (c[0] as number) * (indexStrides[0] as number) : c.reduce((s, x, d) => s + x * (indexStrides[d] as number), 0);
    const v = Number(index.get(indexLinear));
    const size = out.sizes[p.dim] as number;
    if (v < 0 || v >= size) throw new Error(`trap: ${p.op} index ${v} outside [0, ${size}) at point [${c.join(', ')}]`);
    const o = c.reduce((s, x, d) => s + (d === p.dim ? v : x) * (outStrides[d] as number), 0);
    let x: ElementValue;
    if (src !== null) {
      const srcStrides = contiguousStrides(src.sizes);
      x = src.get(c.reduce((s, y, d) => s + (k.accumulate && src.sizes[d] === 1 ? 0 : y * (srcStrides[d] as number)), 0));
    } else {
      x = scalar as ElementValue;
    }
    out.setFlat(o, k.accumulate ? atomicAdd(p.dtype, out.get(o), x) : x);
  }
  return out;
}
