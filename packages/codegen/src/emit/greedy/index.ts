// Emits a greedy segment's kernel (one scan, sort or scatter) from its parameters: the kernel text
// (kernels.ts), the helpers (runtime.ts) after the common runtime library, and the parameter
// list the argument packer and the executor read: every segment input, then every output, in
// order (as buildSignature does for lowered kernels), used or not.

import type { Fusion, TensorView, Val } from '@tsfuser/fusion-ir';
import { scatterScalarSource, type GreedyParams } from '@tsfuser/scheduler';
import { LoweringError } from '../../errors.js';
import type { KernelParam } from '../../kernel-ir/nodes.js';
import { withCLinkage } from '../cuda.js';
import { storageType } from '../types.js';
import { runtimeLibrary } from '../runtime/index.js';
import { bitonicKernel, scanKernel, serialScanKernel, warpTopKKernel, type GreedyTensors } from './kernels.js';
import { scatterKernel, scatterScalarArgument, scatterScalarLiteral, type ScatterTensors } from './scatter-kernel.js';

export interface GreedyKernelText {
  /** The kernel alone (the cuda_kernel dump). */
  kernel: string;
  /** Runtime helpers + greedy helpers + kernel. */
  source: string;
  params: KernelParam[];
  sharedMemBytes: number;
}

function outputAt(fusion: Fusion, position: number | null): TensorView | null {
  if (position === null) return null;
  const v = fusion.outputs[position];
  if (v === undefined || v.kind !== 'tensorView') throw new LoweringError(`greedy kernel: output ${position} is not a tensor`);
  return v;
}

export function emitGreedyKernel(fusion: Fusion, p: GreedyParams, name: string): GreedyKernelText {
  const { params, parameters } = kernelParameters(fusion);
  let kernel: string;
  const k = p.kernel;
  if (k.kind === 'scatter') {
    kernel = scatterKernel(name, p, k, scatterTensors(fusion, p, parameters));
  } else {
    kernel = scanOrSortKernel(fusion, p, name, parameters);
  }
  const source = `${runtimeLibrary(p.indexType, { scanSort: true })}\n// ---- kernel ----\n${withCLinkage(kernel)}`;
  return { kernel, source, params, sharedMemBytes: 0 };
}

/** The kernel's parameters: every segment input, then every output. */
function kernelParameters(fusion: Fusion): { params: KernelParam[]; parameters: string } {
  const params: KernelParam[] = [];
  const declarations: string[] = [];
  const declare = (v: Val, role: 'input' | 'output', position: number): void => {
    if (v.kind === 'tensorView') {
      const rank = v.domain.logicalNoReductions().length;
      params.push({ kind: 'tensor', name: `T${v.name}`, dtype: v.dtype, rank, role, position });
      declarations.push(`Tensor<${storageType(v.dtype)}, ${rank}> T${v.name}`);
    } else if (v.kind === 'scalar' && role === 'input') {
      params.push({ kind: 'scalar', name: v.symbolicName(), dtype: v.dtype, role, position });
      declarations.push(`${storageType(v.dtype)} ${v.symbolicName()}`);
    } else {
      throw new LoweringError(`greedy kernel: ${role} ${position} is not a tensor or scalar input`);
    }
  };
  fusion.inputs.forEach((v, i) => declare(v, 'input', i));
  fusion.outputs.forEach((v, i) => declare(v, 'output', i));
  return { params, parameters: declarations.join(', ') };
}

function scatterTensors(fusion: Fusion, p: GreedyParams, parameters: string): ScatterTensors {
  const op = fusion.exprs().find((e) => e.kind === 'ScatterOp' || e.kind === 'IndexPutAccumulateOp');
  if (op === undefined) throw new LoweringError('greedy kernel: the scatter segment has no scatter or index_put_accumulate');
  const out = outputAt(fusion, p.valuesOutput);
  if (out === null) throw new LoweringError('greedy kernel: a scatter segment must output the scatter');
  const index = op.kind === 'ScatterOp' ? op.indexTv() : op.indexTv();
  const src = op.kind === 'ScatterOp' ? op.src() : op.valueTv();
  let scalar: string | null = null;
  if (src.kind === 'scalar') {
    const s = scatterScalarSource(fusion, src, out.dtype);
    if (s === null) throw new LoweringError('greedy kernel: the scalar src is neither a constant nor a segment input');
    if (s.kind === 'constant' && typeof s.value === 'object') throw new LoweringError('greedy kernel: a complex scalar src is not supported by scatter kernels');
    scalar = s.kind === 'constant' ? scatterScalarLiteral(s.value as number | bigint | boolean, out.dtype) : scatterScalarArgument(s.scalar.symbolicName(), s.scalar.dtype, out.dtype);
  }
  return { out: `T${out.name}`, index: `T${index.name}`, src: src.kind === 'tensorView' ? `T${src.name}` : null, scalar, parameters };
}

function scanOrSortKernel(fusion: Fusion, p: GreedyParams, name: string, parameters: string): string {
  const op = fusion.exprs().find((e) => e.kind === 'ScanOp' || e.kind === 'ArgsortOp' || e.kind === 'TopKOp');
  if (op === undefined) throw new LoweringError('greedy kernel: the segment has no scan or sort');
  const input = op.inputs[0] as TensorView;
  const inputPosition = fusion.inputs.indexOf(input);
  if (inputPosition < 0) throw new LoweringError(`greedy kernel: T${input.name} is not a segment input`);
  const values = outputAt(fusion, p.valuesOutput);
  const indices = outputAt(fusion, p.indicesOutput);
  const tensors: GreedyTensors = {
    input: `T${input.name}`,
    values: values === null ? null : `T${values.name}`,
    indices: indices === null ? null : `T${indices.name}`,
    parameters,
  };
  let kernel: string;
  const k = p.kernel;
  switch (k.kind) {
    case 'scan':
      if (values === null) throw new LoweringError('greedy kernel: a scan segment must output the scan');
      kernel = scanKernel(name, p, k, tensors);
      break;
    case 'serial_scan':
      if (values === null) throw new LoweringError('greedy kernel: a scan segment must output the scan');
      kernel = serialScanKernel(name, p, k, tensors);
      break;
    case 'bitonic':
      kernel = bitonicKernel(name, p, k, tensors);
      break;
    case 'warp_topk':
      kernel = warpTopKKernel(name, p, k, tensors);
      break;
    case 'scatter':
      throw new LoweringError('greedy kernel: scatter parameters for a scan or sort segment');
    default: {
      const unreachable: never = k;
      throw new LoweringError(`unknown greedy kernel ${String(unreachable)}`);
    }
  }
  return kernel;
}
