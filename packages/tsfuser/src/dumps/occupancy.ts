// The `occupancy` dump without a GPU: resident blocks per SM computed the way CUDA's occupancy
// calculator does, from ptxas's register and static shared-memory counts for the target
// (nvcc -Xptxas -v) and the kernel's launch (threads per block, dynamic shared memory). On the
// GPU the executor asks the driver instead (cuOccupancyMaxActiveBlocksPerMultiprocessor); both
// print nvFuser's line (runtime's occupancyLine).
// The limits: warps per SM (maxThreadsPerSm / warpSize), blocks per SM (by compute capability),
// registers (65536 per SM, allocated per warp in units of 256), and shared memory (the SM's
// capacity, allocated per block in 128-byte units plus 1 KiB the system reserves per block on
// compute capability 8.0 and newer).
// Invariant: a kernel whose block cannot be resident at all reports blocks_per_sm=0, as the
// driver does.

import type { SchedulerDevice } from '@tsfuser/scheduler';

/** What ptxas reports for one entry function. */
export interface PtxasResources {
  registers: number;
  staticSharedBytes: number;
}

/** Per-function resources from an `nvcc -Xptxas -v` log; undefined when the log does not name the function. */
export function ptxasResources(log: string, kernelName: string): PtxasResources | undefined {
  const lines = log.split('\n');
  const start = lines.findIndex((l) => l.includes(`Compiling entry function '${kernelName}'`));
  if (start < 0) return undefined;
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.includes('Compiling entry function')) break;
    const used = /Used (\d+) registers/.exec(line);
    if (used === null) continue;
    const smem = /(\d+) bytes smem/.exec(line);
    return { registers: Number(used[1]), staticSharedBytes: smem === null ? 0 : Number(smem[1]) };
  }
  return undefined;
}

const REGISTERS_PER_SM = 65536;
const REGISTER_ALLOCATION_UNIT = 256;
const SHARED_ALLOCATION_UNIT = 128;

/** Most resident blocks per SM by compute capability (CUDA programming guide, table of limits). */
function maxBlocksPerSm(cc: readonly [number, number]): number | undefined {
  const table: Record<string, number> = { '7.0': 32, '7.2': 32, '7.5': 16, '8.0': 32, '8.6': 16, '8.7': 16, '8.9': 24, '9.0': 32, '10.0': 32, '12.0': 32 };
  return table[`${cc[0]}.${cc[1]}`];
}

export interface OccupancyInput {
  threadsPerBlock: number;
  dynamicSharedBytes: number;
  resources: PtxasResources;
}

/** Resident blocks per SM for `device`, or a reason it cannot be computed. */
export function blocksPerSm(input: OccupancyInput, device: SchedulerDevice): { blocks: number } | { unknown: string } {
  const blockLimit = maxBlocksPerSm(device.computeCapability);
  if (blockLimit === undefined) return { unknown: `no occupancy limits known for compute capability ${device.computeCapability.join('.')}` };
  if (device.sharedMemPerSm === undefined) return { unknown: `the shared memory of one SM of ${device.name} is not known` };
  const warpsPerBlock = Math.ceil(input.threadsPerBlock / device.warpSize);
  const byWarps = Math.floor(device.maxThreadsPerSm / device.warpSize / warpsPerBlock);
  const registersPerWarp = Math.ceil((input.resources.registers * device.warpSize) / REGISTER_ALLOCATION_UNIT) * REGISTER_ALLOCATION_UNIT;
  const byRegisters = registersPerWarp === 0 ? blockLimit : Math.floor(Math.floor(REGISTERS_PER_SM / registersPerWarp) / warpsPerBlock);
  const reserved = device.computeCapability[0] >= 8 ? 1024 : 0;
  const shared = input.resources.staticSharedBytes + input.dynamicSharedBytes;
  if (device.sharedMemPerBlockOptin !== undefined && shared > device.sharedMemPerBlockOptin) return { blocks: 0 };
  const perBlock = Math.ceil((shared + reserved) / SHARED_ALLOCATION_UNIT) * SHARED_ALLOCATION_UNIT;
  const byShared = perBlock === 0 ? blockLimit : Math.floor(device.sharedMemPerSm / perBlock);
  return { blocks: Math.max(0, Math.min(blockLimit, byWarps, byRegisters, byShared)) };
}
