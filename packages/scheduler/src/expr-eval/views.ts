// Metadata-only expressions as views: given the layout (sizes, strides, element offset) of each
// fusion input, the layout of every tensor that broadcast, squeeze, expand, permute, slice,
// reshape (where view-compatible, PyTorch's computeStride rule; else, when the caller can copy,
// a view of a dense copy, as torch.reshape) or a plain set produce from it
// — the same pointer arithmetic the reference evaluator does on host tensors, without data.
// Invariant: a tensor's layout, applied to the storage of the input it came from, reads
// exactly the values the reference evaluator gives that tensor.

import { contiguousStrides, type Expr, type Fusion, type Scalar, type TensorView } from '@tsfuser/fusion-ir';
import { SchedulingError } from '../errors.js';
import { evaluateExtent, type ExtentBindings } from '../runtime-info.js';

/** A strided view over the storage of fusion input `input` (its data pointer + `offset` elements). */
export interface ViewLayout {
  input: number;
  sizes: number[];
  strides: number[];
  offset: number;
}

/** Why an expression cannot be a view, or null when it can (the layouts are not needed for this). */
export function metadataOpRefusal(e: Expr): string | null {
  const out = e.outputs[0];
  const name = out !== undefined && out.kind === 'tensorView' ? ` producing T${out.name}` : '';
  switch (e.kind) {
    case 'BroadcastOp':
    case 'SqueezeOp':
    case 'ExpandOp':
    case 'ViewOp':
    case 'LoadStoreOp':
    case 'SliceOp':
      return null;
    case 'UnaryOp':
    case 'BinaryOp':
    case 'TernaryOp':
    case 'ReductionOp':
    case 'WelfordOp':
    case 'PadOp':
    case 'CatOp':
    case 'FullOp':
    case 'IotaOp':
    case 'RNGOp':
    case 'SelectOp':
    case 'IndexSelectOp':
    case 'GatherOp':
    case 'ScatterOp':
    case 'IndexPutAccumulateOp':
    case 'EmbeddingFwdOp':
    case 'ScanOp':
    case 'ArgsortOp':
    case 'TopKOp':
    case 'MatmulOp':
    case 'LinearOp':
    case 'ScaledMmaOp':
    case 'GroupedMmaOp':
    case 'SdpaFwdOp':
    case 'SdpaBwdOp':
      return `${e.kind}${name} computes new values (not a view of an input)`;
    case 'Split':
    case 'Merge':
      return null;
    default: {
      const unreachable: never = e;
      return `unknown expression ${String(unreachable)}`;
    }
  }
}

/**
 * PyTorch's view stride rule (`computeStride`): strides for `newSizes` over a tensor of
 * `oldSizes`/`oldStrides` that read the same elements in row-major order, or null when the
 * old dims a new dim spans are not contiguous with each other (a copy would be needed).
 */
export function viewStrides(oldSizes: readonly number[], oldStrides: readonly number[], newSizes: readonly number[]): number[] | null {
  if (oldSizes.length === 0) return newSizes.map(() => 1);
  const numel = oldSizes.reduce((a, b) => a * b, 1);
  if (numel === 0) return contiguousStrides(newSizes);
  const newStrides = new Array<number>(newSizes.length).fill(0);
  let viewD = newSizes.length - 1;
  let chunkBaseStride = oldStrides[oldStrides.length - 1] as number;
  let tensorNumel = 1;
  let viewNumel = 1;
  for (let tensorD = oldSizes.length - 1; tensorD >= 0; tensorD -= 1) {
    tensorNumel *= oldSizes[tensorD] as number;
    const chunkEnds = tensorD === 0 || ((oldSizes[tensorD - 1] as number) !== 1 && (oldStrides[tensorD - 1] as number) !== tensorNumel * chunkBaseStride);
    if (!chunkEnds) continue;
    while (viewD >= 0 && (viewNumel < tensorNumel || newSizes[viewD] === 1)) {
      newStrides[viewD] = viewNumel * chunkBaseStride;
      viewNumel *= newSizes[viewD] as number;
      viewD -= 1;
    }
    if (viewNumel !== tensorNumel) return null;
    if (tensorD > 0) {
      chunkBaseStride = oldStrides[tensorD - 1] as number;
      tensorNumel = 1;
      viewNumel = 1;
    }
  }
  return viewD === -1 ? newStrides : null;
}

function clampIndex(i: number, size: number): number {
  const j = i < 0 ? i + size : i;
  return Math.min(Math.max(j, 0), size);
}

/**
 * A dense copy of `tv` (read with `layout`) for a reshape no view can express, as torch.reshape
 * copies what it cannot view: returns the copy's layout (a new input index, dense strides).
 */
export type MaterializeCopy = (tv: TensorView, layout: ViewLayout) => ViewLayout;

/**
 * The layout of every tensor of a metadata-only `fusion`, from the layouts of its inputs
 * (`inputs[i]`: null for scalars). Throws a SchedulingError naming the tensor when an
 * expression computes values or a reshape is not view-compatible with its input's strides and
 * no `materialize` is given (with one, that reshape views the dense copy it returns).
 */
export function viewLayouts(
  fusion: Fusion,
  inputs: readonly ({ sizes: readonly number[]; strides: readonly number[] } | null)[],
  bindings: ExtentBindings,
  materialize?: MaterializeCopy,
): Map<TensorView, ViewLayout> {
  const layouts = new Map<TensorView, ViewLayout>();
  fusion.inputs.forEach((v, i) => {
    const l = inputs[i];
    if (v.kind === 'tensorView' && l !== null && l !== undefined) layouts.set(v, { input: i, sizes: [...l.sizes], strides: [...l.strides], offset: 0 });
  });
  const extent = (s: Scalar): number => evaluateExtent(s, bindings);
  for (const e of fusion.exprs()) {
    const refusal = metadataOpRefusal(e);
    if (refusal !== null) throw new SchedulingError(refusal);
    if (e.kind === 'Split' || e.kind === 'Merge') continue;
    const out = e.outputs[0] as TensorView;
    const input = e.inputs[0] as TensorView;
    const src = layouts.get(input);
    if (src === undefined) throw new SchedulingError(`T${out.name}: its input T${input.name} has no layout`);
    // An empty view reads nothing: offset 0 keeps it inside any (even empty) storage.
    const view = (sizes: number[], strides: number[], offset = src.offset): void => {
      layouts.set(out, { input: src.input, sizes, strides, offset: sizes.includes(0) ? 0 : offset });
    };
    switch (e.kind) {
      case 'BroadcastOp': {
        const sizes: number[] = [];
        const strides: number[] = [];
        let k = 0;
        for (const isNew of e.isBroadcastDim) {
          if (isNew) {
            // PyTorch's unsqueeze stride: the next dim's extent of memory (1 at the end).
            sizes.push(1);
            strides.push(k < src.sizes.length ? (src.sizes[k] as number) * (src.strides[k] as number) : 1);
          } else {
            sizes.push(src.sizes[k] as number);
            strides.push(src.strides[k] as number);
            k += 1;
          }
        }
        view(sizes, strides);
        break;
      }
      case 'SqueezeOp': {
        const keep = src.sizes.map((_, d) => e.isSqueezeDim[d] !== true);
        src.sizes.forEach((s, d) => {
          if (!keep[d] && s !== 1) throw new SchedulingError(`squeeze producing T${out.name}: dim ${d} has size ${s}, not 1`);
        });
        view(src.sizes.filter((_, d) => keep[d]), src.strides.filter((_, d) => keep[d]));
        break;
      }
      case 'ExpandOp': {
        const sizes = out.domain.logicalNoReductions().map((id) => extent(id.logicalExtent()));
        view(sizes, sizes.map((s, d) => ((src.sizes[d] as number) === 1 && s !== 1 ? 0 : (src.strides[d] as number))));
        break;
      }
      case 'LoadStoreOp': {
        const perm = e.permutation;
        if (perm === null) view([...src.sizes], [...src.strides]);
        else view(perm.map((p) => src.sizes[p] as number), perm.map((p) => src.strides[p] as number));
        break;
      }
      case 'SliceOp': {
        let offset = src.offset;
        const sizes: number[] = [];
        const strides: number[] = [];
        e.ranges.forEach((r, d) => {
          const size = src.sizes[d] as number;
          const step = extent(r.step);
          if (step <= 0) throw new SchedulingError(`slice producing T${out.name}: step must be positive, got ${step}`);
          const start = clampIndex(extent(r.start), size);
          const stop = Math.max(clampIndex(extent(r.stop), size), start);
          const n = Math.ceil((stop - start) / step);
          offset += start * (src.strides[d] as number);
          sizes.push(n);
          strides.push((src.strides[d] as number) * step);
        });
        view(sizes, strides, offset);
        break;
      }
      case 'ViewOp': {
        const sizes = out.domain.logicalNoReductions().map((id) => extent(id.logicalExtent()));
        const strides = viewStrides(src.sizes, src.strides, sizes);
        if (strides === null && materialize !== undefined) {
          // A dense copy is always view-compatible (row-major order is the reshape's order).
          const copy = materialize(input, src);
          const copyStrides = viewStrides(copy.sizes, copy.strides, sizes);
          if (copyStrides === null) throw new SchedulingError(`reshape producing T${out.name}: its copy's strides [${copy.strides.join(', ')}] cannot be viewed either`);
          layouts.set(out, { input: copy.input, sizes, strides: copyStrides, offset: 0 });
          break;
        }
        if (strides === null) {
          throw new SchedulingError(
            `reshape producing T${out.name}: sizes [${src.sizes.join(', ')}] with strides [${src.strides.join(', ')}] cannot be viewed as [${sizes.join(', ')}] without a copy`,
          );
        }
        view(sizes, strides);
        break;
      }
      default:
        throw new SchedulingError(`${e.kind} producing T${out.name} is not a view`);
    }
  }
  return layouts;
}
