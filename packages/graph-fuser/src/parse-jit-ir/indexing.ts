// Lowerings of the indexing ops: aten::index_select(self, dim, index), aten::gather(self, dim,
// index, sparse_grad=False) and aten::embedding(weight, indices, padding_idx, scale_grad_by_freq,
// sparse) — the forward pass, where padding_idx, scale_grad_by_freq and sparse change nothing
// (they shape the gradient), so they lower to embeddingFwd with padding_idx when it is ≥ 0. The
// dim must be a compile-time constant; index tensors must be integral (checked by the op).

import { embeddingFwd, gather, indexSelect } from '@tsfuser/fusion-ir';
import type { NodeArgs, StaticArgs } from './args.js';
import type { OpTableSection } from './op-entry.js';
import { out } from './operands.js';
import type { JitVal } from './values.js';

function lowerEmbedding(args: NodeArgs): JitVal[] {
  const padding = args.has('padding_idx') ? args.int('padding_idx') : -1;
  return out(embeddingFwd(args.tensor('indices'), args.tensor('weight'), { paddingIdx: padding >= 0 ? padding : null }));
}

function checkGather(a: StaticArgs): string | null {
  return a.bool('sparse_grad') === true ? 'gather with sparse_grad=True (a sparse gradient) is not fused' : null;
}

export const INDEXING_OPS: OpTableSection = {
  'aten::index_select': {
    schemas: ['aten::index_select(Tensor self, int dim, Tensor index) -> Tensor'],
    constants: ['dim'],
    lower: (args) => out(indexSelect(args.tensor('self'), args.int('dim'), args.tensor('index'))),
  },
  'aten::gather': {
    schemas: ['aten::gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor'],
    constants: ['dim', 'sparse_grad'],
    check: checkGather,
    lower: (args) => out(gather(args.tensor('self'), args.int('dim'), args.tensor('index'))),
  },
  'aten::embedding': {
    schemas: ['aten::embedding(Tensor weight, Tensor indices, int padding_idx=-1, bool scale_grad_by_freq=False, bool sparse=False) -> Tensor'],
    constants: ['padding_idx', 'scale_grad_by_freq', 'sparse'],
    lower: lowerEmbedding,
  },
};
