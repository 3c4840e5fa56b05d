// Whether this process can run kernels: the addon, libcuda.so.1, a device, and NVRTC.

import { RuntimeUnavailableError } from './errors.js';
import { loadAddon, type NativeAddon } from './native/addon.js';

export interface Availability {
  available: boolean;
  /** Why not, when `available` is false; names the first missing piece. */
  reason?: string;
  addonPath?: string;
  /** CUDA driver version as the driver reports it, e.g. 13000 for 13.0. */
  driverVersion?: number;
  deviceCount?: number;
  nvrtc?: { version: string; path: string };
}

export function isAvailable(): Availability {
  const load = loadAddon();
  if (!load.ok) return { available: false, reason: load.reason };
  const probe = load.addon.probe();
  const base: Availability = { available: false, addonPath: load.path };
  if (!probe.driverLoaded) return { ...base, reason: probe.driverReason };
  base.driverVersion = probe.driverVersion;
  base.deviceCount = probe.deviceCount;
  if (!probe.nvrtcLoaded) return { ...base, reason: probe.nvrtcReason };
  return {
    ...base,
    available: true,
    nvrtc: { version: `${probe.nvrtcMajor}.${probe.nvrtcMinor}`, path: probe.nvrtcPath },
  };
}

/** The loaded addon, for code that has checked (or will check) availability itself. */
export function requireAddon(): NativeAddon {
  const load = loadAddon();
  if (!load.ok) throw new RuntimeUnavailableError(load.reason);
  return load.addon;
}
