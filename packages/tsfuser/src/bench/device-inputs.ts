// Random inputs for GPU tests and benchmarks: host data of the wanted layout (values suited to
// the dtype and to the op mix: no integer zero divisors), uploaded to the device, optionally
// one element off an aligned address so vectorized paths see a misaligned pointer.

import { HostTensor, allocateStorage, dataTypeSize, isFloatingType, type DataType, type ElementValue } from '@tsfuser/fusion-ir';
import { Tensor, storageSpan, type DeviceContext } from '@tsfuser/device';
import { Random } from '../io/random.js';

export interface DeviceInput {
  /** What the kernel reads (a view when misaligned). */
  tensor: Tensor;
  /** The same values on the host, in the same layout (for the reference evaluator). */
  host: HostTensor;
  /** Storage to dispose after the run. */
  owner: Tensor;
}

function randomValue(dtype: DataType, rng: Random, positive: boolean): ElementValue {
  if (dtype === 'Bool') return rng.uniform() < 0.5;
  if (isFloatingType(dtype)) return positive ? 0.25 + 2 * rng.uniform() : rng.normal() * 2;
  const v = positive ? rng.int(1, 7) : rng.int(-9, 10) || 3;
  return dtype === 'Int' || dtype === 'Index' ? BigInt(v) : v;
}

/** Host tensor with the given layout filled with random values. */
export function randomHost(dtype: DataType, sizes: readonly number[], strides: readonly number[], rng: Random, positive = false): HostTensor {
  const span = storageSpan(sizes, strides);
  const host = new HostTensor(dtype, [...sizes], [...strides], allocateStorage(dtype, span));
  const flat = new HostTensor(dtype, [span], [1], host.data);
  for (let i = 0; i < span; i += 1) flat.setFlat(i, randomValue(dtype, rng, positive));
  return host;
}

/** An integer tensor of `sizes` with values uniform in [0, bound) (indices for lookups). */
export function randomIndices(dtype: DataType, sizes: readonly number[], bound: number, rng: Random): HostTensor {
  const n = sizes.reduce((a, b) => a * b, 1);
  const values = Array.from({ length: n }, () => Math.min(bound - 1, Math.floor(rng.uniform() * bound)));
  return HostTensor.fromValues(dtype, sizes, dtype === 'Int' || dtype === 'Index' ? values.map((v) => BigInt(v)) : values);
}

/** Uploads `host`; with `misalign`, the data starts one element past a 256-byte boundary. */
export function toDeviceInput(device: DeviceContext, host: HostTensor, misalign: boolean): DeviceInput {
  const span = storageSpan(host.sizes, host.strides);
  const offset = misalign ? 1 : 0;
  const owner = Tensor.emptyDevice(device, host.dtype, [span + offset], [1]);
  owner.poison();
  const flat = Tensor.fromHost(new HostTensor(host.dtype, [span], [1], host.data));
  if (span > 0) {
    const staged = flat.toDevice(device);
    device.copyDeviceToDevice(owner.dataPtr + BigInt(offset * dataTypeSize(host.dtype)), staged.dataPtr, staged.storageBytes);
    staged.dispose();
  }
  return { tensor: owner.asStrided(host.sizes, host.strides, offset), host, owner };
}

export { Random };
