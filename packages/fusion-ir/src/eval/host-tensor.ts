// HostTensor: a strided tensor in host memory, the currency of the reference evaluator.
//
// Storage per dtype: Bool → Uint8Array, Int32 → Int32Array, Int/Index → BigInt64Array,
// UInt64 → BigUint64Array,
// Half/BFloat16 → Uint16Array of bit patterns, Float8_* → Uint8Array of bit patterns, Float → Float32Array, Double → Float64Array,
// ComplexFloat → Float32Array and ComplexDouble → Float64Array of interleaved (re, im) pairs.
// Element (i0, i1, …) lives at storage position p = offset + Σ ik * strides[k]: data[p] for real
// types, data[2p] (re) and data[2p + 1] (im) for complex ones (offset and strides count elements).

import { Complex } from '../ir/complex-value.js';
import { isComplexType, type DataType } from '../ir/data-type.js';
import { EvaluationError } from '../ir/errors.js';
import {
  bfloat16BitsToNumber,
  halfBitsToNumber,
  numberToBFloat16Bits,
  numberToHalfBits,
} from './float16.js';
import { float8E4M3FnBitsToNumber, float8E5M2BitsToNumber, float8E8M0FnuBitsToNumber, numberToFloat8E4M3FnBits, numberToFloat8E5M2Bits, numberToFloat8E8M0FnuBits } from './float8.js';
import { gatherRaw } from './strided.js';

export type HostStorage = Uint8Array | Int32Array | BigInt64Array | BigUint64Array | Uint16Array | Float32Array | Float64Array;

/** One element as JS sees it: numbers for floats and Int32, bigint for 64-bit ints, boolean for Bool. */
export type ElementValue = number | bigint | boolean | Complex;

export class HostTensor {
  constructor(
    readonly dtype: DataType,
    readonly sizes: readonly number[],
    readonly strides: readonly number[],
    readonly data: HostStorage,
    readonly offset = 0,
  ) {
    if (sizes.length !== strides.length) {
      throw new RangeError(`HostTensor: ${sizes.length} sizes but ${strides.length} strides`);
    }
  }

  static empty(dtype: DataType, sizes: readonly number[]): HostTensor {
    const numel = sizes.reduce((a, b) => a * b, 1);
    return new HostTensor(dtype, [...sizes], contiguousStrides(sizes), allocateStorage(dtype, numel));
  }

  /** Builds a contiguous tensor from plain values (numbers, bigints or booleans) in row-major order. */
  static fromValues(dtype: DataType, sizes: readonly number[], values: ArrayLike<ElementValue>): HostTensor {
    const t = HostTensor.empty(dtype, sizes);
    if (values.length !== t.numel) {
      throw new RangeError(`HostTensor.fromValues: ${values.length} values for shape [${sizes.join(', ')}]`);
    }
    // Freshly allocated and dense: element i lives at storage position i.
    for (let i = 0; i < values.length; i += 1) writeStorage(dtype, t.data, i, values[i] as ElementValue);
    return t;
  }

  get rank(): number {
    return this.sizes.length;
  }

  get numel(): number {
    return this.sizes.reduce((a, b) => a * b, 1);
  }

  isContiguous(): boolean {
    const expected = contiguousStrides(this.sizes);
    return this.sizes.every((s, i) => s <= 1 || this.strides[i] === expected[i]);
  }

  /** Storage position of the element with row-major linear index `linear`. */
  storageIndex(linear: number): number {
    let rem = linear;
    let pos = this.offset;
    for (let d = this.sizes.length - 1; d >= 0; d -= 1) {
      const size = this.sizes[d] as number;
      const idx = rem % size;
      rem = (rem - idx) / size;
      pos += idx * (this.strides[d] as number);
    }
    return pos;
  }

  /** Element at row-major linear index as a float64 number (ints converted, bools 0/1). */
  getNumber(linear: number): number {
    return storageToNumber(this.dtype, this.data, this.storageIndex(linear));
  }

  /**
   * A contiguous complex tensor from interleaved (re, im) pairs in row-major order (2 numbers per
   * element; ComplexFloat parts are rounded to float32).
   */
  static fromComplexInterleaved(dtype: DataType, sizes: readonly number[], interleaved: ArrayLike<number>): HostTensor {
    if (!isComplexType(dtype)) throw new EvaluationError(`HostTensor.fromComplexInterleaved: ${dtype} is not a complex type`);
    const t = HostTensor.empty(dtype, sizes);
    if (interleaved.length !== 2 * t.numel) {
      throw new RangeError(`HostTensor.fromComplexInterleaved: ${interleaved.length} numbers for shape [${sizes.join(', ')}] (2 per element)`);
    }
    for (let i = 0; i < interleaved.length; i += 1) (t.data as Float32Array | Float64Array)[i] = interleaved[i] as number;
    return t;
  }

  /** All elements of a complex tensor in row-major order as interleaved (re, im) float64 pairs. */
  toComplexInterleaved(): Float64Array {
    if (!isComplexType(this.dtype)) throw new EvaluationError(`toComplexInterleaved: the tensor is ${this.dtype}, not complex`);
    const out = new Float64Array(2 * this.numel);
    const data = this.data as Float32Array | Float64Array;
    for (let i = 0; i < this.numel; i += 1) {
      const p = 2 * this.storageIndex(i);
      out[2 * i] = data[p] as number;
      out[2 * i + 1] = data[p + 1] as number;
    }
    return out;
  }

  /** Element at row-major linear index in its natural JS form (a Complex for complex dtypes). */
  get(linear: number): ElementValue {
    const pos = this.storageIndex(linear);
    switch (this.dtype) {
      case 'ComplexFloat':
      case 'ComplexDouble': {
        const d = this.data as Float32Array | Float64Array;
        return new Complex(d[2 * pos] as number, d[2 * pos + 1] as number);
      }
      case 'Bool':
        return (this.data[pos] as number) !== 0;
      case 'Int':
      case 'Index':
      case 'UInt64':
        return this.data[pos] as bigint;
      default:
        return storageToNumber(this.dtype, this.data, pos);
    }
  }

  /** Writes element `linear` of a contiguous tensor (converting/rounding to the dtype). */
  setFlat(linear: number, value: ElementValue): void {
    writeStorage(this.dtype, this.data, this.storageIndex(linear), value);
  }

  /** All elements in row-major order as float64 numbers. */
  toNumbers(): number[] {
    const out = new Array<number>(this.numel);
    if (this.isDense()) {
      // Skips the per-element index decomposition: large benchmark inputs have tens of millions of elements.
      for (let i = 0; i < out.length; i += 1) out[i] = storageToNumber(this.dtype, this.data, i);
    } else {
      for (let i = 0; i < out.length; i += 1) out[i] = this.getNumber(i);
    }
    return out;
  }

  /** All elements in row-major order as float64 (as toNumbers, without a JS array of tens of millions of numbers). */
  toFloat64Array(): Float64Array {
    const out = new Float64Array(this.numel);
    const dense = this.isDense();
    for (let i = 0; i < out.length; i += 1) out[i] = dense ? storageToNumber(this.dtype, this.data, i) : this.getNumber(i);
    return out;
  }

  /** A contiguous copy (bit-exact: Half/BFloat16 patterns, NaN payloads and −0 are kept). */
  contiguous(): HostTensor {
    return new HostTensor(this.dtype, [...this.sizes], contiguousStrides(this.sizes), gatherRaw(this, this.sizes));
  }

  /** True when the storage is exactly the row-major elements (no offset, no holes, no extra). */
  isDense(): boolean {
    return this.offset === 0 && storageElementCount(this.dtype, this.data) === this.numel && this.isContiguous();
  }
}

export function contiguousStrides(sizes: readonly number[]): number[] {
  const strides = new Array<number>(sizes.length);
  let acc = 1;
  for (let d = sizes.length - 1; d >= 0; d -= 1) {
    strides[d] = acc;
    acc *= Math.max(sizes[d] as number, 1);
  }
  return strides;
}

/** The most elements one typed array may hold in V8 (Node 20+): larger host tensors cannot exist. */
export const MAX_HOST_STORAGE_ELEMENTS = 2 ** 32;

/**
 * Storage for `numel` elements. A count that is negative, not an integer or past
 * MAX_HOST_STORAGE_ELEMENTS is an EvaluationError naming it, never a RangeError from the
 * typed-array constructor (tsfuser applies its smaller documented limits before calling this).
 */
export function allocateStorage(dtype: DataType, numel: number): HostStorage {
  if (!Number.isSafeInteger(numel) || numel < 0) throw new EvaluationError(`cannot allocate a ${dtype} tensor of ${numel} elements: not a valid element count`);
  if (numel > MAX_HOST_STORAGE_ELEMENTS) {
    throw new EvaluationError(`cannot allocate a ${dtype} tensor of ${numel} elements: more than the ${MAX_HOST_STORAGE_ELEMENTS} a host typed array can hold`);
  }
  switch (dtype) {
    case 'Bool':
    case 'Float8_e4m3fn':
    case 'Float8_e5m2':
    case 'Float8_e8m0fnu':
      return new Uint8Array(numel);
    case 'Int32':
      return new Int32Array(numel);
    case 'Int':
    case 'Index':
      return new BigInt64Array(numel);
    case 'UInt64':
      return new BigUint64Array(numel);
    case 'Half':
    case 'BFloat16':
      return new Uint16Array(numel);
    case 'Float':
      return new Float32Array(numel);
    case 'Double':
      return new Float64Array(numel);
    case 'ComplexFloat':
      return new Float32Array(2 * numel);
    case 'ComplexDouble':
      return new Float64Array(2 * numel);
    default: {
      const unreachable: never = dtype;
      throw new Error(`unknown data type ${String(unreachable)}`);
    }
  }
}

/** How many elements `data` holds (complex elements take two slots). */
export function storageElementCount(dtype: DataType, data: HostStorage): number {
  return isComplexType(dtype) ? data.length / 2 : data.length;
}

function storageToNumber(dtype: DataType, data: HostStorage, pos: number): number {
  const raw = data[pos];
  switch (dtype) {
    case 'ComplexFloat':
    case 'ComplexDouble':
      throw new EvaluationError(`a ${dtype} element is no real number: read complex tensors with get() or toComplexInterleaved()`);
    case 'Half':
      return halfBitsToNumber(raw as number);
    case 'BFloat16':
      return bfloat16BitsToNumber(raw as number);
    case 'Float8_e4m3fn':
      return float8E4M3FnBitsToNumber(raw as number);
    case 'Float8_e5m2':
      return float8E5M2BitsToNumber(raw as number);
    case 'Float8_e8m0fnu':
      return float8E8M0FnuBitsToNumber(raw as number);
    case 'Int':
    case 'Index':
    case 'UInt64':
      return Number(raw as bigint);
    default:
      return raw as number;
  }
}

export function writeStorage(dtype: DataType, data: HostStorage, pos: number, value: ElementValue): void {
  switch (dtype) {
    case 'Bool':
      data[pos] = toBoolean(value) ? 1 : 0;
      return;
    case 'Int':
    case 'Index':
      (data as BigInt64Array)[pos] = toBigInt(value);
      return;
    case 'Int32':
      (data as Int32Array)[pos] = Number(toBigInt(value));
      return;
    case 'UInt64':
      // Wraps modulo 2^64, as a C++ conversion to uint64_t does (−1 → 2^64 − 1).
      (data as BigUint64Array)[pos] = BigInt.asUintN(64, toBigInt(value));
      return;
    case 'Half':
      (data as Uint16Array)[pos] = numberToHalfBits(toNumber(value));
      return;
    case 'BFloat16':
      (data as Uint16Array)[pos] = numberToBFloat16Bits(toNumber(value));
      return;
    case 'Float8_e4m3fn':
      (data as Uint8Array)[pos] = numberToFloat8E4M3FnBits(toNumber(value));
      return;
    case 'Float8_e5m2':
      (data as Uint8Array)[pos] = numberToFloat8E5M2Bits(toNumber(value));
      return;
    case 'Float8_e8m0fnu':
      (data as Uint8Array)[pos] = numberToFloat8E8M0FnuBits(toNumber(value));
      return;
    case 'Float':
    case 'Double':
      (data as Float32Array | Float64Array)[pos] = toNumber(value);
      return;
    case 'ComplexFloat':
    case 'ComplexDouble': {
      const d = data as Float32Array | Float64Array;
      d[2 * pos] = value instanceof Complex ? value.re : toNumber(value);
      d[2 * pos + 1] = value instanceof Complex ? value.im : 0;
      return;
    }
    default: {
      const unreachable: never = dtype;
      throw new Error(`unknown data type ${String(unreachable)}`);
    }
  }
}

/** Complex → real keeps the real part (as a cast does: nvFuser and PyTorch discard the imaginary part). */
function toNumber(value: ElementValue): number {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Complex) return value.re;
  return Number(value);
}

function toBoolean(value: ElementValue): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'bigint') return value !== 0n;
  if (value instanceof Complex) return value.re !== 0 || value.im !== 0;
  return value !== 0;
}

/** Float → int conversion truncates toward zero, as a C++ cast does. */
function toBigInt(value: ElementValue): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'boolean') return value ? 1n : 0n;
  if (value instanceof Complex) return Number.isFinite(value.re) ? BigInt(Math.trunc(value.re)) : 0n;
  if (!Number.isFinite(value)) return 0n;
  return BigInt(Math.trunc(value));
}
