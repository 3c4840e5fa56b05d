// CUDA text of the greedy scatter kernel (scheduler greedy/scatter.ts): one thread per update
// point — an element of the index (scatter) or of the value (index_put_accumulate, whose point
// [m, k…] reads index[m]) — decomposed row-major over the point sizes, read through each
// tensor's own strides. The index value is checked against the output's size along `dim`
// (outside [0, size) executes __trap(), PyTorch's device-side check); then scatter stores the
// src element and index_put_accumulate adds the value element with nvfAtomicAdd
// (scatter-runtime.ts). The output buffer already holds a copy of self / acc: the launch plan
// copies it there before this kernel runs.
//
// Invariant: a thread touches only its own point's elements; elements of the output no point
// names keep the copied value; duplicate indices of index_put_accumulate all add (in an
// unspecified order), duplicate indices of scatter leave one of the writers' values.

import type { DataType } from '@tsfuser/fusion-ir';
import type { GreedyParams, GreedyScatterKernel } from '@tsfuser/scheduler';
import { LoweringError } from '../../errors.js';
import { storageType } from '../types.js';

export interface ScatterTensors {
  out: string;
  index: string;
  /** The src / value tensor, or null with `scalar` set (scatter of a scalar). */
  src: string | null;
  /** The scalar src as an expression of the output's storage type. */
  scalar: string | null;
  parameters: string;
}

export function scatterKernel(name: string, p: GreedyParams, k: GreedyScatterKernel, t: ScatterTensors): string {
  const rank = p.rank;
  const pointSize = (d: number): string => (k.accumulate ? (d === 0 ? `${t.index}.logical_size[0]` : `${t.out}.logical_size[${d}]`) : `${t.index}.logical_size[${d}]`);
  const lines: string[] = [];
  lines.push(`__global__ void __launch_bounds__(${k.threads}) ${name}(${t.parameters}) {`);
  const count = Array.from({ length: rank }, (_, d) => `(nvfuser_index_t)${pointSize(d)}`).join(' * ');
  lines.push(`  const nvfuser_index_t nvf_point = (nvfuser_index_t)blockIdx.x * ${k.threads} + threadIdx.x;`);
  lines.push(`  if (nvf_point >= ${count}) return;`);
  lines.push('  nvfuser_index_t nvf_rest = nvf_point;');
  for (let d = rank - 1; d >= 0; d -= 1) {
    lines.push(`  const nvfuser_index_t nvf_c${d} = nvf_rest % ${pointSize(d)};`);
    if (d > 0) lines.push(`  nvf_rest /= ${pointSize(d)};`);
  }
  const indexOffset = k.accumulate ? `nvf_c0 * ${t.index}.alloc_stride[0]` : Array.from({ length: rank }, (_, d) => `nvf_c${d} * ${t.index}.alloc_stride[${d}]`).join(' + ');
  lines.push(`  const long long nvf_index = (long long)${t.index}[${indexOffset}];`);
  lines.push(`  if (nvf_index < 0 || nvf_index >= (long long)${t.out}.logical_size[${p.dim}]) __trap(); // ${p.op}: index out of bounds`);
  const outTerms = Array.from({ length: rank }, (_, d) => (d === p.dim ? `(nvfuser_index_t)nvf_index * ${t.out}.alloc_stride[${d}]` : `nvf_c${d} * ${t.out}.alloc_stride[${d}]`));
  lines.push(`  const nvfuser_index_t nvf_out = ${outTerms.join(' + ')};`);
  let source: string;
  if (t.src !== null) {
    // index_put_accumulate's value may broadcast (size-1 dims read element 0 along them).
    const srcTerms = Array.from({ length: rank }, (_, d) =>
      k.accumulate ? `(${t.src}.logical_size[${d}] == 1 ? (nvfuser_index_t)0 : nvf_c${d} * ${t.src}.alloc_stride[${d}])` : `nvf_c${d} * ${t.src}.alloc_stride[${d}]`,
    );
    source = `${t.src}[${srcTerms.join(' + ')}]`;
  } else if (t.scalar !== null) {
    if (k.accumulate) throw new LoweringError('scatter kernel: index_put_accumulate takes a value tensor, not a scalar');
    source = t.scalar;
  } else {
    throw new LoweringError('scatter kernel: no src');
  }
  if (k.accumulate) lines.push(`  nvfAtomicAdd(&${t.out}[nvf_out], ${source});`);
  else lines.push(`  ${t.out}[nvf_out] = ${source};`);
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

/** A constant scalar src as a value of the output's storage type. */
export function scatterScalarLiteral(value: number | bigint | boolean, dtype: GreedyParams['dtype']): string {
  const T = storageType(dtype);
  switch (dtype) {
    case 'Bool':
      return value === true || (typeof value !== 'boolean' && Number(value) !== 0) ? 'true' : 'false';
    case 'Int':
      // A float constant converts as C++ (and PyTorch's cast) do: toward zero.
      return `(long long)${(typeof value === 'bigint' ? value : BigInt(Math.trunc(Number(value)))).toString()}LL`;
    case 'Int32':
      return `(int)${String(Math.trunc(Number(value)))}`;
    case 'Half':
      return `__double2half(${doubleLiteral(Number(value))})`;
    case 'BFloat16':
      return `__double2bfloat(${doubleLiteral(Number(value))})`;
    case 'Float':
    case 'Double':
      return `(${T})${doubleLiteral(Number(value))}`;
    default:
      throw new LoweringError(`scatter kernel: a ${dtype} scalar src is not supported`);
  }
}

/**
 * A scalar kernel argument `name` of dtype `from` as a value of the output's storage type, as
 * the fusion's cast converts it (C++'s conversions: floats round to nearest, toward zero into
 * integers; Half / BFloat16 through double, as their literals are made).
 */
export function scatterScalarArgument(name: string, from: DataType, dtype: GreedyParams['dtype']): string {
  if (from === dtype) return name;
  switch (dtype) {
    case 'Bool':
      return `(${name} != 0)`;
    case 'Int':
      return `(long long)(${name})`;
    case 'Int32':
      return `(int)(${name})`;
    case 'Half':
      return `__double2half((double)(${name}))`;
    case 'BFloat16':
      return `__double2bfloat((double)(${name}))`;
    case 'Float':
    case 'Double':
      return `(${storageType(dtype)})(${name})`;
    default:
      throw new LoweringError(`scatter kernel: a ${dtype} scalar src is not supported`);
  }
}

function doubleLiteral(x: number): string {
  if (Number.isNaN(x)) return 'NVF_NAN';
  if (x === Infinity) return 'NVF_INFINITY';
  if (x === -Infinity) return '(-NVF_INFINITY)';
  return Object.is(x, -0) ? '(-0.0)' : `(${x.toExponential(17)})`;
}
