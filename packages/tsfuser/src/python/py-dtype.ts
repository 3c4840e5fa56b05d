// A dtype value while a definition is interpreted (`DataType.Half`, `torch.float16`), kept apart
// from python strings: `dtype="Float"` is a string, not a dtype, in nvFuser as here.
//
// Invariant: a PyDtype always holds a tsfuser DataType; DataType.Null evaluates to None instead.

import type { DataType } from '@tsfuser/fusion-ir';

export class PyDtype {
  constructor(readonly dtype: DataType) {}
}

/** The DataType of a dtype argument: undefined when absent or None, null when not a dtype. */
export function dtypeArgument(v: unknown): DataType | undefined | null {
  if (v === undefined || v === null) return undefined;
  return v instanceof PyDtype ? v.dtype : null;
}
