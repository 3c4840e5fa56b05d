// Allocation limits for the tensors tsfuser builds on the host (generated inputs, .npy files, a
// repro script's inputs) and for the reference backend's working set. Sizes are checked here
// before anything is allocated, so a huge or malformed shape is one AllocationLimitError with the
// size in its message (and the input index) — never a RangeError from a typed-array constructor,
// never minutes of work that end in an out-of-memory abort.
//
// Defaults (README "Limits"): at most 2^31 − 1 elements per tensor and 4 GiB for all inputs of
// one run together (for the reference backend: 8 bytes per element, the float64 copy it computes
// on). The CLI reads TSFUSER_MAX_ELEMENTS / TSFUSER_MAX_HOST_BYTES to change them.

import { dataTypeSize, type DataType } from '@tsfuser/fusion-ir';
import { AllocationLimitError } from '../errors.js';

export interface AllocationLimits {
  /** Most elements one tensor's storage may hold. */
  readonly maxElements: number;
  /** Most bytes all inputs of one run may take together. */
  readonly maxTotalBytes: number;
  /**
   * Most elements the reference evaluator may compute in one evaluation, all tensors together
   * (default REFERENCE_MAX_ELEMENTS): past it the run would take tens of seconds and GBs.
   */
  readonly maxReferenceElements?: number;
}

export const DEFAULT_ALLOCATION_LIMITS: AllocationLimits = { maxElements: 2 ** 31 - 1, maxTotalBytes: 4 * 2 ** 30 };

/**
 * The reference evaluator's default work limit: 2^28 elements computed in all (about 10 s at the
 * ~35 ns per element it runs at on one core, and 2 GiB of float64 if they were all alive).
 */
export const REFERENCE_MAX_ELEMENTS = 2 ** 28;

/** Bytes per element of the reference evaluator's working copy (it computes in float64). */
export const REFERENCE_BYTES_PER_ELEMENT = 8;

/** `1.5 GiB`, `12 KiB`, `10 bytes`. */
export function formatBytes(bytes: number): string {
  const units = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
  if (bytes < 1024) return `${bytes} bytes`;
  let v = bytes;
  let unit = 'bytes';
  for (const u of units) {
    if (v < 1024) break;
    v /= 1024;
    unit = u;
  }
  return `${v.toFixed(1)} ${unit}`;
}

function positiveLimit(text: string | undefined, name: string, fallback: number): number {
  if (text === undefined || text === '') return fallback;
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || n <= 0) {
    throw new AllocationLimitError(null, `${name} must be a positive integer, got '${text}'`);
  }
  return n;
}

/**
 * Limits with the CLI's overrides from the environment (TSFUSER_MAX_ELEMENTS,
 * TSFUSER_MAX_HOST_BYTES, TSFUSER_MAX_REFERENCE_ELEMENTS).
 */
export function limitsFromEnv(env: Readonly<Record<string, string | undefined>>): AllocationLimits {
  return {
    maxElements: positiveLimit(env['TSFUSER_MAX_ELEMENTS'], 'TSFUSER_MAX_ELEMENTS', DEFAULT_ALLOCATION_LIMITS.maxElements),
    maxTotalBytes: positiveLimit(env['TSFUSER_MAX_HOST_BYTES'], 'TSFUSER_MAX_HOST_BYTES', DEFAULT_ALLOCATION_LIMITS.maxTotalBytes),
    maxReferenceElements: positiveLimit(env['TSFUSER_MAX_REFERENCE_ELEMENTS'], 'TSFUSER_MAX_REFERENCE_ELEMENTS', REFERENCE_MAX_ELEMENTS),
  };
}

/**
 * Exact element count of `sizes` as a bigint, after checking every size is a non-negative safe
 * integer (the product may pass 2^53: it is compared as a bigint, never rounded).
 */
export function exactElementCount(sizes: readonly number[], what: string, inputIndex: number | null): bigint {
  let n = 1n;
  sizes.forEach((s, d) => {
    if (typeof s !== 'number' || !Number.isSafeInteger(s) || s < 0) {
      throw new AllocationLimitError(inputIndex, `${what} size ${String(s)} of dim ${d} is not a size (expected an integer in [0, 2^53))`);
    }
    n *= BigInt(s);
  });
  return n;
}

/** Checks that one tensor of `elements` elements of `dtype` fits the per-tensor limit. */
export function checkTensorElements(elements: bigint, dtype: DataType, what: string, inputIndex: number | null, limits: AllocationLimits): number {
  if (elements > BigInt(limits.maxElements)) {
    const bytes = Number(elements) * dataTypeSize(dtype);
    throw new AllocationLimitError(
      inputIndex,
      `${what} needs ${elements} elements (${formatBytes(bytes)} of ${dtype}), more than the limit of ${limits.maxElements} elements per tensor`,
    );
  }
  return Number(elements);
}

/**
 * The bytes one run's inputs may still take. Each input reserves its storage before it is
 * allocated; the first that does not fit is refused with the running total in the message.
 */
export class AllocationBudget {
  private used = 0;

  constructor(
    readonly limits: AllocationLimits = DEFAULT_ALLOCATION_LIMITS,
    /** Bytes per element counted instead of the dtype's size (the reference backend's float64 copy). */
    private readonly bytesPerElement: number | null = null,
  ) {}

  /** Reserves storage for a tensor of `sizes` (and `storageElements` when larger, as for a strided view). */
  reserve(dtype: DataType, sizes: readonly number[], what: string, inputIndex: number | null, storageElements?: number): number {
    const elements = checkTensorElements(exactElementCount(sizes, what, inputIndex), dtype, what, inputIndex, this.limits);
    return this.reserveElements(dtype, Math.max(elements, storageElements ?? 0), what, inputIndex);
  }

  /** Reserves `elements` elements of storage (already known to be a safe integer). */
  reserveElements(dtype: DataType, elements: number, what: string, inputIndex: number | null): number {
    checkTensorElements(BigInt(elements), dtype, what, inputIndex, this.limits);
    const bytes = elements * (this.bytesPerElement ?? dataTypeSize(dtype));
    if (this.used + bytes > this.limits.maxTotalBytes) {
      throw new AllocationLimitError(
        inputIndex,
        `${what} needs ${formatBytes(bytes)} (${elements} elements of ${dtype}${this.bytesPerElement === null ? '' : `, ${this.bytesPerElement} bytes each on the reference backend`}); ` +
          `with the inputs before it that is ${formatBytes(this.used + bytes)}, more than the limit of ${formatBytes(this.limits.maxTotalBytes)} for all inputs`,
      );
    }
    this.used += bytes;
    return elements;
  }

  get usedBytes(): number {
    return this.used;
  }
}
