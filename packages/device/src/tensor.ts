// Tensor: a strided tensor whose storage lives either in host memory (a fusion-ir HostTensor)
// or in device memory owned by a DeviceContext. Device storage covers exactly the elements the
// strides can reach (1 + Σ (size_i − 1)·stride_i), so non-contiguous layouts survive a round trip.
//
// Device memory is freed by dispose(); a FinalizationRegistry frees it if a Tensor is
// collected undisposed, as a safety net rather than the plan. A new device tensor is registered
// late (deferred-registration.ts: at the next turn of the event loop, or after 64 more): one
// disposed before then — every output of a loop of cached calls — is never registered, which
// was half the host time of such a call (issue 38).

import {
  HostTensor,
  allocateStorage,
  contiguousStrides,
  dataTypeSize,
  isComplexType,
  storageElementCount,
  type DataType,
  type ElementValue,
  type HostStorage,
} from '@tsfuser/fusion-ir';
import type { DeviceContext } from './device.js';
import type { TensorArgument } from './kernel-arguments.js';
import { DeferredRegistration } from './deferred-registration.js';

interface DeviceStorage {
  device: DeviceContext;
  pointer: bigint;
  bytes: number;
  /** Views borrow their base's memory: disposing a view frees nothing. */
  owned: boolean;
}

const leakedStorage = new FinalizationRegistry<DeviceStorage>((storage) => {
  if (storage.device.isDisposed) return;
  try {
    storage.device.free(storage.pointer);
  } catch {
    // finalizers must not throw; the context's dispose() reclaims what is left
  }
});

/** Elements the strides can reach, from element 0: 0 for an empty tensor. */
export function storageSpan(sizes: readonly number[], strides: readonly number[]): number {
  let span = 1;
  for (let d = 0; d < sizes.length; d += 1) {
    const size = sizes[d] as number;
    const stride = strides[d] as number;
    if (size === 0) return 0;
    if (stride < 0) throw new RangeError(`negative stride ${stride} in dimension ${d} is not supported`);
    span += (size - 1) * stride;
  }
  return span;
}

/**
 * Elements an allocation of this layout holds: storageSpan, except that a stride-0 dim never
 * empties it. An expanded broadcast (stride 0) whose expanded extent is 0 still has its base's
 * elements behind it — PyTorch's `base.expand(30, 0)` keeps base's storage, and nvFuser allocates
 * an expanded output un-expanded, then expands it — so a kernel that writes the base (a row sum
 * written once per row, expanded over an empty dim) stays inside the allocation.
 */
export function allocationSpan(sizes: readonly number[], strides: readonly number[]): number {
  return storageSpan(sizes.map((size, d) => (size === 0 && strides[d] === 0 ? 1 : size)), strides);
}

/** A device tensor's layout, checked once (Tensor.deviceLayout). */
export interface DeviceLayout {
  readonly dtype: DataType;
  readonly sizes: readonly number[];
  readonly strides: readonly number[];
  /** Bytes of storage the strides reach. */
  readonly bytes: number;
}

function numelOf(sizes: readonly number[]): number {
  return sizes.reduce((a, b) => a * b, 1);
}

function validateShape(sizes: readonly number[], strides: readonly number[]): void {
  if (sizes.length !== strides.length) throw new RangeError(`${sizes.length} sizes but ${strides.length} strides`);
  for (const size of sizes) {
    if (!Number.isInteger(size) || size < 0) throw new RangeError(`invalid size ${size} in [${sizes.join(', ')}]`);
  }
}

function isTypedStorage(data: unknown): data is HostStorage {
  return ArrayBuffer.isView(data) && !(data instanceof DataView);
}

export class Tensor {
  /** Registers owned device tensors with leakedStorage late; skips those disposed meanwhile. */
  private static readonly leakGuard = new DeferredRegistration<Tensor>((t) => {
    if (t.disposed || t.deviceStorage === undefined) return;
    t.registered = true;
    leakedStorage.register(t, t.deviceStorage, t);
  });

  private host: HostTensor | undefined;
  private deviceStorage: DeviceStorage | undefined;
  private disposed = false;
  /** Registered with leakedStorage (so dispose() unregisters it). */
  private registered = false;

  private constructor(
    readonly dtype: DataType,
    readonly sizes: readonly number[],
    readonly strides: readonly number[],
    storage: { host: HostTensor } | { device: DeviceStorage },
  ) {
    if ('host' in storage) {
      this.host = storage.host;
    } else {
      this.deviceStorage = storage.device;
      if (storage.device.owned) Tensor.leakGuard.add(this);
    }
  }

  /**
   * A contiguous host tensor over `data` (row-major). A typed array must be the dtype's storage
   * class (Float32Array for Float, Uint16Array bit patterns for Half/BFloat16, BigInt64Array for
   * Int/Index…) and is used without copying; plain arrays are converted.
   */
  static from(data: HostStorage | ArrayLike<ElementValue>, shape: readonly number[], dtype: DataType): Tensor {
    const strides = contiguousStrides(shape);
    validateShape(shape, strides);
    const numel = numelOf(shape);
    if (!isTypedStorage(data)) return Tensor.fromHost(HostTensor.fromValues(dtype, shape, data));
    const expected = allocateStorage(dtype, 0).constructor;
    if (data.constructor !== expected) {
      throw new TypeError(`Tensor.from: ${dtype} needs a ${expected.name}, got a ${data.constructor.name}`);
    }
    if (storageElementCount(dtype, data) !== numel) {
      const per = isComplexType(dtype) ? ' (complex: 2 numbers, re and im, per element)' : '';
      throw new RangeError(`Tensor.from: ${data.length} elements for shape [${shape.join(', ')}] (${numel})${per}`);
    }
    return Tensor.fromHost(new HostTensor(dtype, [...shape], strides, data));
  }

  /**
   * A contiguous ComplexFloat / ComplexDouble host tensor from interleaved (re, im) pairs in
   * row-major order: a Float32Array (ComplexFloat) or Float64Array (ComplexDouble) of 2·numel
   * numbers is used without copying, other arrays are copied (and rounded for ComplexFloat).
   */
  static fromComplexInterleaved(data: Float32Array | Float64Array | ArrayLike<number>, shape: readonly number[], dtype: DataType): Tensor {
    if (!isComplexType(dtype)) throw new TypeError(`Tensor.fromComplexInterleaved: ${dtype} is not ComplexFloat or ComplexDouble`);
    const typed = dtype === 'ComplexFloat' ? data instanceof Float32Array : data instanceof Float64Array;
    if (typed) return Tensor.from(data as Float32Array | Float64Array, shape, dtype);
    return Tensor.fromHost(HostTensor.fromComplexInterleaved(dtype, shape, data));
  }

  /** A complex tensor's elements in row-major order as interleaved (re, im) float64 pairs. */
  toComplexInterleaved(): Float64Array {
    return this.toHost().toComplexInterleaved();
  }

  static fromHost(host: HostTensor): Tensor {
    return new Tensor(host.dtype, host.sizes, host.strides, { host });
  }

  /** Uninitialised device storage (poison() it before a kernel is meant to write all of it). */
  static emptyDevice(device: DeviceContext, dtype: DataType, sizes: readonly number[], strides?: readonly number[]): Tensor {
    const layout = strides ?? contiguousStrides(sizes);
    validateShape(sizes, layout);
    const bytes = allocationSpan(sizes, layout) * dataTypeSize(dtype);
    const pointer = device.malloc(Math.max(bytes, 1));
    return new Tensor(dtype, [...sizes], [...layout], { device: { device, pointer, bytes, owned: true } });
  }

  /**
   * A device layout checked once (sizes, strides, bytes; the arrays copied and frozen) for
   * allocating many tensors of it with emptyDeviceOf: a cached launch plan's outputs.
   */
  static deviceLayout(dtype: DataType, sizes: readonly number[], strides?: readonly number[]): DeviceLayout {
    const layout = strides ?? contiguousStrides(sizes);
    validateShape(sizes, layout);
    const bytes = allocationSpan(sizes, layout) * dataTypeSize(dtype);
    return Object.freeze({ dtype, sizes: Object.freeze([...sizes]), strides: Object.freeze([...layout]), bytes });
  }

  /**
   * Uninitialised device storage of a layout made by deviceLayout: nothing is validated or copied
   * again (the tensor shares the layout's frozen sizes and strides), as emptyDevice otherwise.
   */
  static emptyDeviceOf(device: DeviceContext, layout: DeviceLayout): Tensor {
    const pointer = device.malloc(layout.bytes > 1 ? layout.bytes : 1);
    return new Tensor(layout.dtype, layout.sizes, layout.strides, { device: { device, pointer, bytes: layout.bytes, owned: true } });
  }

  /**
   * A tensor of `layout` on the pooled block at `pointer` (DeviceContext.reclaim), or null when
   * that block is not in the pool: the outputs of a CUDA graph replayed at the addresses it was
   * captured with. Owns the block, as emptyDeviceOf's tensors do.
   */
  static reclaimDeviceOf(device: DeviceContext, layout: DeviceLayout, pointer: bigint): Tensor | null {
    if (!device.reclaim(pointer, layout.bytes > 1 ? layout.bytes : 1)) return null;
    return new Tensor(layout.dtype, layout.sizes, layout.strides, { device: { device, pointer, bytes: layout.bytes, owned: true } });
  }

  /**
   * A device tensor over this one's memory starting `elementOffset` elements in (as PyTorch's
   * `as_strided(sizes, strides, offset)`): misaligned and strided inputs for tests and
   * benchmarks. The view does not own memory; the base must outlive it.
   */
  asStrided(sizes: readonly number[], strides: readonly number[], elementOffset = 0): Tensor {
    const base = this.requireDevice('asStrided');
    validateShape(sizes, strides);
    const elementBytes = dataTypeSize(this.dtype);
    const bytes = storageSpan(sizes, strides) * elementBytes;
    if (!Number.isInteger(elementOffset) || elementOffset < 0 || elementOffset * elementBytes + bytes > base.bytes) {
      throw new RangeError(`Tensor.asStrided: offset ${elementOffset} with sizes [${sizes.join(', ')}] and strides [${strides.join(', ')}] reaches outside the ${base.bytes}-byte storage`);
    }
    const pointer = base.pointer + BigInt(elementOffset * elementBytes);
    return new Tensor(this.dtype, [...sizes], [...strides], { device: { device: base.device, pointer, bytes, owned: false } });
  }

  get isDevice(): boolean {
    return this.deviceStorage !== undefined;
  }

  get rank(): number {
    return this.sizes.length;
  }

  get numel(): number {
    return numelOf(this.sizes);
  }

  /** The context owning the storage of a device tensor. */
  get device(): DeviceContext | undefined {
    return this.deviceStorage?.device;
  }

  /** Device address of element 0. */
  get dataPtr(): bigint {
    return this.requireDevice('dataPtr').pointer;
  }

  /** Bytes of storage (device tensors: the allocation's useful size). */
  get storageBytes(): number {
    return this.deviceStorage?.bytes ?? storageSpan(this.sizes, this.strides) * dataTypeSize(this.dtype);
  }

  /** The tensor as a kernel's Tensor<T, N> argument. */
  asKernelArgument(): TensorArgument {
    return { dataPtr: this.dataPtr, sizes: this.sizes, strides: this.strides };
  }

  /** Host copy for device tensors (same sizes and strides); the HostTensor itself for host ones. */
  toHost(): HostTensor {
    this.assertLive();
    if (this.host !== undefined) return this.host;
    const storage = this.requireDevice('toHost');
    // The whole storage: an expanded tensor's allocation may exceed its span (allocationSpan).
    const data = allocateStorage(this.dtype, Math.max(storageSpan(this.sizes, this.strides), storage.bytes / dataTypeSize(this.dtype)));
    storage.device.copyDeviceToHost(data, storage.pointer, { byteCount: storage.bytes });
    return new HostTensor(this.dtype, this.sizes, this.strides, data);
  }

  /**
   * Elements in row-major order: bigint for Int/Index, numbers otherwise (Bool as 0/1). Complex
   * tensors have no such array: read them with toComplexInterleaved().
   */
  toArray(): (number | bigint)[] {
    const host = this.toHost();
    if (isComplexType(this.dtype)) throw new TypeError(`toArray: the tensor is ${this.dtype}; use toComplexInterleaved() for (re, im) pairs`);
    const out = new Array<number | bigint>(host.numel);
    for (let i = 0; i < out.length; i += 1) {
      const value = host.get(i);
      out[i] = typeof value === 'boolean' ? Number(value) : typeof value === 'object' ? value.re : value;
    }
    return out;
  }

  /** A device copy on `device` with the same sizes and strides (a new copy also for device tensors). */
  toDevice(device: DeviceContext): Tensor {
    this.assertLive();
    if (this.deviceStorage !== undefined) {
      const copy = Tensor.emptyDevice(device, this.dtype, this.sizes, this.strides);
      device.copyDeviceToDevice(copy.dataPtr, this.deviceStorage.pointer, this.deviceStorage.bytes);
      return copy;
    }
    let host = this.host as HostTensor; // host tensors always hold one
    if (host.strides.some((stride) => stride < 0)) host = host.contiguous();
    const out = Tensor.emptyDevice(device, this.dtype, host.sizes, host.strides);
    const elementBytes = dataTypeSize(this.dtype);
    device.copyHostToDevice(out.dataPtr, host.data, {
      hostByteOffset: host.offset * elementBytes,
      byteCount: storageSpan(host.sizes, host.strides) * elementBytes,
    });
    return out;
  }

  /** Fills the storage with 0xFF bytes (NaN for floats, -1 for ints) so unwritten outputs show. */
  poison(): void {
    this.assertLive();
    if (this.deviceStorage !== undefined) {
      this.deviceStorage.device.memsetD8(this.deviceStorage.pointer, 0xff, this.deviceStorage.bytes);
      return;
    }
    const host = this.host as HostTensor;
    new Uint8Array(host.data.buffer, host.data.byteOffset, host.data.byteLength).fill(0xff);
  }

  /** Frees device storage now. Idempotent; host tensors just become unusable. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    const storage = this.deviceStorage;
    this.host = undefined;
    this.deviceStorage = undefined;
    if (storage !== undefined && storage.owned) {
      if (this.registered) leakedStorage.unregister(this);
      storage.device.free(storage.pointer);
    }
  }

  private requireDevice(what: string): DeviceStorage {
    this.assertLive();
    if (this.deviceStorage === undefined) throw new Error(`Tensor.${what}: not a device tensor (call toDevice first)`);
    return this.deviceStorage;
  }

  private assertLive(): void {
    if (this.disposed) throw new Error('Tensor: used after dispose()');
  }
}
