// Prepared launches (kernel.ts PreparedLaunch, the addon's prepareLaunch / launchPrepared /
// releaseLaunch): the configuration goes to the addon once, each launch passes the id and the
// buffer only; a module's unload releases its prepared launches and a released one refuses to
// launch; an addon built before the entry points makes prepare() answer null (launch() stays).
// On a recording addon; the real addon's argument checks run without a GPU (no CUDA touched).
import { describe, expect, it } from 'vitest';
import { KernelModule, loadAddon, type NativeAddon } from '../src/index.js';

function recordingAddon(withPrepared: boolean): { addon: NativeAddon; calls: unknown[][] } {
  const calls: unknown[][] = [];
  let next = 0;
  const addon: Record<string, unknown> = {
    moduleGetFunction: (): bigint => 0x42n,
    moduleUnload: (): void => void calls.push(['moduleUnload']),
    launchKernel: (...args: unknown[]): void => void calls.push(['launchKernel', ...args]),
  };
  if (withPrepared) {
    addon['prepareLaunch'] = (...args: unknown[]): number => {
      calls.push(['prepareLaunch', ...args]);
      return next++;
    };
    addon['launchPrepared'] = (...args: unknown[]): void => void calls.push(['launchPrepared', ...args]);
    addon['releaseLaunch'] = (id: number): void => void calls.push(['releaseLaunch', id]);
  }
  return { addon: addon as unknown as NativeAddon, calls };
}

describe('prepared launches', () => {
  it('send the configuration once, then only the id and the buffer; unload releases them', () => {
    const { addon, calls } = recordingAddon(true);
    const module = new KernelModule(addon, 0x10n, 7n);
    const fn = module.getFunction('k');
    const bytes = new Uint8Array(24);
    const prepared = fn.prepare({ grid: [3, 2, 1], block: [128, 1, 1], sharedBytes: 64 }, bytes);
    if (prepared === null) throw new Error('the recording addon prepares launches');
    expect(calls).toEqual([['prepareLaunch', 0x42n, 3, 2, 1, 128, 1, 1, 64, 7n, bytes]]);
    expect(prepared.size).toBe(24);
    bytes[0] = 9;
    prepared.launch(bytes);
    prepared.launch(bytes);
    expect(calls.slice(1)).toEqual([
      ['launchPrepared', 0, bytes],
      ['launchPrepared', 0, bytes],
    ]);
    const side = fn.prepare({ grid: 1, block: 32, stream: 11n }, bytes);
    expect(side?.id).toBe(1);
    expect(calls[3]).toEqual(['prepareLaunch', 0x42n, 1, 1, 1, 32, 1, 1, 0, 11n, bytes]);
    module.unload();
    expect(calls.slice(4)).toEqual([['releaseLaunch', 0], ['releaseLaunch', 1], ['moduleUnload']]);
    expect(() => prepared.launch(bytes)).toThrow(/launched after release/);
  });

  it('an addon without the entry points: prepare answers null and launch() still launches', () => {
    const { addon, calls } = recordingAddon(false);
    const fn = new KernelModule(addon, 0x10n, 7n).getFunction('k');
    const bytes = new Uint8Array(8);
    expect(fn.prepare({ grid: 1, block: 1 }, bytes)).toBeNull();
    fn.launch({ grid: 1, block: 1 }, bytes);
    expect(calls).toEqual([['launchKernel', 0x42n, 1, 1, 1, 1, 1, 1, 0, 7n, bytes]]);
  });

  it('the built addon exports them and checks launchPrepared\'s arguments before touching CUDA', () => {
    const load = loadAddon();
    if (!load.ok) throw new Error(load.reason);
    const { addon } = load;
    expect(typeof addon.prepareLaunch).toBe('function');
    expect(typeof addon.releaseLaunch).toBe('function');
    expect(() => addon.launchPrepared?.(12345, new Uint8Array(8))).toThrow(/no prepared launch 12345/);
    expect(() => addon.launchPrepared?.('x' as unknown as number, new Uint8Array(8))).toThrow(TypeError);
    // Releasing an id that was never prepared is a no-op.
    expect(() => addon.releaseLaunch?.(777)).not.toThrow();
  });
});
