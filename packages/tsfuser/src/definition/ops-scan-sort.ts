// `fd.ops` entries for scans and sorts, with nvFuser's python signatures (python_direct/ops.cpp):
// `cumsum(arg, dim, init=None)` (also cumprod, cummin, cummax), `argsort(arg, dim,
// descending=False, stable=False)`, `topk(arg, k, dim=-1, largest=True, sorted=False)` → (values,
// indices).

import * as ir from '@tsfuser/fusion-ir';
import type { ScanOpType } from '@tsfuser/fusion-ir';
import type { ScalarHandle, TensorHandle } from './handles.js';
import { op, type ParamSpec } from './op-spec.js';

const arg: ParamSpec = { name: 'arg', python: 'arg', kind: 'tensor' };
const dim: ParamSpec = { name: 'dim', python: 'dim', kind: 'int' };
const init: ParamSpec = { name: 'init', python: 'init', kind: 'optScalar', default: null };

function scanOp(name: string, python: string, opType: ScanOpType) {
  return op<(arg: TensorHandle, dim: number, init?: ScalarHandle | number | null) => TensorHandle>({
    name,
    python,
    params: [arg, dim, init],
    output: 'tensor',
    apply: (_f, a) => [ir.scan(a.tensor(0), a.int(1), opType, a.optScalar(2))],
  });
}

export const scanSortOps = {
  cumsum: scanOp('cumsum', 'cumsum', 'add'),
  cumprod: scanOp('cumprod', 'cumprod', 'mul'),
  cummin: scanOp('cummin', 'cummin', 'min'),
  cummax: scanOp('cummax', 'cummax', 'max'),
  argsort: op<(arg: TensorHandle, dim: number, descending?: boolean, stable?: boolean) => TensorHandle>({
    name: 'argsort',
    python: 'argsort',
    params: [arg, dim, { name: 'descending', python: 'descending', kind: 'bool', default: false }, { name: 'stable', python: 'stable', kind: 'bool', default: false }],
    output: 'tensor',
    apply: (_f, a) => [ir.argsort(a.tensor(0), a.int(1), a.bool(2), a.bool(3))],
  }),
  topk: op<(arg: TensorHandle, k: ScalarHandle | number, dim?: number, largest?: boolean, sorted?: boolean) => [TensorHandle, TensorHandle]>({
    name: 'topk',
    python: 'topk',
    params: [
      arg,
      { name: 'k', python: 'k', kind: 'scalar' },
      { name: 'dim', python: 'dim', kind: 'int', default: -1 },
      { name: 'largest', python: 'largest', kind: 'bool', default: true },
      { name: 'sorted', python: 'sorted', kind: 'bool', default: false },
    ],
    output: 2,
    outputNames: ['values', 'indices'],
    apply: (_f, a) => {
      const r = ir.topk(a.tensor(0), a.scalar(1), a.int(2), a.bool(3), a.bool(4));
      return [r.values, r.indices];
    },
  }),
};
