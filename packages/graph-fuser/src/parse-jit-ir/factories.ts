// Lowerings of the `*_like` tensor factories (aten::zeros_like, ones_like, full_like): a tensor
// of the input's shape holding one value, in `dtype` or the input's dtype. They are built as
// where(x == x, v, v) cast to the dtype — a pointwise op over x that every scheduler takes —
// rather than a FullOp, which tsfuser's schedulers do not accept yet. The value is the same on
// both branches, so the result does not depend on x's values (NaNs included), only its shape.
// Layout, device (CUDA only), pin_memory and memory_format must be None or defaults.

import { cast, eq, where, type DataType, type Operand, type TensorView } from '@tsfuser/fusion-ir';
import type { NodeArgs, StaticArgs } from './args.js';
import { dataTypeOfCode } from './dtypes.js';
import type { OpTableSection } from './op-entry.js';
import { out } from './operands.js';
import type { JitVal } from './values.js';

const LIKE_OPTIONS = 'ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None';

function dtypeOf(args: NodeArgs, x: TensorView): DataType {
  if (args.isNone('dtype')) return x.dtype;
  const d = dataTypeOfCode(args.int('dtype'));
  return d.dtype ?? args.fail(d.error);
}

function fillLike(args: NodeArgs, value: Operand): JitVal[] {
  const x = args.tensor('self');
  const filled = where(eq(x, x), value, value) as TensorView;
  return out(cast(filled, dtypeOf(args, x)));
}

function checkLike(a: StaticArgs): string | null {
  const dtype = a.get('dtype');
  if (dtype !== null && dtype.kind === 'int') {
    const d = dataTypeOfCode(Number(dtype.value));
    if (d.error !== undefined) return d.error;
  }
  const device = a.get('device');
  if (device !== null && device.kind === 'device' && !device.text.startsWith('cuda')) return 'a factory on a non-CUDA device leaves the fusion';
  if (!a.isNone('layout') && a.get('layout')?.kind !== 'int') return 'only the default (strided) layout is fused';
  return null;
}

const CONSTANTS = ['dtype', 'layout', 'device', 'pin_memory', 'memory_format'];

export const FACTORY_OPS: OpTableSection = {
  'aten::zeros_like': {
    schemas: [`aten::zeros_like(Tensor self, *, ${LIKE_OPTIONS}) -> Tensor`],
    constants: CONSTANTS,
    check: checkLike,
    lower: (args) => fillLike(args, 0),
  },
  'aten::ones_like': {
    schemas: [`aten::ones_like(Tensor self, *, ${LIKE_OPTIONS}) -> Tensor`],
    constants: CONSTANTS,
    check: checkLike,
    lower: (args) => fillLike(args, 1),
  },
  'aten::full_like': {
    schemas: [`aten::full_like(Tensor self, Scalar fill_value, *, ${LIKE_OPTIONS}) -> Tensor`],
    constants: CONSTANTS,
    check: checkLike,
    lower: (args) => fillLike(args, args.operand('fill_value')),
  },
};
