// The inputs of `tsfuser run`, by priority: --inputs (.npy files and scalar text), --shape
// (generated), the file's own inputs list, generated with default sizes. Every path checks the
// count, tensor vs scalar, dtypes, ranks and strides against the definition and every size
// against the allocation limits before it allocates: a bad entry is one InputMismatchError or
// AllocationLimitError naming the input index (exit 1), never a RangeError or minutes of work.
//
// Scalar text in --inputs, by the definition's dtype (README "CLI inputs"):
//   floating  decimal literals (`2.5`, `-1e-3`, `.5`), `inf`, `-inf`, `+inf`, `nan` (NumPy's and
//             PyTorch's spellings); `Infinity`, hex (`0x10`) and literals that overflow a double
//             (`1e999`) are refused.
//   integral  decimal integers in the dtype's range (int64 read exactly, as a bigint past 2^53).
//   Bool      true, false, True, False, 1, 0.

import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { DataType } from '@tsfuser/fusion-ir';
import { Tensor } from '@tsfuser/device';
import type { InputDescriptor } from '../definition/fusion-definition.js';
import { AllocationLimitError, InputMismatchError } from '../errors.js';
import type { ExecuteInput } from '../execute/backend.js';
import { checkInputCount, checkInputs, checkTensorLayout } from '../execute/input-check.js';
import { checkScalarInput } from '../execute/scalar-check.js';
import { AllocationBudget, DEFAULT_ALLOCATION_LIMITS, formatBytes, type AllocationLimits } from '../io/allocation-limits.js';
import { buildInputs, generateInputs, planTensorSpec, reserveTensorPlan } from '../io/input-generation.js';
import type { InputSpec } from '../io/input-spec.js';
import { NpyError } from '../io/npy.js';
import { NpyFileError, readNpyFile } from '../io/npy-file.js';
import { Random } from '../io/random.js';
import { UsageError } from './console.js';

/** `--shape 16,512,4096`: malformed text is a usage error; a size past 2^53 an AllocationLimitError. */
export function parseShape(text: string): number[] {
  const sizes = text.split(',').map((s) => s.trim());
  return sizes.map((s) => {
    if (!/^\d+$/.test(s)) throw new UsageError(`--shape: '${s}' is not a size (expected e.g. --shape 16,512,4096)`);
    const n = Number(s);
    if (!Number.isSafeInteger(n)) throw new AllocationLimitError(null, `--shape: size ${s} is past 2^53 (no tensor can have it)`);
    return n;
  });
}

const FLOAT_TEXT = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const INT_TEXT = /^[+-]?\d+$/;

function floatFromText(text: string): number | null {
  switch (text) {
    case 'inf':
    case '+inf':
      return Infinity;
    case '-inf':
      return -Infinity;
    case 'nan':
      return NaN;
    default: {
      if (!FLOAT_TEXT.test(text)) return null;
      const v = Number(text);
      return Number.isFinite(v) ? v : null;
    }
  }
}

function scalarText(text: string, dtype: DataType): number | boolean | bigint | null {
  switch (dtype) {
    case 'Bool':
      if (text === 'true' || text === 'True' || text === '1') return true;
      if (text === 'false' || text === 'False' || text === '0') return false;
      return null;
    case 'Int32':
    case 'Int':
    case 'Index':
    case 'UInt64': {
      if (!INT_TEXT.test(text)) return null;
      const v = BigInt(text);
      // Range is checked by checkScalarInput; exact small values stay numbers.
      return Number.isSafeInteger(Number(v)) ? Number(v) : v;
    }
    case 'Half':
    case 'BFloat16':
    case 'Float':
    case 'Double':
    case 'Float8_e4m3fn':
    case 'Float8_e5m2':
    case 'Float8_e8m0fnu':
      return floatFromText(text);
    case 'ComplexFloat':
    case 'ComplexDouble':
      return null; // complex scalars are given through the API (Complex values), not as text
    default: {
      const unreachable: never = dtype;
      throw new Error(`unknown dtype ${String(unreachable)}`);
    }
  }
}

function scalarSyntax(dtype: DataType): string {
  if (dtype === 'Bool') return 'true, false, True, False, 1 or 0';
  if (dtype === 'Int32' || dtype === 'Int' || dtype === 'Index' || dtype === 'UInt64') return 'a decimal integer';
  if (dtype === 'ComplexFloat' || dtype === 'ComplexDouble') return 'nothing: complex scalar inputs are not read from the command line (pass a Complex through the API)';
  return 'a decimal number, inf, -inf or nan';
}

function errorCode(e: unknown): string {
  return e instanceof Error && 'code' in e ? String(e.code) : 'EIO';
}

/** One `--inputs` scalar entry for scalar input `index` (InputMismatchError when it does not parse or fit). */
export function parseScalarInput(text: string, d: InputDescriptor & { kind: 'scalar' }, index: number): number | boolean | bigint {
  const v = scalarText(text, d.dtype);
  if (v === null) {
    const overflow = FLOAT_TEXT.test(text) && !Number.isFinite(Number(text)) ? ' (it overflows a double: write inf)' : '';
    throw new InputMismatchError(index, `${d.name} expects a ${d.dtype} scalar (${scalarSyntax(d.dtype)}), got '${text}'${overflow}`);
  }
  checkScalarInput(index, d, v);
  return v;
}

function loadNpyInput(item: string, d: InputDescriptor & { kind: 'tensor' }, index: number, cwd: string, budget: AllocationBudget): Tensor {
  const path = resolve(cwd, item);
  try {
    const size = statSync(path).size;
    if (size > budget.limits.maxTotalBytes) {
      throw new AllocationLimitError(index, `${item} is ${formatBytes(size)}, more than the limit of ${formatBytes(budget.limits.maxTotalBytes)} for all inputs`);
    }
  } catch (e) {
    if (e instanceof AllocationLimitError) throw e;
    throw new InputMismatchError(index, `cannot read ${item} (${errorCode(e)})`);
  }
  let host;
  try {
    host = readNpyFile(path, d.spec.dtype, budget.limits);
  } catch (e) {
    if (e instanceof NpyFileError) throw new InputMismatchError(index, `cannot read ${item} (${e.code})`);
    if (e instanceof NpyError) throw new InputMismatchError(index, `${item}: ${e.message}`);
    throw e;
  }
  budget.reserve(host.dtype, host.sizes, item, index, host.data.length);
  checkTensorLayout(index, d, host);
  return Tensor.fromHost(host);
}

/** `--inputs a.npy,2.5,true,b.npy` in definition order (an empty list for a definition without inputs). */
export function loadInputFiles(list: string, descriptors: readonly InputDescriptor[], cwd: string, limits: AllocationLimits = DEFAULT_ALLOCATION_LIMITS): ExecuteInput[] {
  const entries = list.trim() === '' ? [] : list.split(',').map((e) => e.trim());
  checkInputCount(descriptors, entries.length);
  const budget = new AllocationBudget(limits);
  return entries.map((item, i): ExecuteInput => {
    const d = descriptors[i] as InputDescriptor;
    const isFile = item.toLowerCase().endsWith('.npy');
    if (d.kind === 'tensor') {
      if (!isFile) throw new InputMismatchError(i, `${d.name} expects a ${d.spec.dtype} tensor (a .npy file), got '${item}'`);
      return loadNpyInput(item, d, i, cwd, budget);
    }
    if (isFile) throw new InputMismatchError(i, `${d.name} expects a ${d.dtype} scalar, got the file ${item}`);
    return parseScalarInput(item, d, i);
  });
}

/**
 * A script's inputs list checked against the definition (count, kinds, dtypes, ranks, strides,
 * scalar values) and the limits, then built: nothing is allocated unless all of it fits.
 */
export function buildFileInputs(descriptors: readonly InputDescriptor[], specs: readonly InputSpec[], rng: Random, limits: AllocationLimits = DEFAULT_ALLOCATION_LIMITS): ExecuteInput[] {
  checkInputCount(descriptors, specs.length);
  const budget = new AllocationBudget(limits);
  specs.forEach((spec, i) => {
    const d = descriptors[i] as InputDescriptor;
    if (spec.kind === 'scalar') {
      if (d.kind === 'tensor') throw new InputMismatchError(i, `${d.name} expects a ${d.spec.dtype} tensor, got the scalar ${String(spec.value)}`);
      checkScalarInput(i, d, spec.value);
      return;
    }
    if (d.kind === 'scalar') throw new InputMismatchError(i, `${d.name} expects a ${d.dtype} scalar, got a tensor (torch.${spec.factory})`);
    // Rank, dtype and strides first: a wrong input is named as such even when it is also huge.
    const plan = planTensorSpec(spec, i);
    checkTensorLayout(i, d, plan.layout);
    reserveTensorPlan(plan, i, budget);
  });
  return buildInputs(specs, rng);
}

export interface InputPlan {
  inputs: ExecuteInput[];
  /** How the inputs were made (printed with the results). */
  source: string;
  /** Generated with default sizes: may be regenerated with uniform sizes if they do not fit. */
  defaultGenerated: boolean;
}

export function planInputs(
  descriptors: readonly InputDescriptor[],
  fileInputs: InputSpec[] | null,
  options: { inputs?: string; shape?: string; seed: number; cwd: string; limits?: AllocationLimits },
): InputPlan {
  const rng = new Random(options.seed);
  const limits = options.limits ?? DEFAULT_ALLOCATION_LIMITS;
  let plan: InputPlan;
  if (options.inputs !== undefined) {
    plan = { inputs: loadInputFiles(options.inputs, descriptors, options.cwd, limits), source: 'from --inputs', defaultGenerated: false };
  } else if (options.shape !== undefined) {
    const inputs = generateInputs(descriptors, rng, parseShape(options.shape), new AllocationBudget(limits));
    plan = { inputs, source: `generated (seed ${options.seed}, sizes ${options.shape})`, defaultGenerated: false };
  } else if (fileInputs !== null) {
    plan = { inputs: buildFileInputs(descriptors, fileInputs, rng, limits), source: `from the file's inputs (seed ${options.seed})`, defaultGenerated: false };
  } else {
    plan = { inputs: generateInputs(descriptors, rng, undefined, new AllocationBudget(limits)), source: `generated (seed ${options.seed}, default sizes)`, defaultGenerated: true };
  }
  checkInputs(descriptors, plan.inputs);
  return plan;
}

/** Fallback when default sizes do not fit the definition's broadcasts: every symbolic dim 8. */
export function uniformInputs(descriptors: readonly InputDescriptor[], seed: number, limits: AllocationLimits = DEFAULT_ALLOCATION_LIMITS): ExecuteInput[] {
  return generateInputs(descriptors, new Random(seed), new Array<number>(8).fill(8), new AllocationBudget(limits));
}
