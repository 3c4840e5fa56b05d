// The inner-outer persistent heuristics' bulkStages override (bulk row copies with the next S rows
// of each block in flight): the parameter and its dump line, the blocks per SM it leaves where S
// row slots per block fill the SM's shared memory, and the refusals (a stage count out of range,
// slots that do not fit one block). The kernels themselves: codegen's
// test/inner-outer-bulk-stages.test.ts (simulated against the reference, nvcc).
import { describe, expect, it } from 'vitest';
import { SchedulingError, computeInnerOuterPersistentHeuristics, heuristicParamsToString, makeRuntimeInfo, H100_PROPERTIES } from '../src/index.js';
import { layerNormBackwardFusion, layerNormBackwardSizes } from './layer-norm-backward-fixture.js';

function lnBackward(dtype: 'Float' | 'BFloat16', rows: number, hidden: number, device = H100_PROPERTIES) {
  const fusion = layerNormBackwardFusion(dtype, hidden);
  const info = makeRuntimeInfo(fusion, layerNormBackwardSizes(rows, hidden).map((s) => ({ sizes: s })), device);
  return { fusion, info };
}

describe('inner-outer persistent heuristics: bulkStages', () => {
  it('defaults to 1 (the dump unchanged); S > 1 with bulk copies is in the params and the dump; without bulk copies it is 1', () => {
    const { fusion, info } = lnBackward('BFloat16', 4096, 4096);
    const plain = computeInnerOuterPersistentHeuristics(fusion, info);
    expect(plain.bulkLoadRows).toBe(true);
    expect(plain.bulkStages).toBe(1);
    const three = computeInnerOuterPersistentHeuristics(fusion, info, { bulkStages: 3 });
    expect(three.bulkStages).toBe(3);
    expect(heuristicParamsToString(three)).toContain("Rows copied to shared memory with cp.async.bulk (3 stages: the next 3 rows' copies in flight during this row)");
    expect(heuristicParamsToString(plain)).toContain("(the next row's copy in flight during this row)");
    // Register loads: no row slots at all.
    expect(computeInnerOuterPersistentHeuristics(fusion, info, { bulkLoadRows: false, bulkStages: 3 }).bulkStages).toBe(1);
    // The row slots cost no registers: same block and, where shared memory allows, same residency.
    expect([three.lparams.bdimx, three.blocksPerSm]).toEqual([plain.lparams.bdimx, plain.blocksPerSm]);
  });

  it('blocks per SM fit S row slots of every full-row input in the SM shared memory', () => {
    // BFloat16 rows of 4096, grad_out + x: 16 KB a slot; the registers allow 2 blocks of 512.
    // Six stages (96 KB + the rest a block) still fit two blocks in 228 KB, eight (128 KB) one.
    const { fusion, info } = lnBackward('BFloat16', 4096, 4096);
    expect(computeInnerOuterPersistentHeuristics(fusion, info, { bulkStages: 1 }).blocksPerSm).toBe(2);
    expect(computeInnerOuterPersistentHeuristics(fusion, info, { bulkStages: 6 }).blocksPerSm).toBe(2);
    const eight = computeInnerOuterPersistentHeuristics(fusion, info, { bulkStages: 8 });
    expect(eight.blocksPerSm).toBe(1);
    expect(eight.lparams.gdimx).toBe(H100_PROPERTIES.smCount);
    // A device that does not say its shared memory: the register estimate alone.
    const unknown = lnBackward('BFloat16', 4096, 4096, { ...H100_PROPERTIES, sharedMemPerSm: undefined });
    expect(computeInnerOuterPersistentHeuristics(unknown.fusion, unknown.info, { bulkStages: 8 }).blocksPerSm).toBe(2);
  });

  it('refuses a stage count out of 1..8 and slots that do not fit one block, naming the sizes', () => {
    const { fusion, info } = lnBackward('BFloat16', 4096, 4096);
    for (const bulkStages of [0, 9, 1.5]) {
      expect(() => computeInnerOuterPersistentHeuristics(fusion, info, { bulkStages })).toThrow(SchedulingError);
      expect(() => computeInnerOuterPersistentHeuristics(fusion, info, { bulkStages })).toThrow(`bulkStages ${bulkStages} is not a row slot count from 1 to 8`);
    }
    const wide = lnBackward('BFloat16', 4096, 16384);
    expect(() => computeInnerOuterPersistentHeuristics(wide.fusion, wide.info, { bulkStages: 4 })).toThrow(/4 bulk stages of 65536 bytes per row do not fit one block in 233472 bytes of shared memory per SM/);
  });
});
