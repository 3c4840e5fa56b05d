// CUDA text of the greedy kernels (scheduler greedy/params.ts says which and how wide): a row is
// the elements along the op's dim; row r's offset in each tensor comes from decomposing r over
// the other dims (row-major) with that tensor's strides, so any layout is read correctly and a
// row along a non-innermost dim is simply strided. Helpers: runtime.ts.
//
// Invariant: every thread of a block reaches every __syncthreads (row groups past the last row
// run the same loops inactive); a warp-per-row kernel syncs nothing and leaves as a whole warp.

import type { DataType } from '@tsfuser/fusion-ir';
import type { GreedyBitonicKernel, GreedyParams, GreedyScanKernel, GreedySerialScanKernel, GreedyWarpTopKKernel } from '@tsfuser/scheduler';
import { storageType } from '../types.js';

/** The type scans accumulate in and sorts compare in: float for half types, else the dtype. */
export function accType(d: DataType): string {
  if (d === 'Half' || d === 'BFloat16' || d === 'Float') return 'float';
  if (d === 'Double') return 'double';
  if (d === 'Int32') return 'int';
  return 'long long';
}

function load(d: DataType, text: string): string {
  if (d === 'Half') return `__half2float(${text})`;
  if (d === 'BFloat16') return `__bfloat2float(${text})`;
  return text;
}

function store(d: DataType, text: string): string {
  if (d === 'Half') return `__float2half(${text})`;
  if (d === 'BFloat16') return `__float2bfloat(${text})`;
  return text;
}

/** A constant of the accumulation type of `d`. */
export function accLiteral(d: DataType, v: string): string {
  if (accType(d) === 'int' || accType(d) === 'long long') {
    const b = BigInt(v);
    const min = accType(d) === 'int' ? -(2n ** 31n) : -(2n ** 63n);
    const suffix = accType(d) === 'int' ? '' : 'LL';
    return b === min ? `(${String(min + 1n)}${suffix} - 1)` : `${String(b)}${suffix}`;
  }
  const x = Number(v);
  if (Number.isNaN(x)) return 'NVF_NAN';
  if (x === Infinity) return 'NVF_INFINITY';
  if (x === -Infinity) return '(-NVF_INFINITY)';
  const t = x.toExponential(16);
  const text = Object.is(x, -0) ? `(-${t})` : x < 0 ? `(${t})` : t;
  return accType(d) === 'float' ? `(float)${text}` : text;
}

export interface GreedyTensors {
  input: string;
  values: string | null;
  indices: string | null;
  /** The kernel's parameter list: every segment input, then every output (the executor's order). */
  parameters: string;
}

/** Computes `<name>_base` for each tensor from `row` (row-major over the dims other than `dim`). */
function rowBases(p: GreedyParams, tensors: readonly string[], row: string, indent: string): string {
  const lines = tensors.map((t) => `${indent}nvfuser_index_t ${t}_base = 0;`);
  lines.push(`${indent}{`);
  lines.push(`${indent}  nvfuser_index_t r = ${row};`);
  for (let d = p.rank - 1; d >= 0; d -= 1) {
    if (d === p.dim) continue;
    lines.push(`${indent}  {`);
    lines.push(`${indent}    const nvfuser_index_t i = r % ${tensors[0]}.logical_size[${d}];`);
    lines.push(`${indent}    r /= ${tensors[0]}.logical_size[${d}];`);
    for (const t of tensors) lines.push(`${indent}    ${t}_base += i * ${t}.alloc_stride[${d}];`);
    lines.push(`${indent}  }`);
  }
  lines.push(`${indent}}`);
  return lines.join('\n');
}

function rowCount(p: GreedyParams, input: string): string {
  const dims = Array.from({ length: p.rank }, (_, d) => d).filter((d) => d !== p.dim);
  return dims.length === 0 ? '1' : dims.map((d) => `${input}.logical_size[${d}]`).join(' * ');
}

const SCAN_OP_CODE = { add: 0, mul: 1, max: 2, min: 3 } as const;

export function scanKernel(name: string, p: GreedyParams, k: GreedyScanKernel, t: GreedyTensors): string {
  const d = p.dtype;
  const T = storageType(d);
  const Acc = accType(d);
  const out = t.values as string;
  const tpr = k.threadsPerRow;
  const items = k.itemsPerThread;
  const op = SCAN_OP_CODE[k.opType];
  const vec = `${name}_row_vec`;
  const combine = (a: string, b: string): string => `nvfScanCombine<${op}, ${Acc}>(${a}, ${b})`;
  const vecLoad = k.vectorized
    ? `    if (active && first + ${items} <= n) {
      const ${vec} v = *reinterpret_cast<const ${vec}*>(&${t.input}.data[${t.input}_base + first]);
      #pragma unroll
      for (int j = 0; j < ${items}; ++j) x[j] = ${load(d, 'v.v[j]')};
    } else {
      #pragma unroll
      for (int j = 0; j < ${items}; ++j) x[j] = (active && first + j < n) ? (${Acc})${load(d, `${t.input}.data[${t.input}_base + (first + j) * in_s]`)} : (${Acc})0;
    }`
    : `    #pragma unroll
    for (int j = 0; j < ${items}; ++j) x[j] = (active && first + j < n) ? (${Acc})${load(d, `${t.input}.data[${t.input}_base + (first + j) * in_s]`)} : (${Acc})0;`;
  const vecStore = k.vectorized
    ? `    if (active && first + ${items} <= n) {
      ${vec} v;
      #pragma unroll
      for (int j = 0; j < ${items}; ++j) v.v[j] = ${store(d, 'x[j]')};
      *reinterpret_cast<${vec}*>(&${out}.data[${out}_base + first]) = v;
    } else {
      #pragma unroll
      for (int j = 0; j < ${items}; ++j) if (active && first + j < n) ${out}.data[${out}_base + (first + j) * out_s] = ${store(d, 'x[j]')};
    }`
    : `    #pragma unroll
    for (int j = 0; j < ${items}; ++j) if (active && first + j < n) ${out}.data[${out}_base + (first + j) * out_s] = ${store(d, 'x[j]')};`;
  return `${k.vectorized ? `struct alignas(${items * (T === '__half' || T === '__bfloat' ? 2 : d === 'Double' || d === 'Int' ? 8 : 4)}) ${vec} { ${T} v[${items}]; };\n` : ''}${signature(name, t, tpr * k.rowsPerBlock)} {
  __shared__ ${Acc} nvf_warp_totals[${k.rowsPerBlock}][${Math.max(1, tpr / 32)}];
  const nvfuser_index_t row = (nvfuser_index_t)blockIdx.x * ${k.rowsPerBlock} + threadIdx.y;
  const bool active = row < ${rowCount(p, t.input)};
${rowBases(p, [t.input, out], 'active ? row : 0', '  ')}
  const nvfuser_index_t n = ${t.input}.logical_size[${p.dim}];
  const nvfuser_index_t in_s = ${t.input}.alloc_stride[${p.dim}];
  const nvfuser_index_t out_s = ${out}.alloc_stride[${p.dim}];
  ${Acc} carry = ${accLiteral(d, k.init)};
  for (nvfuser_index_t chunk = 0; chunk < n; chunk += ${tpr * items}) {
    const nvfuser_index_t first = chunk + (nvfuser_index_t)threadIdx.x * ${items};
    ${Acc} x[${items}];
${vecLoad}
    #pragma unroll
    for (int j = 1; j < ${items}; ++j) x[j] = ${combine('x[j - 1]', 'x[j]')};
    ${Acc} prefix;
    bool has_prefix;
    const ${Acc} total = nvfRowScanPrefix<${op}, ${tpr}, ${Acc}>(x[${items - 1}], &nvf_warp_totals[threadIdx.y][0], &prefix, &has_prefix);
    #pragma unroll
    for (int j = 0; j < ${items}; ++j) x[j] = ${combine('carry', `(has_prefix ? ${combine('prefix', 'x[j]')} : x[j])`)};
    carry = ${combine('carry', 'total')};
${vecStore}
  }
}
`;
}

export function serialScanKernel(name: string, p: GreedyParams, k: GreedySerialScanKernel, t: GreedyTensors): string {
  const d = p.dtype;
  const Acc = accType(d);
  const out = t.values as string;
  const op = SCAN_OP_CODE[k.opType];
  return `${signature(name, t, k.threads)} {
  const nvfuser_index_t row = (nvfuser_index_t)blockIdx.x * ${k.threads} + threadIdx.x;
  if (row >= ${rowCount(p, t.input)}) return;
${rowBases(p, [t.input, out], 'row', '  ')}
  const nvfuser_index_t n = ${t.input}.logical_size[${p.dim}];
  const nvfuser_index_t in_s = ${t.input}.alloc_stride[${p.dim}];
  const nvfuser_index_t out_s = ${out}.alloc_stride[${p.dim}];
  ${Acc} carry = ${accLiteral(d, k.init)};
  for (nvfuser_index_t i = 0; i < n; ++i) {
    carry = nvfScanCombine<${op}, ${Acc}>(carry, (${Acc})${load(d, `${t.input}.data[${t.input}_base + i * in_s]`)});
    ${out}.data[${out}_base + i * out_s] = ${store(d, 'carry')};
  }
}
`;
}

function signature(name: string, t: GreedyTensors, threads: number): string {
  return `__global__ void __launch_bounds__(${threads}) ${name}(${t.parameters})`;
}

function writeOutputs(p: GreedyParams, t: GreedyTensors, i: string, pos: string, indent: string): string {
  const lines: string[] = [];
  if (t.values !== null) lines.push(`${indent}${t.values}.data[${t.values}_base + ${i} * ${t.values}.alloc_stride[${p.dim}]] = ${t.input}.data[${t.input}_base + (nvfuser_index_t)${pos} * in_s];`);
  if (t.indices !== null) lines.push(`${indent}${t.indices}.data[${t.indices}_base + ${i} * ${t.indices}.alloc_stride[${p.dim}]] = (long long)${pos};`);
  return lines.join('\n');
}

function outputTensors(t: GreedyTensors): string[] {
  return [t.input, ...(t.values === null ? [] : [t.values]), ...(t.indices === null ? [] : [t.indices])];
}

export function bitonicKernel(name: string, p: GreedyParams, k: GreedyBitonicKernel, t: GreedyTensors): string {
  const d = p.dtype;
  const Key = accType(d);
  const P = k.sortSize;
  return `${signature(name, t, k.threads)} {
  __shared__ ${Key} nvf_keys[${P}];
  __shared__ int nvf_idx[${P}];
  const nvfuser_index_t row = blockIdx.x;
${rowBases(p, outputTensors(t), 'row', '  ')}
  const int n = (int)${t.input}.logical_size[${p.dim}];
  const nvfuser_index_t in_s = ${t.input}.alloc_stride[${p.dim}];
  for (int i = threadIdx.x; i < ${P}; i += ${k.threads}) {
    const bool valid = i < n;
    nvf_keys[i] = valid ? (${Key})${load(d, `${t.input}.data[${t.input}_base + (nvfuser_index_t)i * in_s]`)} : (${Key})0;
    nvf_idx[i] = valid ? i : -1;
  }
  __syncthreads();
  nvfBitonicSort<${k.descending}, ${P}, ${k.threads}, ${Key}>(nvf_keys, nvf_idx);
  const int out_n = ${p.op === 'topk' ? k.outputLength : 'n'};
  for (int i = threadIdx.x; i < out_n; i += ${k.threads}) {
    const int pos = nvf_idx[i];
${writeOutputs(p, t, '(nvfuser_index_t)i', 'pos', '    ')}
  }
}
`;
}

export function warpTopKKernel(name: string, p: GreedyParams, k: GreedyWarpTopKKernel, t: GreedyTensors): string {
  const d = p.dtype;
  const Key = accType(d);
  const K = k.kPow2;
  return `${signature(name, t, 32 * k.rowsPerBlock)} {
  const nvfuser_index_t row = (nvfuser_index_t)blockIdx.x * ${k.rowsPerBlock} + threadIdx.y;
  if (row >= ${rowCount(p, t.input)}) return;
${rowBases(p, outputTensors(t), 'row', '  ')}
  const nvfuser_index_t n = ${t.input}.logical_size[${p.dim}];
  const nvfuser_index_t in_s = ${t.input}.alloc_stride[${p.dim}];
  ${Key} kk[${K}];
  int ki[${K}];
  #pragma unroll
  for (int j = 0; j < ${K}; ++j) {
    kk[j] = (${Key})0;
    ki[j] = -1;
  }
  for (nvfuser_index_t i = threadIdx.x; i < n; i += 32) {
    nvfTopKInsert<${k.largest}, ${K}, ${Key}>(kk, ki, (${Key})${load(d, `${t.input}.data[${t.input}_base + i * in_s]`)}, (int)i);
  }
  nvfWarpTopKMerge<${k.largest}, ${K}, ${Key}>(kk, ki);
  #pragma unroll
  for (int j = 0; j < ${k.k}; ++j) {
    if (threadIdx.x == j) {
      const int pos = ki[j];
${writeOutputs(p, t, '(nvfuser_index_t)j', 'pos', '      ')}
    }
  }
}
`;
}
