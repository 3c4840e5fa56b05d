// Device side of the GPU attention entry: strided 16-bit tensors in device memory (any dim
// order, padded rows, gaps filled with NaN so a read outside a row shows), kernels compiled
// once per name with NVRTC, and launches of @tsfuser/codegen's attention kernel descriptions
// (arguments packed in their parameter order).
//
// Invariant: a `DeviceTensor16` owns its allocation; `values()` reads back the logical
// elements in row-major order of its sizes.

import { bfloat16BitsToNumber, halfBitsToNumber, numberToBFloat16Bits, numberToHalfBits } from '@tsfuser/fusion-ir';
import { packArguments, parameterLayout, type DeviceContext, type KernelFunction } from '@tsfuser/device';
import { kernelArch, orderArguments, tilingTag, type AttentionDtype, type AttentionKernel, type AttentionProblem } from '@tsfuser/codegen';

export type Sizes4 = readonly [number, number, number, number];

/** Strides of a [d0, d1, d2, E] tensor stored with its three outer dims in `order` (outermost first) and rows of `rowStride` elements. */
export function stridesFor(sizes: Sizes4, order: readonly [number, number, number], rowStride: number): [number, number, number, number] {
  const strides: [number, number, number, number] = [0, 0, 0, 1];
  let next = rowStride;
  for (let i = 2; i >= 0; i -= 1) {
    const d = order[i] ?? 0;
    strides[d] = next;
    next *= sizes[d] ?? 1;
  }
  return strides;
}

export function storageElements(sizes: readonly number[], strides: readonly number[]): number {
  if (sizes.some((s) => s === 0)) return 1;
  return 1 + sizes.reduce((acc, s, d) => acc + (s - 1) * (strides[d] ?? 0), 0);
}

export class DeviceTensor16 {
  readonly pointer: bigint;
  private constructor(
    readonly device: DeviceContext,
    readonly dtype: AttentionDtype,
    readonly sizes: Sizes4,
    readonly strides: readonly number[],
    readonly elements: number,
  ) {
    this.pointer = device.malloc(Math.max(2 * elements, 16));
  }

  /** Uploads `values` (logical row-major, already representable in the dtype); gaps get NaN bits. */
  static upload(device: DeviceContext, dtype: AttentionDtype, sizes: Sizes4, strides: readonly number[], values: Float64Array): DeviceTensor16 {
    const t = new DeviceTensor16(device, dtype, sizes, strides, storageElements(sizes, strides));
    const storage = new Uint16Array(t.elements).fill(0xffff);
    const encode = dtype === 'BFloat16' ? numberToBFloat16Bits : numberToHalfBits;
    forEachIndex(sizes, (flat, n, h, l, e) => {
      storage[n * (strides[0] ?? 0) + h * (strides[1] ?? 0) + l * (strides[2] ?? 0) + e * (strides[3] ?? 0)] = encode(values[flat] ?? 0);
    });
    device.copyHostToDevice(t.pointer, storage);
    return t;
  }

  /** An output filled with 0xFFFF (NaN) so an unwritten element shows. */
  static poisoned(device: DeviceContext, dtype: AttentionDtype, sizes: Sizes4, strides: readonly number[]): DeviceTensor16 {
    const t = new DeviceTensor16(device, dtype, sizes, strides, storageElements(sizes, strides));
    device.memsetD8(t.pointer, 0xff, 2 * t.elements);
    return t;
  }

  values(): Float64Array {
    const storage = new Uint16Array(this.elements);
    this.device.copyDeviceToHost(storage, this.pointer);
    const decode = this.dtype === 'BFloat16' ? bfloat16BitsToNumber : halfBitsToNumber;
    const s = this.strides;
    const out = new Float64Array(this.sizes.reduce((a, b) => a * b, 1));
    forEachIndex(this.sizes, (flat, n, h, l, e) => {
      out[flat] = decode(storage[n * (s[0] ?? 0) + h * (s[1] ?? 0) + l * (s[2] ?? 0) + e * (s[3] ?? 0)] ?? 0);
    });
    return out;
  }

  dispose(): void {
    this.device.free(this.pointer);
  }
}

export function forEachIndex(sizes: Sizes4, body: (flat: number, n: number, h: number, l: number, e: number) => void): void {
  const [a, b, c, d] = sizes;
  let flat = 0;
  for (let n = 0; n < a; n += 1) for (let h = 0; h < b; h += 1) for (let l = 0; l < c; l += 1) for (let e = 0; e < d; e += 1) body(flat++, n, h, l, e);
}

/** A float32 device buffer. */
export function floatBuffer(device: DeviceContext, count: number, poison: boolean): bigint {
  const pointer = device.malloc(Math.max(4 * count, 16));
  if (poison) device.memsetD8(pointer, 0xff, 4 * count);
  return pointer;
}

export function readFloats(device: DeviceContext, pointer: bigint, count: number): Float32Array {
  const out = new Float32Array(count);
  if (count > 0) device.copyDeviceToHost(out, pointer);
  return out;
}

/** Kernels compiled once per name and tiling (NVRTC, the device's arch or the kernel's sm_90a), shared-memory limit raised. */
export class KernelCache {
  private readonly functions = new Map<string, KernelFunction>();
  compileMs = 0;
  constructor(private readonly device: DeviceContext) {}

  get(kernel: AttentionKernel): KernelFunction {
    // Every tiling field is in the key: kernels of one variant share the name.
    const key = `${kernel.name}:${tilingTag(kernel.tiling)}`;
    const known = this.functions.get(key);
    if (known !== undefined) return known;
    // The wgmma forward compiles for sm_90a, and only on a 9.0 device (kernelArch throws the reason elsewhere).
    const arch = kernelArch(kernel, this.device.properties.computeCapability, this.device.arch);
    const compiled = this.device.compile(kernel.source, { options: ['--std=c++17'], name: `${kernel.name}.cu`, arch });
    this.compileMs += compiled.compileMs;
    const fn = this.device.loadModule(compiled.cubin).getFunction(kernel.name);
    if (kernel.sharedBytes > 48 * 1024) fn.setMaxDynamicSharedMemory(kernel.sharedBytes);
    this.functions.set(key, fn);
    return fn;
  }

  launch(kernel: AttentionKernel, problem: AttentionProblem, values: Readonly<Record<string, number | bigint>>): void {
    const fn = this.get(kernel);
    const args = packArguments(parameterLayout(kernel.parameters), orderArguments(kernel, values));
    fn.launch({ grid: kernel.grid(problem), block: kernel.block, sharedBytes: kernel.sharedBytes }, args);
  }
}
