// The text of every supported compile-side and launch dump (nvFuser's NVFUSER_DUMP names), made
// from one TargetCompilation: the segmentation, heuristics, scheduled IR, kernel IR and CUDA the
// GPU path compiles, the launch plan it runs, and nvcc's PTX / cubin / ptxas log for the target
// architecture. Each dump goes to the sink as its own piece, in DUMP_OPTIONS order.
// Invariant: the text of a dump the GPU executor also prints (segmented_fusion, scheduler_params,
// fusion_ir, fusion_ir_math, kernel_ir, cuda_kernel, launch_param, fusion_ir_segments,
// fusion_ir_presched) is the very string the executor prints for the same plan.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { divisorMagic, type CompiledKernel } from '@tsfuser/codegen';
import { dataTypeSize, printFusion, printMath, type Fusion } from '@tsfuser/fusion-ir';
import { Tensor } from '@tsfuser/device';
import { attentionKernelsToString, occupancyLine, type PlanRef, type PlanStep, type TensorLayout } from '@tsfuser/runtime';
import { heuristicParamsToString } from '@tsfuser/scheduler';
import type { ExecuteInput } from '../execute/backend.js';
import type { TargetCompilation } from './compile-for-target.js';
import { DUMP_OPTIONS } from './dump-options.js';
import { describeSegmenter, describeSchedulerChoices } from './segmenter-log.js';
import { findNvcc, NVCC_MISSING, nvccCompile, NvccError } from './nvcc.js';
import { blocksPerSm, ptxasResources } from './occupancy.js';
import { disassemble, findNvdisasm, NVDISASM_MISSING } from './nvdisasm.js';

export interface RenderOptions {
  /** Directory for cuda_to_file / ptx / cubin files (default: the working directory). */
  directory?: string;
  /** Dumps someone else prints (the GPU executor's own); not rendered here. */
  skip?: ReadonlySet<string>;
  /** nvcc to use; default findNvcc(); null: behave as if none is installed. */
  nvcc?: string | null;
}

/** Renders the requested dumps that have a producer here, in DUMP_OPTIONS order. */
export function renderDumps(c: TargetCompilation, fusion: Fusion, inputs: readonly ExecuteInput[], dumps: ReadonlySet<string>, sink: (text: string) => void, options: RenderOptions = {}): void {
  const kernels = c.plan.steps;
  const each = (f: (k: CompiledKernel) => string): void => {
    for (const s of kernels) sink(f(s.kernel));
  };
  const directory = options.directory ?? process.cwd();
  let nvcc: string | null | undefined = options.nvcc;
  const nvccPath = (): string | null => (nvcc === undefined ? (nvcc = findNvcc()) : nvcc);
  for (const option of DUMP_OPTIONS) {
    const name = option.name;
    if (!dumps.has(name) || options.skip?.has(name) === true) continue;
    if (!option.supported) {
      sink(`${name}: not supported by tsfuser: ${option.reason}\n`);
      continue;
    }
    switch (name) {
      case 'python_definition':
        break; // printed by the definition (CLI, FusionDefinition.execute)
      case 'fusion_ir_original':
        sink(`Fusion IR as defined:\n${printFusion(fusion)}`);
        break;
      case 'fusion_ir_concretized':
        sink(`Fusion IR after concretization:\n${printFusion(fusion)}`);
        break;
      case 'fusion_ir_preseg':
        sink(`Fusion IR after pre-segmenter optimization passes:\n${printFusion(fusion)}`);
        break;
      case 'fusion_ir_presched':
        sink(`Fusion IR before scheduling:\n${printFusion(fusion)}`);
        break;
      case 'segmenter_logging':
        sink(describeSegmenter(c, fusion));
        break;
      case 'segmented_fusion':
        if (c.segments.dumps?.segmentedFusion !== undefined) sink(c.segments.dumps.segmentedFusion);
        break;
      case 'fusion_ir_segments':
        if (c.segments.dumps?.fusionIrSegments !== undefined) sink(c.segments.dumps.fusionIrSegments);
        break;
      case 'scheduler_verbose':
        sink(describeSchedulerChoices(c));
        break;
      case 'scheduler_params':
        each((k) => k.dumps.schedulerParams);
        // then each GEMM segment's cuBLASLt call, as the executor cache prints them
        for (const call of c.compiled.libraryCalls) sink(heuristicParamsToString(call.kernel.params));
        // and each attention segment's parameters with its generated kernels' tiling and launch
        for (const call of c.compiled.attentionCalls) sink(heuristicParamsToString(call.kernel.params) + attentionKernelsToString(call.kernel));
        break;
      case 'fusion_ir':
        each((k) => printFusion(k.scheduledFusion, { transforms: true }));
        break;
      case 'fusion_ir_math':
        each((k) => printMath(k.scheduledFusion));
        break;
      case 'lower_verbose':
        each((k) => (k.dumps.loweringPasses ?? []).map((p) => `After ${p.pass}:\n${p.kernelIr}`).join(''));
        break;
      case 'kernel_ir':
        each((k) => k.dumps.kernelIr);
        break;
      case 'index_type':
        each((k) => `${k.kernelName}: Index type: ${k.indexType === 'Int32' ? 'int' : 'int64_t'}\n`);
        break;
      case 'dynamic_shared_memory':
        each((k) => `${k.kernelName}: dynamic shared memory: ${k.launch.sharedMemBytes} bytes\n`);
        break;
      case 'global_zeroed_memory':
        each((k) => zeroedMemoryText(k));
        break;
      case 'cuda_kernel':
        each((k) => k.dumps.cuda);
        break;
      case 'cuda_full':
        each((k) => `\n======= Codegen output for kernel: ${k.kernelName} =======\n\n${k.source}\n======================================\n\n`);
        break;
      case 'cuda_to_file':
        each((k) => writeDumpFile(directory, `__tmp_${k.kernelName}.cu`, `${k.source}\n`));
        break;
      case 'ptx':
      case 'cubin':
      case 'ptxas_verbose':
        each((k) => nvccDump(name, k, c.target.arch, nvccPath(), directory));
        break;
      case 'sass':
      case 'sass_to_file':
        each((k) => sassDump(name, k, c.target.arch, nvccPath(), directory));
        break;
      case 'occupancy':
        each((k) => occupancyDump(k, c, nvccPath()));
        break;
      case 'launch_param':
        for (const s of kernels) sink(s.kernel.dumps.launchParams);
        break;
      case 'host_ir':
        sink(launchPlanText(c));
        break;
      case 'fusion_args':
        sink(fusionArgsText(c, fusion, inputs));
        break;
      case 'kernel_args':
        for (const s of kernels) sink(kernelArgsText(c, s, inputs));
        break;
      default:
        throw new Error(`dump option '${name}' is marked supported but has no producer`);
    }
  }
}

function writeDumpFile(directory: string, file: string, content: string | Uint8Array): string {
  writeFileSync(join(directory, file), content);
  return `PRINTING: ${file}\n`;
}

function nvccDump(name: 'ptx' | 'cubin' | 'ptxas_verbose', k: CompiledKernel, arch: string, nvcc: string | null, directory: string): string {
  if (nvcc === null) return `${name}: ${k.kernelName}: ${NVCC_MISSING}\n`;
  try {
    if (name === 'ptxas_verbose') return nvccCompile(nvcc, k.source, k.kernelName, arch, 'cubin', true).log;
    const r = nvccCompile(nvcc, k.source, k.kernelName, arch, name);
    return writeDumpFile(directory, `__tmp_${k.kernelName}.${name}`, new Uint8Array(r.output));
  } catch (error) {
    if (!(error instanceof NvccError)) throw error;
    return `${name}: ${error.message}\n`;
  }
}

/** The SASS of each kernel's nvcc cubin, printed (sass) or written to __tmp_<kernel>.sass (sass_to_file). */
function sassDump(name: 'sass' | 'sass_to_file', k: CompiledKernel, arch: string, nvcc: string | null, directory: string): string {
  if (nvcc === null) return `${name}: ${k.kernelName}: ${NVCC_MISSING}\n`;
  const nvdisasm = findNvdisasm(nvcc);
  if (nvdisasm === null) return `${name}: ${k.kernelName}: ${NVDISASM_MISSING}\n`;
  try {
    const cubin = nvccCompile(nvcc, k.source, k.kernelName, arch, 'cubin').output;
    const sass = disassemble(nvdisasm, new Uint8Array(cubin), k.kernelName);
    if (name === 'sass_to_file') return writeDumpFile(directory, `__tmp_${k.kernelName}.sass`, sass);
    return `\n======= SASS of kernel: ${k.kernelName} =======\n${sass}`;
  } catch (error) {
    if (!(error instanceof NvccError)) throw error;
    return `${name}: ${error.message}\n`;
  }
}

/** nvFuser's occupancy line computed from ptxas's resources for the target (no driver here). */
function occupancyDump(k: CompiledKernel, c: TargetCompilation, nvcc: string | null): string {
  if (nvcc === null) return `occupancy: ${k.kernelName}: ${NVCC_MISSING}\n`;
  let log: string;
  try {
    log = nvccCompile(nvcc, k.source, k.kernelName, c.target.arch, 'cubin', true).log;
  } catch (error) {
    if (!(error instanceof NvccError)) throw error;
    return `occupancy: ${error.message}\n`;
  }
  const resources = ptxasResources(log, k.kernelName);
  if (resources === undefined) return `occupancy: ${k.kernelName}: ptxas reported no registers for it\n`;
  const [bx, by, bz] = k.launch.block;
  const threadsPerBlock = bx * by * bz;
  const device = c.target.device;
  const r = blocksPerSm({ threadsPerBlock, dynamicSharedBytes: k.launch.sharedMemBytes, resources }, device);
  if ('unknown' in r) return `occupancy: ${k.kernelName}: ${r.unknown}\n`;
  return occupancyLine({ numSms: device.smCount, blocksPerSm: r.blocks, threadsPerBlock, warpSize: device.warpSize, maxThreadsPerSm: device.maxThreadsPerSm });
}

function zeroedMemoryText(k: CompiledKernel): string {
  if (k.deviceGlobals.length === 0) return `[global zeroed memory] ${k.kernelName}: none\n`;
  return k.deviceGlobals
    .map((g) => `[global zeroed memory] ${k.kernelName}: ${g.name}: ${g.ctype}[${g.size}], ${g.size * ctypeBytes(g.ctype)} bytes (zero at module load; the kernel leaves it zero)\n`)
    .join('');
}

function ctypeBytes(ctype: CompiledKernel['deviceGlobals'][number]['ctype']): number {
  switch (ctype) {
    case 'double':
    case 'long long':
      return 8;
    case 'float':
    case 'unsigned int':
      return 4;
    default: {
      const unreachable: never = ctype;
      throw new Error(`unknown ctype ${String(unreachable)}`);
    }
  }
}

function layoutText(dtype: string, l: TensorLayout): string {
  return `${dtype} [${l.sizes.join(', ')}] (strides = [${l.strides.join(', ')}])`;
}

function refName(r: PlanRef): string {
  switch (r.kind) {
    case 'arg':
      return `arg${r.index}`;
    case 'buffer':
      return `buf${r.index}`;
    case 'view':
      return `view${r.index}`;
    default: {
      const unreachable: never = r;
      throw new Error(`unknown ref ${String(unreachable)}`);
    }
  }
}

function refLayout(c: TargetCompilation, r: PlanRef): TensorLayout | null {
  switch (r.kind) {
    case 'arg': {
      const a = c.args[r.index];
      return a !== undefined && a.kind === 'tensor' ? { sizes: [...a.sizes], strides: [...a.strides] } : null;
    }
    case 'buffer':
      return c.plan.buffers[r.index]?.layout ?? null;
    case 'view':
      return c.plan.views[r.index]?.layout ?? null;
    default: {
      const unreachable: never = r;
      throw new Error(`unknown ref ${String(unreachable)}`);
    }
  }
}

function scalarText(v: ExecuteInput | undefined): string {
  if (v === undefined || v instanceof Tensor) return '?';
  return typeof v === 'bigint' ? `${v}` : String(v);
}

/** nvFuser's host_ir counterpart: the launch plan, one line per segment, buffers and outputs. */
function launchPlanText(c: TargetCompilation): string {
  // FusionExecutor.launch skips a grid with a zero dimension (nothing to compute).
  // An attention call launches its generated kernels (one forward, three backward).
  const launches = c.plan.steps.filter((s) => s.grid.every((g) => g > 0)).length + c.compiled.attentionCalls.reduce((n, a) => n + a.kernel.kernels.length, 0);
  const lines = [`Launch plan (${c.target.device.name}, ${c.target.arch}): ${c.plan.groups.length} segment${c.plan.groups.length === 1 ? '' : 's'}, ${launches} kernel launch${launches === 1 ? '' : 'es'}`];
  c.plan.buffers.forEach((b, i) => lines.push(`  buf${i} = allocate ${layoutText(b.dtype, b.layout)}${c.plan.isOutput[i] === true ? ' (fusion output)' : ' (intermediate, freed after the call)'}`));
  for (const g of c.plan.groups) {
    const step = c.plan.steps.find((s) => s.groupId === g.groupId);
    const group = c.segments.groups[g.groupId];
    if (g.schedulerType === 'expr_eval' && g.reshapeCopies !== undefined) {
      // A reshape no view expresses: its input copied densely by a pointwise kernel, then viewed.
      const copies = c.plan.steps.filter((s) => s.groupId === g.groupId);
      const text = copies.map((s, i) => `${g.reshapeCopies?.[i]?.tensor ?? '?'} copied by ${s.kernel.kernelName} grid (${s.grid.join(', ')}) from ${refName(s.refs[0] as PlanRef)} into ${refName(s.refs[1] as PlanRef)} (${g.reshapeCopies?.[i]?.reason ?? ''})`);
      lines.push(`  segment ${g.groupId} (expr_eval): ${text.join('; ')}; its outputs are views of what it reads and of the copies`);
    } else if (step !== undefined) {
      const ins = step.refs.slice(0, step.inputCount).map(refName).join(', ');
      const outs = step.refs.slice(step.inputCount).map(refName).join(', ');
      const l = step.kernel.launch;
      const what = step.grid.every((g) => g > 0) ? 'launch' : 'no launch (empty grid):';
      lines.push(`  segment ${g.groupId} (${g.schedulerType}): ${what} ${step.kernel.kernelName} grid (${step.grid.join(', ')}) block (${l.block.join(', ')}) smem ${l.sharedMemBytes}; reads ${ins === '' ? 'nothing' : ins}; writes ${outs}`);
    } else if (g.schedulerType === 'matmul') {
      const call = c.compiled.libraryCalls.find((x) => x.groupId === g.groupId);
      const p = call?.kernel.params;
      const refs = (from: number, to?: number): string => (call === undefined ? '?' : call.refs.slice(from, to).map(refName).join(', '));
      const gemm = p === undefined ? 'cuBLASLt GEMM' : `cuBLASLt GEMM m ${p.m} n ${p.n} k ${p.k} batch ${p.batch}, epilogue ${p.epilogue.kind}`;
      lines.push(`  segment ${g.groupId} (matmul): no kernel; ${gemm}; reads ${refs(0, call?.inputCount)}; writes ${refs(call?.inputCount ?? 0)}`);
    } else if (g.schedulerType === 'attention') {
      const call = c.compiled.attentionCalls.find((x) => x.groupId === g.groupId);
      const refs = (from: number, to?: number): string => (call === undefined ? '?' : call.refs.slice(from, to).map(refName).join(', '));
      const launches = call === undefined ? '?' : call.kernel.kernels.map((k) => `${k.name} grid (${k.grid(call.kernel.problem).join(', ')}) block (${k.block.join(', ')}) smem ${k.sharedBytes}`).join(', then ');
      lines.push(`  segment ${g.groupId} (attention): launch ${launches}; reads ${refs(0, call?.inputCount)}; writes ${refs(call?.inputCount ?? 0)}`);
    } else if (g.schedulerType === 'expr_eval') {
      lines.push(`  segment ${g.groupId} (expr_eval): no kernel; its outputs are views of what it reads`);
    } else {
      lines.push(`  segment ${g.groupId} (${g.schedulerType}): no kernel; outputs ${(group?.outputs ?? []).map((v) => `T${v.name}`).join(', ')} are empty`);
    }
  }
  c.plan.views.forEach((v, i) => lines.push(`  view${i} = ${refName(v.base)} as ${layoutText('', v.layout).trim()} from element ${v.offset}`));
  lines.push(`  outputs: ${c.plan.outputs.map((r, i) => `out${i} = ${refName(r)}`).join(', ')}`);
  return `${lines.join('\n')}\n`;
}

function fusionArgsText(c: TargetCompilation, fusion: Fusion, inputs: readonly ExecuteInput[]): string {
  const lines = ['Arguments for fusion0:', 'Inputs:'];
  fusion.inputs.forEach((v, i) => {
    const a = c.args[i];
    if (v.kind === 'tensorView' && a !== undefined && a.kind === 'tensor') lines.push(`  ${layoutText(v.dtype, { sizes: [...a.sizes], strides: [...a.strides] })}`);
    else lines.push(`  ${v.kind === 'scalar' ? v.dtype : 'Double'} ${scalarText(inputs[i])}`);
  });
  lines.push('Outputs:');
  fusion.outputs.forEach((v, i) => {
    const r = c.plan.outputs[i];
    const l = r === undefined ? null : refLayout(c, r);
    lines.push(`  ${l === null || v.kind !== 'tensorView' ? `${v.kind === 'scalar' ? v.dtype : '?'} scalar` : layoutText(v.dtype, l)}`);
  });
  return `${lines.join('\n')}\n`;
}

function kernelArgsText(c: TargetCompilation, step: PlanStep<CompiledKernel>, inputs: readonly ExecuteInput[]): string {
  const k = step.kernel;
  const lines = [`Arguments for kernel ${k.kernelName}:`];
  k.args.slots.forEach((slot, i) => {
    const ref = step.refs[i];
    const p = slot.param;
    const where = `  ${p.role === 'output' ? 'output' : 'input'} ${p.name} (${slot.size} bytes at ${slot.offset}): `;
    if (ref === undefined) {
      lines.push(`${where}?`);
      return;
    }
    const l = refLayout(c, ref);
    if (p.kind === 'tensor' && l !== null) lines.push(`${where}${layoutText(p.dtype, l)} ${refName(ref)}, ${dataTypeSize(p.dtype)}-byte elements`);
    else lines.push(`${where}${p.dtype} ${ref.kind === 'arg' ? scalarText(inputs[ref.index]) : '?'}`);
  });
  // The fast divisors' (magic, shift) words, computed from the sizes they divide by.
  const d = k.args.divisors;
  if (d !== null) {
    const pairs = d.sources.map((src) => {
      const ref = step.refs[src.slot];
      const n = ref === undefined ? undefined : refLayout(c, ref)?.sizes[src.dim];
      if (n === undefined) return `${src.name} = ?`;
      const m = divisorMagic(n);
      return `${src.name} = ${k.args.slots[src.slot]?.param.name ?? '?'} size ${src.dim} = ${n} (magic ${m.magic}, shift ${m.shift})`;
    });
    lines.push(`  divisors ${d.name} (${d.size} bytes at ${d.offset}): ${pairs.join('; ')}`);
  }
  lines.push(`  argument buffer: ${k.args.size} bytes, index type ${k.indexType}`);
  return `${lines.join('\n')}\n`;
}
