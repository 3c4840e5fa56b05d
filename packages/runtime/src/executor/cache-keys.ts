// The executor cache's two keys. The layout key (sizes, strides, pointer alignment class of each
// tensor argument; the value of each integral scalar, which may be a size) selects a ready launch
// plan; the signature key (dtype, which dims are 0 / 1 / other, stride order, alignment class;
// an integral scalar's value class) selects a segmentation, as nvFuser's input signature does.
// Invariant: equal layout keys mean equal launch plans; equal signature keys mean the same
// segmentation is valid (the heuristics may still differ by size).

import type { Fusion } from '@tsfuser/fusion-ir';
import type { RuntimeInfo } from '@tsfuser/scheduler';
import { Tensor } from '@tsfuser/device';
import { isIntegralScalar, pointerAlignment, type ExecutorArgument } from './runtime-info.js';

function stableOrderKey(strides: readonly number[]): string {
  return strides
    .map((s, d) => [s, d] as const)
    .sort((a, b) => b[0] - a[0] || a[1] - b[1])
    .map(([, d]) => d)
    .join('');
}

/** The launch-plan key of `args` for `fusion`'s inputs. */
export function layoutKey(fusion: Fusion, args: readonly ExecutorArgument[]): string {
  let key = '';
  for (let i = 0; i < args.length; i += 1) {
    const a = args[i];
    const v = fusion.inputs[i];
    if (a instanceof Tensor) key += `${a.sizes.join(',')}/${a.strides.join(',')}/${Math.min(16, pointerAlignment(a.dataPtr))};`;
    // An integral scalar may be a size (a dynamic reshape): its value shapes the launch.
    else if (v !== undefined && v.kind === 'scalar' && isIntegralScalar(v.dtype)) key += `${typeof a}=${String(a)};`;
    else key += `${typeof a};`;
  }
  return key;
}

/** Most layouts whose keys a memo keeps by their numeric signature (more fall back to layoutKey). */
const KNOWN_LAYOUTS = 4096;

/** One layout seen before: its numbers as layoutSignature wrote them, and its key. */
interface KnownLayout {
  signature: Float64Array;
  key: string;
}

/**
 * The layout key of a call's arguments without building its string on a cached call:
 * - the same argument objects as the last call (a Tensor's sizes, strides and pointer never
 *   change; scalars compare by value) reuse the last key;
 * - other arguments (new tensors of a known layout: a pipeline passing one fusion's outputs to
 *   the next) are written as numbers into one reused buffer (layoutSignature: what layoutKey
 *   reads, as numbers) and looked up by a hash of them among the layouts seen before, compared
 *   number by number; only a new layout builds the string.
 * Invariant: keyOf(args) === layoutKey(fusion, args) for every call.
 */
export class LayoutKeyMemo {
  private readonly args: ExecutorArgument[] = [];
  private key = '';
  private scratch = new Float64Array(64);
  private readonly known = new Map<number, KnownLayout[]>();
  private knownCount = 0;
  private readonly integral: readonly boolean[];

  constructor(private readonly fusion: Fusion) {
    this.integral = fusion.inputs.map((v) => v.kind === 'scalar' && isIntegralScalar(v.dtype));
  }

  keyOf(args: readonly ExecutorArgument[]): string {
    const last = this.args;
    let same = last.length === args.length && last.length > 0;
    for (let i = 0; same && i < args.length; i += 1) same = Object.is(args[i], last[i]);
    if (same) return this.key;
    this.key = this.lookUp(args);
    last.length = args.length;
    for (let i = 0; i < args.length; i += 1) last[i] = args[i] as ExecutorArgument;
    return this.key;
  }

  private lookUp(args: readonly ExecutorArgument[]): string {
    const n = this.signature(args);
    if (n < 0) return layoutKey(this.fusion, args);
    const sig = this.scratch;
    let hash = 0x811c9dc5;
    for (let k = 0; k < n; k += 1) {
      const v = sig[k] as number;
      hash = Math.imul(hash ^ (v | 0), 16777619);
      hash = Math.imul(hash ^ ((v / 4294967296) | 0), 16777619);
    }
    const bucket = this.known.get(hash);
    if (bucket !== undefined) {
      for (const entry of bucket) {
        if (entry.signature.length !== n) continue;
        let equal = true;
        for (let k = 0; equal && k < n; k += 1) equal = entry.signature[k] === sig[k];
        if (equal) return entry.key;
      }
    }
    const key = layoutKey(this.fusion, args);
    if (this.knownCount < KNOWN_LAYOUTS) {
      const entry = { signature: sig.slice(0, n), key };
      if (bucket === undefined) this.known.set(hash, [entry]);
      else bucket.push(entry);
      this.knownCount += 1;
    }
    return key;
  }

  /**
   * Writes what layoutKey reads of `args` as numbers into the scratch buffer (per tensor: a tag,
   * rank, sizes, strides, alignment class; per scalar: a tag of its type, and an integral input's
   * value); returns how many, or -1 when a value has no exact number (a bigint beyond 2^53, an
   * integral input given as a non-number).
   */
  private signature(args: readonly ExecutorArgument[]): number {
    let n = 0;
    for (let i = 0; i < args.length; i += 1) {
      const a = args[i];
      if (a instanceof Tensor) {
        const rank = a.sizes.length;
        n = this.reserve(n, 3 + 2 * rank);
        const sig = this.scratch;
        sig[n++] = -1;
        sig[n++] = rank;
        for (let d = 0; d < rank; d += 1) sig[n++] = a.sizes[d] as number;
        for (let d = 0; d < rank; d += 1) sig[n++] = a.strides[d] as number;
        sig[n++] = Math.min(16, pointerAlignment(a.dataPtr));
        continue;
      }
      n = this.reserve(n, 2);
      const sig = this.scratch;
      // Tags of layoutKey's typeof: -2 number, -3 bigint, -4 boolean, -5 object (a Complex); any
      // other value (bad input, refused later) takes the string path.
      const t = typeof a;
      if (t !== 'number' && t !== 'bigint' && t !== 'boolean' && t !== 'object') return -1;
      sig[n++] = t === 'number' ? -2 : t === 'bigint' ? -3 : t === 'boolean' ? -4 : -5;
      if (this.integral[i] !== true) {
        sig[n++] = 0;
        continue;
      }
      // An integral scalar's value is in the key: only when it is an exact number (NaN, ±0 and
      // fractions compare as layoutKey's String() would not: those take the string path).
      const value = typeof a === 'bigint' && a >= -(2n ** 53n) && a <= 2n ** 53n ? Number(a) : typeof a === 'number' ? a : NaN;
      if (!Number.isSafeInteger(value) || Object.is(value, -0)) return -1;
      sig[n++] = value;
    }
    return n;
  }

  /** Grows the scratch buffer so that `more` numbers fit after the first `n`; returns `n`. */
  private reserve(n: number, more: number): number {
    if (n + more > this.scratch.length) {
      const grown = new Float64Array(Math.max(2 * this.scratch.length, n + more));
      grown.set(this.scratch.subarray(0, n));
      this.scratch = grown;
    }
    return n;
  }
}

/** The segmentation key of a call's runtime info. */
export function signatureKey(info: RuntimeInfo): string {
  return info.inputs
    .map((inp) =>
      inp.kind === 'tensor'
        ? `${inp.dtype}[${inp.sizes.map((s) => (s === 1 ? '1' : s === 0 ? '0' : 'n')).join(',')}]o${stableOrderKey(inp.strides)}a${Math.min(16, inp.alignment)}`
        : // One concretization per class of an integral scalar's value (0, 1, other), not per value.
          `${inp.dtype}${inp.value === undefined ? '' : inp.value === 0 ? '=0' : inp.value === 1 ? '=1' : '=n'}`,
    )
    .join(';');
}
