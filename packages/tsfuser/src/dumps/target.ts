// The target of compile-side dumps without a GPU: an architecture for nvcc (`sm_90` by default)
// and the device properties the schedulers read (an H100's unless given). With a GPU backend the
// target is the device itself.
// Invariant: `arch` is a real architecture `sm_<major><minor>[a]` (nvcc -ptx/-cubin accept it).

import { H100_PROPERTIES, type SchedulerDevice } from '@tsfuser/scheduler';
import { DumpOptionError } from './dump-options.js';

export interface CompileTarget {
  /** nvcc's -arch, e.g. `sm_90`. */
  arch: string;
  device: SchedulerDevice;
}

export const DEFAULT_TARGET: CompileTarget = { arch: 'sm_90', device: H100_PROPERTIES };

/** Checks an `sm_XX` architecture name; one DumpOptionError naming `source` otherwise. */
export function parseArch(text: string, source: string): string {
  if (!/^sm_[1-9][0-9]{1,2}a?$/.test(text)) throw new DumpOptionError(`${source} must be a real GPU architecture such as sm_90 or sm_80, got '${text}'`);
  return text;
}

/** The architecture a device's compute capability names (sm_90 for 9.0). */
export function archOf(device: SchedulerDevice): string {
  return `sm_${device.computeCapability[0]}${device.computeCapability[1]}`;
}

const NUMBER_FIELDS = ['smCount', 'maxThreadsPerBlock', 'maxThreadsPerSm', 'l2CacheBytes', 'warpSize'] as const;
const OPTIONAL_NUMBER_FIELDS = ['sharedMemPerSm', 'sharedMemPerBlockOptin'] as const;

/**
 * Device properties from JSON text (`--device-properties file.json`): the scheduler's
 * SchedulerDevice fields; missing fields keep the H100's. One DumpOptionError naming `source`
 * and the field for anything else.
 */
export function parseDeviceProperties(text: string, source: string): SchedulerDevice {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new DumpOptionError(`${source}: not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new DumpOptionError(`${source}: expected a JSON object of device properties`);
  const o = value as Record<string, unknown>;
  const known = new Set<string>(['name', 'computeCapability', ...NUMBER_FIELDS, ...OPTIONAL_NUMBER_FIELDS]);
  for (const key of Object.keys(o)) if (!known.has(key)) throw new DumpOptionError(`${source}: unknown field '${key}' (fields: ${[...known].join(', ')})`);
  const device: SchedulerDevice = { ...H100_PROPERTIES };
  if (o['name'] !== undefined) {
    if (typeof o['name'] !== 'string') throw new DumpOptionError(`${source}: name must be a string`);
    device.name = o['name'];
  }
  const cc = o['computeCapability'];
  if (cc !== undefined) {
    if (!Array.isArray(cc) || cc.length !== 2 || !cc.every((x) => Number.isInteger(x) && (x as number) >= 0)) throw new DumpOptionError(`${source}: computeCapability must be [major, minor]`);
    device.computeCapability = [cc[0] as number, cc[1] as number];
  }
  for (const f of [...NUMBER_FIELDS, ...OPTIONAL_NUMBER_FIELDS]) {
    const v = o[f];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0) throw new DumpOptionError(`${source}: ${f} must be a positive integer, got ${JSON.stringify(v)}`);
    device[f] = v;
  }
  return device;
}
