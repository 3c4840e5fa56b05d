// A real DeviceContext over a native addon that does nothing (issue 38's host-path timing): the
// device layer's own code runs as on the GPU host — the caching allocator (BlockPool, the live
// allocation map), KernelModule/KernelFunction, the launch configuration — and only the addon's
// C++ and the driver are left out. NVRTC "compiles" by returning the source's bytes; a launch
// counts itself (and the prepared ones record their id and buffer: cached-call-arguments.test.ts).
// Used by tools/host-overhead beside the tsfuser tests' fake device (which has no pool).
// Invariant: every pointer memAlloc returns is distinct and 256-byte aligned.

import { DeviceContext, type DeviceProperties, type NativeAddon } from '@tsfuser/device';
import { H100 as FAKE_H100 } from './fake-device.js';

/** An H100 as the driver reports it (the fake device's properties). */
const H100: DeviceProperties = { ...FAKE_H100, name: 'NVIDIA H100 80GB HBM3 (null addon)' };

export interface NullDevice {
  device: DeviceContext;
  /** Kernel launches the addon was asked for. */
  launches: { count: number };
  /** With `record`: each prepareLaunch (its argument buffer) and each launchPrepared (id, buffer, a copy of its bytes). */
  prepared: { buffer: Uint8Array }[];
  launchedPrepared: { id: number; buffer: Uint8Array; bytes: Uint8Array }[];
}

export function nullAddonDevice(options: { record?: boolean } = {}): NullDevice {
  const launches = { count: 0 };
  const prepared: NullDevice['prepared'] = [];
  const launchedPrepared: NullDevice['launchedPrepared'] = [];
  const record = options.record === true;
  let next = 1n << 32n;
  let handles = 0x100n;
  const handle = (): bigint => (handles += 1n);
  const addon = {
    memAlloc: (bytes: number | bigint): bigint => {
      const p = next;
      next += ((BigInt(bytes) + 255n) / 256n) * 256n + 256n;
      return p;
    },
    memFree: (): void => undefined,
    memcpyHtoD: (): void => undefined,
    memcpyDtoH: (): void => undefined,
    memcpyDtoD: (): void => undefined,
    memsetD8: (): void => undefined,
    streamCreate: handle,
    streamDestroy: (): void => undefined,
    streamSynchronize: (): void => undefined,
    streamWaitEvent: (): void => undefined,
    eventCreate: handle,
    eventDestroy: (): void => undefined,
    eventRecord: (): void => undefined,
    eventSynchronize: (): void => undefined,
    eventElapsedTime: (): number => 0,
    primaryContextRelease: (): void => undefined,
    nvrtcVersion: () => ({ major: 12, minor: 8, path: 'null' }),
    nvrtcCompile: (source: string) => ({ status: 0, statusText: 'NVRTC_SUCCESS', log: '', cubin: new TextEncoder().encode(source), ptx: null }),
    moduleLoadData: handle,
    moduleUnload: (): void => undefined,
    moduleGetFunction: handle,
    funcGetAttribute: (): number => 0,
    funcSetAttribute: (): void => undefined,
    funcParamInfo: (): null => null,
    occupancy: (): number => 64,
    streamBeginCapture: (): void => undefined,
    streamEndCapture: handle,
    graphInstantiate: handle,
    graphLaunch: (): void => {
      launches.count += 1;
    },
    graphExecDestroy: (): void => undefined,
    graphDestroy: (): void => undefined,
    prepareLaunch: (...args: unknown[]): number => {
      prepared.push({ buffer: args[9] as Uint8Array });
      return prepared.length - 1;
    },
    launchPrepared: (id: number, buffer: Uint8Array): void => {
      launches.count += 1;
      if (record) launchedPrepared.push({ id, buffer, bytes: buffer.slice() });
    },
    releaseLaunch: (): void => undefined,
    launchKernel: (): void => {
      launches.count += 1;
    },
  };
  // DeviceContext's constructor is private (create() needs a GPU); the device tests build it the same way.
  const Ctor = DeviceContext as unknown as new (addon: NativeAddon, properties: DeviceProperties, device: number, context: bigint, stream: bigint) => DeviceContext;
  return { device: new Ctor(addon as unknown as NativeAddon, H100, 0, 1n, 7n), launches, prepared, launchedPrepared };
}
