// Lowerings of scans: aten::cumsum (`dim` constant) to fusion-ir's cumsum (a ScanOp, which the
// greedy scheduler gives a segment of its own). PyTorch's dtype rule: `dtype=` casts the input
// first; without it integral and Bool inputs are summed as Long (torch.cumsum of Int gives Long),
// floating inputs keep their dtype.

import { cast, cumsum, isComplexType, isFloatingType, type DataType } from '@tsfuser/fusion-ir';
import type { NodeArgs, StaticArgs } from './args.js';
import { dataTypeOfCode } from './dtypes.js';
import type { OpTableSection } from './op-entry.js';
import { out } from './operands.js';
import type { JitVal } from './values.js';

const checkDtype = (a: StaticArgs): string | null => {
  const v = a.get('dtype');
  if (v === null || v.kind === 'none') return null;
  if (v.kind !== 'int') return "argument 'dtype' is not a constant dtype";
  return dataTypeOfCode(Number(v.value)).error ?? null;
};

function lowerCumsum(args: NodeArgs): JitVal[] {
  const x = args.tensor('self');
  // A complex input keeps its dtype too (fusion-ir then refuses the scan, naming the dtype).
  let dtype: DataType = isFloatingType(x.dtype) || isComplexType(x.dtype) ? x.dtype : 'Int';
  if (args.has('dtype') && !args.isNone('dtype')) {
    const d = dataTypeOfCode(args.int('dtype'));
    dtype = d.dtype ?? args.fail(d.error);
  }
  return out(cumsum(dtype === x.dtype ? x : cast(x, dtype), args.int('dim')));
}

export const SCAN_OPS: OpTableSection = {
  'aten::cumsum': {
    schemas: ['aten::cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor'],
    constants: ['dim', 'dtype'],
    check: checkDtype,
    lower: lowerCumsum,
  },
};
