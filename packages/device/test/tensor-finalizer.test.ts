// The safety net of device tensors (tensor.ts): a Tensor collected without dispose() has its
// block freed by the FinalizationRegistry; a disposed one is never freed a second time, even when
// its block was handed to another tensor since (dispose() unregisters it). Registration keeps its
// unregister token: without one (a flag on the storage instead) the registry's cells of disposed
// tensors pile up until the event loop runs their cleanup, which cost more GC time than the token
// saved in a loop of cached calls (issue 38, measured on the fake H100). Uses V8's gc() (exposed
// at run time) on a recording device.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { Tensor, type DeviceContext } from '../src/index.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** malloc hands out the last freed block first (as the caching allocator does for one size). */
function recordingDevice(): { device: DeviceContext; frees: bigint[] } {
  const frees: bigint[] = [];
  const pool: bigint[] = [];
  let next = 0x1000n;
  const device = {
    isDisposed: false,
    malloc: (): bigint => pool.pop() ?? (next += 0x100n),
    free: (p: bigint): void => {
      frees.push(p);
      pool.push(p);
    },
  };
  return { device: device as unknown as DeviceContext, frees };
}

async function collect(): Promise<void> {
  for (let i = 0; i < 5; i += 1) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function leak(device: DeviceContext): bigint {
  return Tensor.emptyDevice(device, 'Float', [4]).dataPtr;
}

describe('device tensor finalizer', () => {
  it('frees the block of a tensor collected without dispose', async () => {
    const { device, frees } = recordingDevice();
    const pointer = leak(device);
    await collect();
    expect(frees).toEqual([pointer]);
  });

  it('does not free a disposed tensor again after its block was reused', async () => {
    const { device, frees } = recordingDevice();
    let first: Tensor | null = Tensor.emptyDevice(device, 'Float', [4]);
    const pointer = first.dataPtr;
    first.dispose();
    first = null;
    const second = Tensor.emptyDevice(device, 'Float', [4]);
    expect(second.dataPtr).toBe(pointer);
    await collect();
    // Only the dispose: the block now belongs to `second`, which is still alive.
    expect(frees).toEqual([pointer]);
    second.dispose();
    expect(frees).toEqual([pointer, pointer]);
  });
});
