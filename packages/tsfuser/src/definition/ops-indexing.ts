// `fd.ops` entries for the indexing ops, with nvFuser's python signatures:
// `index_select(arg, index, dim)`, `select(arg, index, dim)` (index a scalar),
// `gather(arg, index, dim)`, `take_along_axis(arg, index, dim)`, `scatter(arg, index, src, dim)`
// (src a tensor or a scalar), `index_put_accumulate(acc, index, value)` and
// `embedding_fwd(input, weight, padding_idx=None, max_norm=None, norm_type=None,
// scale_grad_by_freq=None, sparse=None)`. The older frontend's `arg1` keyword is an alias. They print
// as nvFuser's records do: select's index and embedding_fwd's options positionally, then `dim=`.

import * as ir from '@tsfuser/fusion-ir';
import type { ScalarHandle, TensorHandle } from './handles.js';
import { op, type OpArgs, type ParamSpec } from './op-spec.js';
import type { Operand } from './ops-pointwise.js';

type Opt = ScalarHandle | number | boolean | null;

const arg: ParamSpec = { name: 'arg', python: 'arg', aliases: ['arg1'], kind: 'tensor' };
const index: ParamSpec = { name: 'index', python: 'index', kind: 'tensor' };
const dim: ParamSpec = { name: 'dim', python: 'dim', kind: 'int' };
const optScalar = (name: string, python: string): ParamSpec => ({ name, python, kind: 'optScalar', default: null, printPositional: true });

function embeddingOptions(a: OpArgs): ir.EmbeddingOptions {
  return { paddingIdx: a.optScalar(2), maxNorm: a.optScalar(3), normType: a.optScalar(4), scaleGradByFreq: a.optScalar(5), sparse: a.optScalar(6) };
}

export const indexingOps = {
  indexSelect: op<(arg: TensorHandle, index: TensorHandle, dim: number) => TensorHandle>({
    name: 'indexSelect',
    python: 'index_select',
    params: [arg, index, dim],
    output: 'tensor',
    apply: (_f, a) => [ir.indexSelect(a.tensor(0), a.int(2), a.tensor(1))],
  }),
  select: op<(arg: TensorHandle, index: ScalarHandle | number, dim: number) => TensorHandle>({
    name: 'select',
    python: 'select',
    params: [arg, { name: 'index', python: 'index', kind: 'scalar', printPositional: true }, dim],
    output: 'tensor',
    apply: (_f, a) => [ir.select(a.tensor(0), a.int(2), a.scalar(1))],
  }),
  gather: op<(arg: TensorHandle, index: TensorHandle, dim: number) => TensorHandle>({
    name: 'gather',
    python: 'gather',
    params: [arg, index, dim],
    output: 'tensor',
    apply: (_f, a) => [ir.gather(a.tensor(0), a.int(2), a.tensor(1))],
  }),
  takeAlongAxis: op<(arg: TensorHandle, index: TensorHandle, dim: number) => TensorHandle>({
    name: 'takeAlongAxis',
    python: 'take_along_axis',
    params: [arg, index, dim],
    output: 'tensor',
    apply: (_f, a) => [ir.takeAlongAxis(a.tensor(0), a.tensor(1), a.int(2))],
  }),
  scatter: op<(arg: TensorHandle, index: TensorHandle, src: Operand, dim: number) => TensorHandle>({
    name: 'scatter',
    python: 'scatter',
    params: [arg, index, { name: 'src', python: 'src', kind: 'operand' }, dim],
    output: 'tensor',
    apply: (_f, a) => [ir.scatter(a.tensor(0), a.int(3), a.tensor(1), a.operand(2))],
  }),
  indexPutAccumulate: op<(acc: TensorHandle, index: TensorHandle, value: TensorHandle) => TensorHandle>({
    name: 'indexPutAccumulate',
    python: 'index_put_accumulate',
    params: [{ name: 'acc', python: 'acc', kind: 'tensor' }, index, { name: 'value', python: 'value', kind: 'tensor' }],
    output: 'tensor',
    apply: (_f, a) => [ir.indexPutAccumulate(a.tensor(0), a.tensor(1), a.tensor(2))],
  }),
  embeddingFwd: op<
    (input: TensorHandle, weight: TensorHandle, paddingIdx?: Opt, maxNorm?: Opt, normType?: Opt, scaleGradByFreq?: Opt, sparse?: Opt) => TensorHandle
  >({
    name: 'embeddingFwd',
    python: 'embedding_fwd',
    params: [
      { name: 'input', python: 'input', kind: 'tensor' },
      { name: 'weight', python: 'weight', kind: 'tensor' },
      optScalar('paddingIdx', 'padding_idx'),
      optScalar('maxNorm', 'max_norm'),
      optScalar('normType', 'norm_type'),
      optScalar('scaleGradByFreq', 'scale_grad_by_freq'),
      optScalar('sparse', 'sparse'),
    ],
    output: 'tensor',
    apply: (_f, a) => [ir.embeddingFwd(a.tensor(0), a.tensor(1), embeddingOptions(a))],
  }),
};
