// Lowerings of view and shape ops: reshape / view / flatten (row-major reinterpretation),
// squeeze / unsqueeze, permute / transpose / t, expand / expand_as, contiguous (a copy), and
// aten::size (extents as Index scalars, usable as sizes or scalar operands). Dims must be
// compile-time constants; sizes may be constants or runtime ints from aten::size.

import {
  broadcast, expand, permute, reshape, set, shape, size, squeeze, transpose, type SizeOperand, type TensorView,
} from '@tsfuser/fusion-ir';
import type { NodeArgs } from './args.js';
import type { OpTableSection } from './op-entry.js';
import { out } from './operands.js';
import { scalarVal, type JitVal } from './values.js';

function normalize(args: NodeArgs, dim: number, rank: number): number {
  if (!Number.isInteger(dim) || dim < -rank || dim >= rank) return args.fail(`dim ${dim} is out of range for rank ${rank}`);
  return dim < 0 ? dim + rank : dim;
}

/** torch.squeeze(x, dims): drops the listed dims that are size 1 (broadcast); others stay. */
function squeezeDims(args: NodeArgs, x: TensorView, dims: readonly number[]): JitVal[] {
  const ids = x.domain.logicalNoReductions();
  const normalized = dims.map((d) => normalize(args, d, Math.max(x.rank(), 1)));
  const drop = normalized.filter((d) => ids[d]?.isBroadcast() === true && ids[d]?.expandedExtent === null);
  return out(drop.length === 0 ? set(x) : squeeze(x, drop));
}

function lowerSqueeze(args: NodeArgs): JitVal[] {
  const x = args.tensor('self');
  if (!args.has('dim')) return squeezeDims(args, x, Array.from({ length: x.rank() }, (_, d) => d));
  return squeezeDims(args, x, args.intList('dim'));
}

function lowerUnsqueeze(args: NodeArgs): JitVal[] {
  const x = args.tensor('self');
  const rank = x.rank() + 1;
  const d = normalize(args, args.int('dim'), rank);
  return out(broadcast(x, Array.from({ length: rank }, (_, i) => i === d)));
}

/** flatten(start, end): merges dims start..end into one (a reshape with their product). */
function lowerFlatten(args: NodeArgs): JitVal[] {
  const x = args.tensor('self');
  if (x.rank() === 0) return out(reshape(x, [1]));
  const start = normalize(args, args.int('start_dim'), x.rank());
  const end = normalize(args, args.int('end_dim'), x.rank());
  if (start > end) return args.fail(`flatten: start_dim ${start} is after end_dim ${end}`);
  if (start === end) return out(set(x));
  const sizes: SizeOperand[] = shape(x);
  return out(reshape(x, [...sizes.slice(0, start), -1, ...sizes.slice(end + 1)]));
}

/** expand(size): leading new dims are added as broadcasts first (torch allows a larger rank). */
function expandTo(args: NodeArgs, x: TensorView, sizes: readonly SizeOperand[]): JitVal[] {
  if (sizes.length < x.rank()) return args.fail(`expand to ${sizes.length} dims is smaller than the tensor's rank ${x.rank()}`);
  const extra = sizes.length - x.rank();
  const widened = extra > 0 ? broadcast(x, Array.from({ length: sizes.length }, (_, d) => d < extra)) : x;
  const ids = widened.domain.logicalNoReductions();
  // A dim that is not a broadcast keeps its size (torch only allows its own size there; symbolic
  // extents cannot be compared here, and the fusion's inputs are guarded).
  const target = sizes.map((s, d): SizeOperand => {
    if (d < extra && s === -1) return args.fail('expand: -1 is not allowed for a new leading dim');
    return ids[d]?.isBroadcast() === true ? s : -1;
  });
  return out(expand(widened, target));
}

function lowerT(args: NodeArgs): JitVal[] {
  const x = args.tensor('self');
  if (x.rank() > 2) return args.fail(`t() expects a tensor of at most 2 dims, got rank ${x.rank()}`);
  return out(x.rank() < 2 ? set(x) : transpose(x, 0, 1));
}

export const SHAPE_OPS: OpTableSection = {
  'aten::reshape': {
    schemas: ['aten::reshape(Tensor(a) self, int[] shape) -> Tensor(a)'],
    lower: (args) => out(reshape(args.tensor('self'), args.sizeList('shape'))),
  },
  'aten::view': {
    schemas: ['aten::view(Tensor(a) self, int[] size) -> Tensor(a)'],
    lower: (args) => out(reshape(args.tensor('self'), args.sizeList('size'))),
  },
  'aten::reshape_as': {
    schemas: ['aten::reshape_as(Tensor(a) self, Tensor other) -> Tensor(a)'],
    lower: (args) => out(reshape(args.tensor('self'), shape(args.tensor('other')))),
  },
  'aten::view_as': {
    schemas: ['aten::view_as(Tensor(a) self, Tensor other) -> Tensor(a)'],
    lower: (args) => out(reshape(args.tensor('self'), shape(args.tensor('other')))),
  },
  'aten::flatten': {
    schemas: ['aten::flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)'],
    constants: ['start_dim', 'end_dim'],
    lower: lowerFlatten,
  },
  'aten::squeeze': {
    schemas: [
      'aten::squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)',
      'aten::squeeze.dims(Tensor(a) self, int[] dim) -> Tensor(a)',
      'aten::squeeze(Tensor(a) self) -> Tensor(a)',
    ],
    constants: ['dim'],
    lower: lowerSqueeze,
  },
  'aten::unsqueeze': {
    schemas: ['aten::unsqueeze(Tensor(a) self, int dim) -> Tensor(a)'],
    constants: ['dim'],
    lower: lowerUnsqueeze,
  },
  'aten::permute': {
    schemas: ['aten::permute(Tensor(a) self, int[] dims) -> Tensor(a)'],
    constants: ['dims'],
    lower: (args) => out(permute(args.tensor('self'), args.intList('dims'))),
  },
  'aten::transpose': {
    schemas: ['aten::transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)'],
    constants: ['dim0', 'dim1'],
    lower: (args) => out(transpose(args.tensor('self'), args.int('dim0'), args.int('dim1'))),
  },
  'aten::t': { schemas: ['aten::t(Tensor(a) self) -> Tensor(a)'], lower: lowerT },
  'aten::expand': {
    schemas: ['aten::expand(Tensor(a) self, int[] size, *, bool implicit=False) -> Tensor(a)'],
    lower: (args) => expandTo(args, args.tensor('self'), args.sizeList('size')),
  },
  'aten::expand_as': {
    schemas: ['aten::expand_as(Tensor(a) self, Tensor other) -> Tensor(a)'],
    lower: (args) => expandTo(args, args.tensor('self'), shape(args.tensor('other'))),
  },
  // The legacy fuser's copy forms of view ops (replaceAliasOpsWithCopy): same results, no alias.
  'prim::reshape_copy': {
    schemas: ['prim::reshape_copy(Tensor self, int[] shape) -> Tensor'],
    lower: (args) => out(reshape(args.tensor('self'), args.sizeList('shape'))),
  },
  'prim::view_copy': {
    schemas: ['prim::view_copy(Tensor self, int[] size) -> Tensor'],
    lower: (args) => out(reshape(args.tensor('self'), args.sizeList('size'))),
  },
  'prim::squeeze_copy': {
    schemas: ['prim::squeeze_copy.dim(Tensor self, int dim) -> Tensor', 'prim::squeeze_copy(Tensor self) -> Tensor'],
    constants: ['dim'],
    lower: lowerSqueeze,
  },
  'prim::unsqueeze_copy': {
    schemas: ['prim::unsqueeze_copy(Tensor self, int dim) -> Tensor'],
    constants: ['dim'],
    lower: lowerUnsqueeze,
  },
  'aten::contiguous': {
    schemas: ['aten::contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) -> Tensor(a)'],
    lower: (args) => out(set(args.tensor('self'))),
  },
  'aten::size': {
    schemas: ['aten::size.int(Tensor self, int dim) -> int', 'aten::size(Tensor self) -> int[]'],
    constants: ['dim'],
    lower: (args): JitVal[] => {
      const x = args.tensor('self');
      if (args.has('dim')) return [scalarVal(size(x, args.int('dim')))];
      return [{ kind: 'list', items: shape(x).map(scalarVal) }];
    },
  },
};
