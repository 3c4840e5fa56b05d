// The occupancy calculator behind the `occupancy` dump without a GPU (src/dumps/occupancy.ts):
// the CUDA occupancy calculator's limits (warps, blocks, registers per warp in units of 256,
// shared memory with 1 KiB reserved per block) worked by hand for an H100, and the parsing of
// ptxas's -v log.
import { occupancyLine } from '@tsfuser/runtime';
import { H100_PROPERTIES } from '@tsfuser/scheduler';
import { describe, expect, it } from 'vitest';
import { blocksPerSm, ptxasResources } from '../src/dumps/occupancy.js';

const blocks = (threadsPerBlock: number, registers: number, staticSharedBytes = 0, dynamicSharedBytes = 0): number | string => {
  const r = blocksPerSm({ threadsPerBlock, dynamicSharedBytes, resources: { registers, staticSharedBytes } }, H100_PROPERTIES);
  return 'blocks' in r ? r.blocks : r.unknown;
};

describe('blocks per SM on an H100', () => {
  it('is limited by warps: 64 warps per SM', () => {
    expect(blocks(128, 32)).toBe(16); // 4 warps × 16 = 64; 32 regs × 32 = 1024 per warp → 64 warps fit
    expect(blocks(1024, 32)).toBe(2);
  });
  it('is limited by registers, allocated per warp in units of 256', () => {
    expect(blocks(256, 64)).toBe(4); // 2048 regs per warp → 32 warps → 4 blocks of 8 warps
    expect(blocks(256, 65)).toBe(3); // 65×32 = 2080 → 2304 per warp → 28 warps → 3 blocks
    expect(blocks(1024, 128)).toBe(0); // 4096 per warp → 16 warps < 32 per block: cannot be resident
  });
  it('is limited by blocks: 32 per SM', () => {
    expect(blocks(32, 16)).toBe(32);
  });
  it('is limited by shared memory, with 1 KiB reserved per block', () => {
    expect(blocks(128, 32, 0, 48 * 1024)).toBe(4); // 49 KiB per block into 228 KiB
    expect(blocks(128, 32, 384, 0)).toBe(16); // 1408 bytes per block is not the limit
    expect(blocks(128, 32, 0, 232448)).toBe(1); // the most one block may opt in to
    expect(blocks(128, 32, 0, 232449)).toBe(0);
  });
  it('says why when the device is not known', () => {
    const r = blocksPerSm({ threadsPerBlock: 128, dynamicSharedBytes: 0, resources: { registers: 32, staticSharedBytes: 0 } }, { ...H100_PROPERTIES, computeCapability: [6, 1] });
    expect(r).toEqual({ unknown: 'no occupancy limits known for compute capability 6.1' });
  });
});

describe("nvFuser's occupancy line", () => {
  it('counts the resident threads in warps over the SM maximum', () => {
    expect(occupancyLine({ numSms: 132, blocksPerSm: 3, threadsPerBlock: 256, warpSize: 32, maxThreadsPerSm: 2048 })).toBe('num_sms=132, blocks_per_sm=3, warps_per_sm=24, occupancy=37.50%\n');
    expect(occupancyLine({ numSms: 132, blocksPerSm: 5, threadsPerBlock: 96, warpSize: 32, maxThreadsPerSm: 2048 })).toBe('num_sms=132, blocks_per_sm=5, warps_per_sm=15, occupancy=23.44%\n');
  });
});

describe('ptxas -v log', () => {
  const log = [
    "ptxas info    : Compiling entry function 'k2' for 'sm_90'",
    'ptxas info    : Function properties for k2',
    '    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads',
    'ptxas info    : Used 10 registers, used 1 barriers',
    "ptxas info    : Compiling entry function 'k1' for 'sm_90'",
    'ptxas info    : Used 12 registers, used 1 barriers, 384 bytes smem',
  ].join('\n');
  it('reads each entry function\'s registers and static shared memory', () => {
    expect(ptxasResources(log, 'k2')).toEqual({ registers: 10, staticSharedBytes: 0 });
    expect(ptxasResources(log, 'k1')).toEqual({ registers: 12, staticSharedBytes: 384 });
    expect(ptxasResources(log, 'k3')).toBeUndefined();
  });
});
