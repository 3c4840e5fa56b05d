// Test helper: a DeviceContext stand-in whose memory is host bytes, so device tensors really hold
// values (malloc, free and the three copies work; nothing launches). With it a test can run the
// GPU backend's side of execute() — device inputs, device outputs, in-place writes through
// copyDeviceToDevice and copyHostToDevice — on a machine without a GPU.
import type { DeviceContext } from '@tsfuser/device';

export interface MemoryDevice {
  device: DeviceContext;
  /** Allocations not yet freed. */
  live(): number;
}

export function memoryDevice(): MemoryDevice {
  const blocks = new Map<bigint, Uint8Array>();
  let next = 1n << 32n;
  /** The bytes at `pointer` (inside a block: views point into their base's allocation). */
  const at = (pointer: bigint, count: number): Uint8Array => {
    for (const [base, bytes] of blocks) {
      const offset = Number(pointer - base);
      if (pointer >= base && offset + count <= bytes.length) return bytes.subarray(offset, offset + count);
    }
    throw new Error(`memory device: 0x${pointer.toString(16)} (+${count} bytes) is not allocated`);
  };
  const view = (v: ArrayBufferView, offset: number, count: number): Uint8Array => new Uint8Array(v.buffer, v.byteOffset + offset, count);
  const fake = {
    arch: 'sm_90',
    isDisposed: false,
    malloc: (bytes: number | bigint): bigint => {
      const p = next;
      next += ((BigInt(bytes) + 255n) / 256n) * 256n + 256n;
      blocks.set(p, new Uint8Array(Number(bytes)));
      return p;
    },
    free: (pointer: bigint): void => {
      if (!blocks.delete(pointer)) throw new Error(`memory device: free of 0x${pointer.toString(16)}, not a live allocation`);
    },
    copyHostToDevice: (destination: bigint, source: ArrayBufferView, range: { hostByteOffset?: number; byteCount?: number } = {}): void => {
      const offset = range.hostByteOffset ?? 0;
      const count = range.byteCount ?? source.byteLength - offset;
      at(destination, count).set(view(source, offset, count));
    },
    copyDeviceToHost: (destination: ArrayBufferView, source: bigint, range: { hostByteOffset?: number; byteCount?: number } = {}): void => {
      const offset = range.hostByteOffset ?? 0;
      const count = range.byteCount ?? destination.byteLength - offset;
      view(destination, offset, count).set(at(source, count));
    },
    copyDeviceToDevice: (destination: bigint, source: bigint, byteCount: number | bigint): void => {
      const count = Number(byteCount);
      at(destination, count).set(at(source, count).slice());
    },
    memsetD8: (pointer: bigint, value: number, byteCount: number | bigint): void => void at(pointer, Number(byteCount)).fill(value),
  };
  return { device: fake as unknown as DeviceContext, live: () => blocks.size };
}
