// Emission of kernel IR `IndexedLoad` statements: the index read once into a 64-bit local,
// wrapped when negative for select, checked against the lookup dim's size, then the lookup
// element at the computed offset. An index outside [0, size) executes `__trap()`, so the
// launch fails with a CUDA error instead of reading outside the tensor — PyTorch's kernels do
// the same with a device-side assert. Either way the CUDA context is unusable afterwards. A
// vectorized load (width > 1) moves `width` consecutive elements with loadGlobalToLocal.

import { printIndex } from '../kernel-ir/index-expr.js';
import type { Stmt } from '../kernel-ir/nodes.js';
import { computeType, convertTo, storageType, storeAs } from './types.js';

export function indexedLoadLines(s: Extract<Stmt, { kind: 'IndexedLoad' }>, indent: string): string[] {
  const index = s.index.kind === 'tensor' ? `${s.index.tensor}[${printIndex(s.index.index)}]` : s.index.text;
  const extent = `static_cast<long long>(${printIndex(s.extent)})`;
  const lines = [`${indent}{`, `${indent}  long long nvf_index = static_cast<long long>(${index});`];
  if (s.wrapNegative) lines.push(`${indent}  if (nvf_index < 0) nvf_index += ${extent};`);
  lines.push(`${indent}  if (nvf_index < 0 || nvf_index >= ${extent}) __trap(); // ${s.op}: index out of bounds`);
  const value = `${s.lookup.tensor}[${printIndex(s.lookup.index)} + static_cast<nvfuser_index_t>(nvf_index) * ${printIndex(s.stride)}]`;
  if (s.width > 1) {
    lines.push(`${indent}  loadGlobalToLocal<${storageType(s.out.dtype)}, ${s.width}>(&${s.out.tensor}[${printIndex(s.out.index)}], &${value});`, `${indent}}`);
    return lines;
  }
  const ctype = computeType(s.out.dtype);
  const stored = s.out.dtype === s.lookup.dtype ? value : storeAs(convertTo(value, s.lookup.dtype, ctype), ctype, s.out.dtype);
  lines.push(`${indent}  ${s.out.tensor}[${printIndex(s.out.index)}] = ${stored};`, `${indent}}`);
  return lines;
}
