// Inner-outer persistent kernels with bulk row copies of several stages (bulkStages: each block's
// next S rows in flight, a shared-memory circular buffer of S row slots, one mbarrier each;
// lower/bulk-row-pipeline.ts). Simulated against the reference evaluator on seeded random
// inputs (the seed is in the failure message; TSFUSER_SEED replays it) where the rows per block
// divide by S, do not, are fewer than S, and where blocks own rows past the tensor (the
// predicated prologue and reissues); the kernel's structure (one slot per stage and row, waits on
// slot r mod S with parity ⌊r / S⌋, the shared memory it asks for); one stage emitting the
// text of no stages (the golden *_bulk pins that text); the kernel IR verifier; and nvcc -cubin -arch=sm_90 of the 4096-wide
// kernels the GPU entry times.
import { describe, expect, it } from 'vitest';
import { buildLayerNormBackward, innerOuterPersistentRegistry } from '@tsfuser/test-support';
import { compileFusion, lowerFusion, verifyKernelIr, type Stmt } from '../src/index.js';
import { printIndex } from '../src/kernel-ir/index-expr.js';
import { compileKernelsWithNvcc, hasNvcc } from './nvcc-batch.js';
import { lowerCase, simulateAndCompare, walk } from './inner-outer-lowering.js';

describe('inner-outer persistent codegen: bulk row copies of several stages (bulkStages)', () => {
  // BFloat16 700 × 128 on one block per SM: 132 blocks of 6 rows (5 in the last ones, 700 = 5·132 + 40),
  // so 4 stages neither divide a block's rows nor fit a second round; 1100 × 96 at the default grid:
  // blocks of 2 rows (rows past the tensor from block 550 on), fewer rows than 3 stages; Float
  // 300 × 128: 3 blocks of 100 rows (blocksPerSm 1 on a 3-SM device is not possible: the grid
  // is the device's, so force few blocks through 1 block per SM and many rows).
  const cases: [string, ReturnType<typeof buildLayerNormBackward>, number, number | undefined][] = [
    ['bf16 700x128, 6 rows per block, 2 stages', buildLayerNormBackward('BFloat16', 700, 128), 2, 1],
    ['bf16 700x128, 6 rows per block, 4 stages', buildLayerNormBackward('BFloat16', 700, 128), 4, 1],
    ['bf16 1100x96, 2 rows per block, 3 stages', buildLayerNormBackward('BFloat16', 1100, 96), 3, undefined],
    ['half 1000x256, 8 rows per block, 3 stages', buildLayerNormBackward('Half', 1000, 256), 3, 1],
    ['f32 700x128, 6 rows per block, 3 stages', buildLayerNormBackward('Float', 700, 128), 3, 1],
  ];

  it.each(cases)('%s simulates like the fusion', (_name, c, bulkStages, blocksPerSm) => {
    simulateAndCompare(c, { bulkLoadRows: true, bulkStages, ...(blocksPerSm === undefined ? {} : { blocksPerSm }) });
  });

  it('issues rows 0 .. S−1 before the row loop, waits on slot r mod S with parity ⌊r / S⌋, reissues row r + S into slot r mod S', () => {
    const c = buildLayerNormBackward('BFloat16', 700, 128);
    const { kernel, compiled } = lowerCase(c, { bulkLoadRows: true, bulkStages: 3, blocksPerSm: 1 });
    const issue = kernel.body.find((s) => s.kind === 'BulkLoadIssue');
    if (issue?.kind !== 'BulkLoadIssue') throw new Error('no BulkLoadIssue');
    // grad_out and x: two buffers of three slots of one row (bdimx · B · vec elements) each.
    expect(issue.copies.map((k) => k.stages)).toEqual([3, 3]);
    expect(issue.ahead?.map((g) => g.copies.map((k) => printIndex(k.stage ?? { kind: 'const', value: 0 })))).toEqual([['1', '1'], ['2', '2']]);
    const capacity = issue.copies[0]?.capacity ?? 0;
    const [first, second] = issue.copies;
    if (first === undefined || second === undefined) throw new Error('two copies expected');
    expect(second.sharedOffset).toBeGreaterThanOrEqual(first.sharedOffset + 3 * capacity * 2);
    expect(compiled.launch.sharedMemBytes).toBe(second.barrierOffset + 3 * 8);
    const waits: Extract<Stmt, { kind: 'BulkLoadWait' }>[] = [];
    const reissues: Extract<Stmt, { kind: 'BulkLoadReissue' }>[] = [];
    walk(kernel.body, false, (s) => {
      if (s.kind === 'BulkLoadWait') waits.push(s);
      if (s.kind === 'BulkLoadReissue') reissues.push(s);
    });
    expect(waits).toHaveLength(1);
    const [wait] = waits;
    expect(printIndex(wait?.stage ?? { kind: 'const', value: 0 })).toMatch(/% 3/);
    expect(printIndex(wait?.parity ?? { kind: 'const', value: 0 })).toMatch(/\/ 3/);
    expect(reissues).toHaveLength(1);
    expect(reissues[0]?.copies.every((k) => /% 3/.test(printIndex(k.stage ?? { kind: 'const', value: 0 })))).toBe(true);
    // The emitted text: one barrier per slot, the waits and copies into slots.
    expect(compiled.dumps.cuda).toContain('for (int nvf_slot = 0; nvf_slot < 3; ++nvf_slot) nvfBulkBarrierInit(');
    expect(compiled.dumps.cuda).toMatch(/nvfBulkCopyWait\(\(T\d+_row_barrier \+ \(/);
    expect(compiled.dumps.cuda).toMatch(/nvfBulkCopyRowAgain\(\(T\d+_row_barrier \+ \(.*\)\), \(T\d+_row \+ \(.*\) \* \d+\)/);
    expect(compiled.dumps.schedulerParams).toContain('3 stages');
  });

  it('the kernel IR verifier finds nothing after any pass (3 stages; the prologue copies name their buffers)', () => {
    const c = buildLayerNormBackward('BFloat16', 700, 128);
    const registry = innerOuterPersistentRegistry({ bulkLoadRows: true, bulkStages: 3, blocksPerSm: 1 });
    const { scheduler } = registry.pick(c.fusion, c.info);
    const params = scheduler.computeHeuristics(c.fusion, c.info);
    const scheduled = scheduler.schedule(c.fusion.clone().fusion, params);
    const passes: string[] = [];
    const problems: string[] = [];
    lowerFusion(scheduled, {
      kernelName: 'stages',
      maxThreadsPerBlock: params.schedulerType === 'inner_outer_persistent' ? params.lparams.bdimx * params.lparams.bdimy : 1024,
      observe: (pass, body, kernelParams) => {
        passes.push(pass);
        problems.push(...verifyKernelIr(body, kernelParams, { pendingAllowed: pass === 'loop-nest' || pass === 'allocation' }).map((x) => `after ${pass}: ${x}`));
      },
    });
    expect(passes).toContain('bulk-row-pipeline');
    expect(problems).toEqual([]);
  });

  // (The text from before stages existed is pinned by the golden layer_norm_bwd_bf16_1100x96_bulk, inner-outer-persistent.test.ts.)
  it('bulkStages 1 emits the same text as no bulkStages (one slot, no slot arithmetic)', () => {
    const c = buildLayerNormBackward('BFloat16', 700, 128);
    const one = compileFusion(c.fusion, c.info, { registry: innerOuterPersistentRegistry({ bulkLoadRows: true, bulkStages: 1 }) });
    const plain = compileFusion(c.fusion, c.info, { registry: innerOuterPersistentRegistry({ bulkLoadRows: true }) });
    expect(one.source).toBe(plain.source);
    expect(one.source).not.toContain('nvf_slot');
    expect(one.source).toContain('nvfBulkCopyWait(T');
  });

  it.skipIf(!hasNvcc)('compiles with nvcc -cubin -arch=sm_90 at 4096 wide (2, 3, 4 stages; BFloat16 and Float)', async () => {
    const kernels = [
      ...[2, 3, 4].map((bulkStages, i) => {
        const c = buildLayerNormBackward('BFloat16', 4096, 4096);
        return compileFusion(c.fusion, c.info, { registry: innerOuterPersistentRegistry({ bulkLoadRows: true, bulkStages }), fusionId: 700 + i });
      }),
      (() => {
        const c = buildLayerNormBackward('Float', 16384, 4096);
        return compileFusion(c.fusion, c.info, { registry: innerOuterPersistentRegistry({ bulkLoadRows: true, bulkStages: 2 }), fusionId: 710 });
      })(),
    ];
    expect(kernels.every((k) => k.dumps.cuda.includes('nvf_slot'))).toBe(true);
    await compileKernelsWithNvcc(kernels, { label: 'inner-outer-bulk-stages', cubin: true });
  }, 600_000);
});
