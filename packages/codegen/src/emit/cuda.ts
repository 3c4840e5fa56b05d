// Kernel IR → CUDA C++ text: the kernel signature (one Tensor<T, rank, rank> struct per tensor
// argument, scalars by value; the fast divisors' magic numbers last), extents read once (and the
// fast divisors built from them), then the statement tree. Operands are
// converted to the op's compute type (half/bfloat16 compute in float) and results rounded to
// the destination dtype (round-to-nearest-even). `cudaSource` prepends the runtime library.

import { dataTypeSize } from '@tsfuser/fusion-ir';
import { CodegenError } from '../errors.js';
import { printIndex, type IndexExpr } from '../kernel-ir/index-expr.js';
import { DIVISOR_PARAM_NAME, type BulkRowCopy, type ComputeOp, type Kernel, type Operand, type Predicate, type Stmt, type TensorAccess } from '../kernel-ir/nodes.js';
import { binaryExpression, ternaryExpression, unaryExpression } from './op-expressions.js';
import {
  blockReduceCall, blockWelfordCall, deviceGlobalDecls, gridReduceDecl, gridWelfordDecl, reductionInitText, SHARED_MEMORY_DECL, welfordUpdateCall,
} from './reduction.js';
import { gridOuterReduceLines, gridOuterStoreText } from './grid-outer-reduction.js';
import { runtimeLibrary } from './runtime/index.js';
import { RNG_CACHE_DECL, rngStatementText, usesRng } from './rng.js';
import { indexedLoadLines } from './indexed-load.js';
import { computeKind, computeType, convertTo, storageType, storeAs } from './types.js';

function accessText(a: TensorAccess): string {
  return `${a.tensor}[${printIndex(a.index)}]`;
}

function operandText(o: Operand): string {
  return o.kind === 'tensor' ? accessText(o) : o.text;
}

/** The numeric value of a constant scalar operand (`3.0000000000000000e+00`, `3LL`), else null. */
function constantOperandValue(o: Operand | undefined): number | null {
  if (o === undefined || o.kind !== 'scalar') return null;
  const m = /^\(?(?:static_cast<[a-z ]+>\()?\s*(-?[0-9.]+(?:e[+-]?[0-9]+)?)(?:LL|f)?\)?\)?$/.exec(o.text.trim());
  if (m === null) return null;
  const v = Number(m[1]);
  return Number.isFinite(v) ? v : null;
}

/** The right-hand side of a compute statement, in C type `ctype`. */
function computeExpression(op: ComputeOp, operands: readonly Operand[], computeDtype: Operand['dtype']): { text: string; ctype: string } {
  const kind = computeKind(computeDtype);
  let ctype = computeType(computeDtype);
  if (kind === 'bool' && op.family === 'binary') ctype = 'long long';
  const args = operands.map((o, i) => {
    if (op.family === 'ternary' && op.op === 'where' && i === 0) return convertTo(operandText(o), o.dtype, 'bool');
    return convertTo(operandText(o), o.dtype, ctype);
  });
  const [a = '', b = '', c = ''] = args;
  if (kind === 'complex') return complexComputeExpression(op, args, ctype);
  switch (op.family) {
    case 'unary': {
      const text = unaryExpression(op.op, a, kind, ctype);
      const boolResult = ['isfinite', 'isinf', 'isnan', 'isneginf', 'isposinf', 'isreal', 'logical_not', 'signbit'].includes(op.op);
      const typed = kind !== 'float' && !['cast', 'logical_not', 'signbit', 'isfinite', 'isinf', 'isnan', 'isneginf', 'isposinf', 'isreal', 'abs', 'neg', 'relu', 'ceil', 'floor', 'round', 'trunc', 'frac', 'sign', 'bitwise_not'].includes(op.op);
      return { text, ctype: boolResult ? 'bool' : typed ? 'double' : ctype };
    }
    case 'binary': {
      // pow by a constant 2 or 3 as products (as Inductor and nvFuser's simplifier do): powf is
      // dozens of instructions, x*x one, and the result is as accurate.
      if (op.op === 'pow' && kind === 'float') {
        const e = constantOperandValue(operands[1]);
        if (e === 2) return { text: `(${a} * ${a})`, ctype };
        if (e === 3) return { text: `(${a} * ${a} * ${a})`, ctype };
      }
      const cmp = ['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'logical_and', 'logical_or', 'logical_xor'].includes(op.op);
      const viaDouble = kind !== 'float' && ['truediv', 'atan2', 'hypot', 'nextafter', 'copysign'].includes(op.op);
      return { text: binaryExpression(op.op, a, b, kind), ctype: cmp ? 'bool' : viaDouble ? 'double' : ctype };
    }
    case 'ternary':
      return { text: ternaryExpression(op.op, a, b, c, kind), ctype };
    default: {
      const unreachable: never = op;
      throw new CodegenError(`unknown op family ${String(unreachable)}`);
    }
  }
}

/**
 * A compute on complex operands (all converted to the complex ctype): predicates give bool,
 * abs / real / imag the component type, complex(re, im) pairs the real parts of its operands.
 */
function complexComputeExpression(op: ComputeOp, args: readonly string[], ctype: string): { text: string; ctype: string } {
  const [a = '', b = '', c = ''] = args;
  const real = ctype === 'nvf_cfloat' ? 'float' : 'double';
  switch (op.family) {
    case 'unary': {
      const boolResult = ['isfinite', 'isinf', 'isnan', 'isreal'].includes(op.op);
      const realResult = ['abs', 'real', 'imag'].includes(op.op);
      return { text: unaryExpression(op.op, a, 'complex', ctype), ctype: boolResult ? 'bool' : realResult ? real : ctype };
    }
    case 'binary':
      if (op.op === 'complex') return { text: `${ctype}_make((${a}).re, (${b}).re)`, ctype };
      return { text: binaryExpression(op.op, a, b, 'complex'), ctype: op.op === 'eq' || op.op === 'ne' ? 'bool' : ctype };
    case 'ternary':
      return { text: ternaryExpression(op.op, a, b, c, 'complex'), ctype };
    default: {
      const unreachable: never = op;
      throw new CodegenError(`unknown op family ${String(unreachable)}`);
    }
  }
}

function predicateText(predicates: readonly Predicate[]): string {
  return predicates.map((p) => `${printIndex(p.index)} < ${printIndex(p.extent)}`).join(' && ');
}

/** ` && (predicates)` for a guard that already has a condition; empty when there is none. */
function andPredicates(predicates: readonly Predicate[] | undefined): string {
  return predicates === undefined || predicates.length === 0 ? '' : ` && ${predicateText(predicates)}`;
}

function bulkCopyBytes(c: BulkRowCopy): string {
  return `static_cast<unsigned>(${printIndex(c.elements)}) * ${dataTypeSize(c.dtype)}u`;
}

/** A slot of a multi-stage buffer: `base` itself for slot 0 (the one-stage text), else base + slot · step. */
function slotOf(base: string, stage: IndexExpr | undefined, step: number): string {
  if (stage === undefined || (stage.kind === 'const' && stage.value === 0)) return base;
  return step === 1 ? `(${base} + (${printIndex(stage)}))` : `(${base} + (${printIndex(stage)}) * ${step})`;
}

/** `nvfBulkCopyRow(Again)(barrier, buffer, &source, bytes)` of one copy into its slot. */
function bulkCopyCall(fn: string, c: BulkRowCopy): string {
  return `${fn}(${slotOf(`${c.buffer}_barrier`, c.stage, 1)}, ${slotOf(c.buffer, c.stage, c.capacity)}, &${accessText(c.source)}, ${bulkCopyBytes(c)});`;
}

function emitStmts(stmts: readonly Stmt[], indent: string, lines: string[]): void {
  for (const s of stmts) emitStmt(s, indent, lines);
}

function emitStmt(s: Stmt, indent: string, lines: string[]): void {
  switch (s.kind) {
    case 'ForLoop':
      if (s.unroll) lines.push(`${indent}#pragma unroll`);
      lines.push(`${indent}for (nvfuser_index_t ${s.index} = 0; ${s.index} < ${printIndex(s.extent)}; ++${s.index}) {`);
      emitStmts(s.body, `${indent}  `, lines);
      lines.push(`${indent}}`);
      return;
    case 'IfThenElse':
      lines.push(`${indent}if (${predicateText(s.predicates)}) {`);
      emitStmts(s.then, `${indent}  `, lines);
      if (s.else.length > 0) {
        lines.push(`${indent}} else {`);
        emitStmts(s.else, `${indent}  `, lines);
      }
      lines.push(`${indent}}`);
      return;
    case 'Allocate':
      if (s.memory === 'Shared') lines.push(`${indent}__shared__ __align__(16) ${storageType(s.dtype)} ${s.buffer}[${s.size}];`);
      else lines.push(`${indent}Array<${storageType(s.dtype)}, ${s.size}, ${s.align}> ${s.buffer};`);
      return;
    case 'BlockSync':
      lines.push(`${indent}__syncthreads();`);
      return;
    case 'LoadStore': {
      if (s.width > 1) {
        const fn =
          s.in.memory === 'Global'
            ? s.cacheHint === 'evictLast'
              ? 'loadGlobalToLocalEvictLast'
              : s.cacheHint === 'evictLastL2'
                ? 'loadGlobalToLocalEvictLastL2'
                : 'loadGlobalToLocal'
            : s.in.memory === 'Shared'
              ? 'loadSharedToLocal'
              : s.out.memory === 'Global'
                ? 'loadLocalToGlobal'
                : 'loadGeneric';
        lines.push(`${indent}${fn}<${storageType(s.out.dtype)}, ${s.width}>(&${accessText(s.out)}, &${accessText(s.in)});`);
      } else if (s.in.dtype !== s.out.dtype) {
        // A widened accumulator (rFactor partial of a Half/BFloat16 reduction) stored narrower.
        const ctype = computeType(s.out.dtype);
        lines.push(`${indent}${accessText(s.out)} = ${storeAs(convertTo(accessText(s.in), s.in.dtype, ctype), ctype, s.out.dtype)};`);
      } else {
        lines.push(`${indent}${accessText(s.out)} = ${accessText(s.in)};`);
      }
      return;
    }
    case 'ReductionInit':
      lines.push(`${indent}${accessText(s.out)} = ${reductionInitText(s.value.text, s.out.dtype)};`);
      return;
    case 'BlockReduce':
      lines.push(`${indent}${blockReduceCall(s, accessText(s.out), accessText(s.in))};`);
      return;
    case 'GridReduce':
      lines.push(`${indent}${gridReduceDecl(s, accessText(s.out), accessText(s.in))};`);
      return;
    case 'WelfordUpdate':
      lines.push(`${indent}${welfordUpdateCall(s)};`);
      return;
    case 'BlockWelford':
      lines.push(`${indent}${blockWelfordCall(s)};`);
      return;
    case 'GridWelford':
      lines.push(`${indent}${gridWelfordDecl(s)};`);
      return;
    case 'GridOuterStore':
      lines.push(`${indent}${gridOuterStoreText(s)}`);
      return;
    case 'GridOuterReduce':
      for (const l of gridOuterReduceLines(s)) lines.push(`${indent}${l}`);
      return;
    case 'Compute': {
      const { text, ctype } = computeExpression(s.op, s.operands, s.computeDtype);
      lines.push(`${indent}${accessText(s.out)} = ${storeAs(text, ctype, s.out.dtype)};`);
      return;
    }
    case 'Rng':
      lines.push(`${indent}${rngStatementText(s)}`);
      return;
    case 'IndexedLoad':
      lines.push(...indexedLoadLines(s, indent));
      return;
    case 'Iota': {
      // As the reference evaluator: integers in 64 bits, floats in double, rounded on store.
      const ctype = computeKind(s.out.dtype) === 'float' ? 'double' : 'long long';
      const start = convertTo(s.start.text, s.start.dtype, ctype);
      const step = convertTo(s.step.text, s.step.dtype, ctype);
      const text = `(${start} + static_cast<${ctype}>(${printIndex(s.index)}) * ${step})`;
      lines.push(`${indent}${accessText(s.out)} = ${storeAs(text, ctype, s.out.dtype)};`);
      return;
    }
    case 'ScalarCompute': {
      const { text, ctype } = computeExpression(s.op, s.operands, s.computeDtype);
      lines.push(`${indent}const ${storageType(s.dtype)} ${s.name} = ${storeAs(text, ctype, s.dtype)};`);
      return;
    }
    case 'BulkLoadIssue': {
      const at = (offset: number): string => `reinterpret_cast<char*>(nvf_shared_mem) + ${offset}`;
      for (const c of s.copies) {
        const ctype = storageType(c.dtype);
        lines.push(`${indent}${ctype}* ${c.buffer} = reinterpret_cast<${ctype}*>(${at(c.sharedOffset)});`);
        lines.push(`${indent}unsigned long long* ${c.buffer}_barrier = reinterpret_cast<unsigned long long*>(${at(c.barrierOffset)});`);
      }
      lines.push(`${indent}if (threadIdx.x == 0 && threadIdx.y == 0) {`);
      // Every barrier (of every slot) is initialised; only valid rows are copied.
      for (const c of s.copies) {
        const stages = c.stages ?? 1;
        if (stages === 1) lines.push(`${indent}  nvfBulkBarrierInit(${c.buffer}_barrier);`);
        else lines.push(`${indent}  for (int nvf_slot = 0; nvf_slot < ${stages}; ++nvf_slot) nvfBulkBarrierInit(${c.buffer}_barrier + nvf_slot);`);
      }
      for (const group of [{ copies: s.copies, predicates: s.predicates ?? [] }, ...(s.ahead ?? [])]) {
        const guard = group.predicates;
        if (guard.length > 0) lines.push(`${indent}  if (${predicateText(guard)}) {`);
        const copyIndent = guard.length > 0 ? `${indent}    ` : `${indent}  `;
        for (const c of group.copies) lines.push(`${copyIndent}${bulkCopyCall('nvfBulkCopyRow', c)}`);
        if (guard.length > 0) lines.push(`${indent}  }`);
      }
      lines.push(`${indent}}`);
      lines.push(`${indent}__syncthreads();`);
      return;
    }
    case 'BulkLoadReissue':
      lines.push(`${indent}__syncthreads();`);
      lines.push(`${indent}if (threadIdx.x == 0 && threadIdx.y == 0${andPredicates(s.predicates)}) {`);
      for (const c of s.copies) lines.push(`${indent}  ${bulkCopyCall('nvfBulkCopyRowAgain', c)}`);
      lines.push(`${indent}}`);
      return;
    case 'BulkLoadWait': {
      const guard = s.predicates ?? [];
      if (guard.length > 0) lines.push(`${indent}if (${predicateText(guard)}) {`);
      const at = guard.length > 0 ? `${indent}  ` : indent;
      const parity = s.parity === undefined ? '0u' : `static_cast<unsigned>(${printIndex(s.parity)}) & 1u`;
      for (const b of s.buffers) lines.push(`${at}nvfBulkCopyWait(${slotOf(`${b}_barrier`, s.stage, 1)}, ${parity});`);
      if (guard.length > 0) lines.push(`${indent}}`);
      return;
    }
    case 'PendingExpr':
      throw new CodegenError(`an unlowered ${s.expr.kind} reached the emitter`);
    default: {
      const unreachable: never = s;
      throw new CodegenError(`unknown statement ${String(unreachable)}`);
    }
  }
}

/** The kernel function alone (the `cuda_kernel` dump). */
export function emitKernel(kernel: Kernel): string {
  const params = kernel.params.map((p) =>
    p.kind === 'tensor' ? `Tensor<${storageType(p.dtype)}, ${p.rank}, ${p.rank}> ${p.name}` : `${storageType(p.dtype)} ${p.name}`,
  );
  // The fast divisors' (magic, shift) pairs: the last parameter (arguments.ts DivisorArgument).
  if (kernel.divisors.length > 0) params.push(`NvfDivisorMagic<${kernel.divisors.length}> ${DIVISOR_PARAM_NAME}`);
  const lines: string[] = deviceGlobalDecls(kernel.deviceGlobals);
  const bounds = kernel.minBlocksPerSm === undefined ? `${kernel.maxThreadsPerBlock}` : `${kernel.maxThreadsPerBlock}, ${kernel.minBlocksPerSm}`;
  lines.push(`__global__ void __launch_bounds__(${bounds}) ${kernel.name}(${params.join(', ')}) {`);
  for (const l of kernel.indexLocals) lines.push(`  const nvfuser_index_t ${l.name} = ${l.value};`);
  kernel.divisors.forEach((d, k) => lines.push(`  const NvfDivisor ${d.name} = {${d.extent}, ${DIVISOR_PARAM_NAME}.v[${2 * k}], ${DIVISOR_PARAM_NAME}.v[${2 * k + 1}]};`));
  // Bulk copies need 16-byte aligned destinations; other kernels keep the plain declaration.
  if (usesRng(kernel.body)) lines.push(`  ${RNG_CACHE_DECL}`);
  if (kernel.sharedMemBytes > 0) lines.push(`  ${usesBulkCopies(kernel) ? SHARED_MEMORY_DECL.replace('__shared__', '__shared__ __align__(128)') : SHARED_MEMORY_DECL}`);
  emitStmts(kernel.body, '  ', lines);
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

/** Complex values appear in a kernel's text only through the runtime's complex types. */
function usesComplex(kernelText: string): boolean {
  return /nvf_c(float|double)/.test(kernelText);
}

function usesBulkCopies(kernel: Kernel): boolean {
  return kernel.body.some((s) => s.kind === 'BulkLoadIssue');
}

/** Full translation unit: runtime helpers + kernel (what NVRTC or nvcc compiles). */
export function cudaSource(kernel: Kernel): string {
  const text = emitKernel(kernel);
  const runtime = runtimeLibrary(kernel.indexType, { bulkCopies: usesBulkCopies(kernel), rng: usesRng(kernel.body), complex: usesComplex(text), fastDivision: kernel.divisors.length > 0 });
  // C linkage so the driver finds the kernel by its plain name (no NVRTC name expressions).
  return `${runtime}\n// ---- kernel ----\n${withCLinkage(text)}`;
}

/** Gives the kernel function C linkage (after any `__device__` globals declared before it). */
export function withCLinkage(kernelText: string): string {
  return kernelText.replace('__global__ void', 'extern "C" __global__ void');
}
