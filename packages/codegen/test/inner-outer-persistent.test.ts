// Inner-outer persistent codegen (layer_norm backward as one kernel), fast tier: structure of the
// kernel IR (one grid step at the end, no block reduction inside an `if`; next-row prefetch, bulk
// row copies and grouped allreduces as lowered), the simulator catching a misplaced bulk copy, and
// goldens of the scheduler_params / kernel IR / CUDA of one fixture. The simulations of every
// fixture and variant, random shapes and nvcc: inner-outer-persistent-simulation.test.ts (slow).
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkGolden, evaluate, HostTensor } from '@tsfuser/fusion-ir';
import { iconst, printIndex, type Kernel, type Stmt } from '../src/index.js';
import { simulateKernel } from './kernel-simulator.js';
import { buildLayerNormBackward, layerNormBackwardFixtures, layerNormBackwardInputs } from '@tsfuser/test-support';
import { lowerCase, walk } from './inner-outer-lowering.js';

const dir = fileURLToPath(new URL('../../../test-fixtures/golden/codegen/inner-outer-persistent/', import.meta.url));
const update = process.env.UPDATE_GOLDEN === '1';

describe('inner-outer persistent codegen: next-row prefetch (prefetchNextRow)', () => {
  it('loads the next row of grad_out and x into *_next buffers under r + 1 < rows per block; the weight and the per-row scalars load in place', () => {
    const { kernel, compiled } = lowerCase(buildLayerNormBackward('BFloat16', 600, 258), { prefetchNextRow: true });
    expect(compiled.dumps.schedulerParams).toContain('Circular buffer: 2 stages over the row loop');
    const at = kernel.body.findIndex((s) => s.kind === 'ForLoop' && s.body.some((b) => b.kind === 'Allocate'));
    const rowLoop = kernel.body[at];
    if (rowLoop === undefined || rowLoop.kind !== 'ForLoop') throw new Error('no row loop');
    // Two prefetch buffers, allocated before the row loop and filled with row 0 there.
    const before = kernel.body.slice(0, at);
    const nextBuffers = before.filter((s): s is Extract<Stmt, { kind: 'Allocate' }> => s.kind === 'Allocate' && s.buffer.endsWith('_next')).map((s) => s.buffer);
    expect(nextBuffers.length).toBe(2);
    const globalLoads = (stmts: readonly Stmt[]): Extract<Stmt, { kind: 'LoadStore' }>[] => {
      const out: Extract<Stmt, { kind: 'LoadStore' }>[] = [];
      walk(stmts, false, (s) => {
        if (s.kind === 'LoadStore' && s.in.memory === 'Global') out.push(s);
      });
      return out;
    };
    expect(globalLoads(before).map((l) => l.out.tensor).sort()).toEqual([...nextBuffers].sort());
    // In the loop: every vector load of a row input targets a *_next buffer, inside `if (r + 1 < extent)`.
    const row = rowLoop.index;
    const guarded = rowLoop.body.filter((s): s is Extract<Stmt, { kind: 'IfThenElse' }> => s.kind === 'IfThenElse' && s.predicates.some((p) => printIndex(p.index) === `${row} + 1`));
    expect(guarded.length).toBe(2);
    for (const g of guarded) for (const l of globalLoads(g.then)) expect(l.out.tensor.endsWith('_next')).toBe(true);
    const inPlace = globalLoads(rowLoop.body).filter((l) => !l.out.tensor.endsWith('_next'));
    // weight (vector, no row in its address), mean and rstd (scalars)
    expect(inPlace.length).toBeGreaterThanOrEqual(3);
    expect(inPlace.filter((l) => l.width > 1).every((l) => !printIndex(l.in.index).includes(row))).toBe(true);
    const text = compiled.dumps.cuda;
    expect(text).toMatch(new RegExp(`if \\(${row} \\+ 1 < `));
  });
});

describe('inner-outer persistent codegen: rows through shared memory by bulk copy (bulkLoadRows)', () => {
  it('copies row 0 before the row loop, waits on phase parity r, copies row r + 1 right after the last read of the buffers; the weight stays global', () => {
    const { kernel, compiled } = lowerCase(buildLayerNormBackward('BFloat16', 1100, 96), { bulkLoadRows: true });
    expect(compiled.dumps.schedulerParams).toContain("Rows copied to shared memory with cp.async.bulk (the next row's copy in flight during this row)");
    const at = kernel.body.findIndex((s) => s.kind === 'ForLoop' && s.body.some((b) => b.kind === 'BulkLoadWait'));
    const rowLoop = kernel.body[at];
    if (rowLoop === undefined || rowLoop.kind !== 'ForLoop') throw new Error('no row loop');
    const row = rowLoop.index;
    const issue = kernel.body[at - 1];
    if (issue === undefined || issue.kind !== 'BulkLoadIssue') throw new Error('no first copy before the row loop');
    expect(issue.copies.map((c) => [c.source.tensor, c.buffer])).toEqual([['T0', 'T0_row'], ['T1', 'T1_row']]);
    // Row 0 of the block, guarded by its validity (1100 rows do not divide among 1056 blocks).
    expect(issue.copies.every((c) => !printIndex(c.source.index).includes(row))).toBe(true);
    expect((issue.predicates ?? []).map((p) => `${printIndex(p.index)} < ${printIndex(p.extent)}`)).toEqual(['blockIdx.x * ((i0 + 1055) / 1056) < i0']);
    const body = rowLoop.body;
    const wait = body.findIndex((s) => s.kind === 'BulkLoadWait');
    const reissue = body.findIndex((s) => s.kind === 'BulkLoadReissue');
    const w = body[wait];
    const r = body[reissue];
    if (w?.kind !== 'BulkLoadWait' || r?.kind !== 'BulkLoadReissue') throw new Error('no wait / reissue');
    expect(w.parity === undefined ? '' : printIndex(w.parity)).toBe(row);
    expect((w.predicates ?? []).map((p) => printIndex(p.index))).toEqual([`blockIdx.x * ((i0 + 1055) / 1056) + ${row}`]);
    expect(r.predicates.map((p) => `${printIndex(p.index)} < ${printIndex(p.extent)}`)).toEqual([`${row} + 1 < (i0 + 1055) / 1056`, `blockIdx.x * ((i0 + 1055) / 1056) + (${row} + 1) < i0`]);
    // Every read of a row buffer lies between the wait and the reissue; no global load of T0 / T1 is left.
    const sharedReads: number[] = [];
    body.forEach((s, i) => walk([s], false, (x) => {
      if (x.kind === 'LoadStore' && x.in.memory === 'Shared') sharedReads.push(i);
    }));
    expect(sharedReads.length).toBe(2);
    expect(sharedReads.every((i) => i > wait && i < reissue)).toBe(true);
    const globalVectorLoads: string[] = [];
    walk(kernel.body, false, (x) => {
      if (x.kind === 'LoadStore' && x.in.memory === 'Global' && x.width > 1) globalVectorLoads.push(x.in.tensor);
    });
    expect(globalVectorLoads).toEqual(['T4']);
    const cuda = compiled.dumps.cuda;
    expect(cuda).toContain('nvfBulkBarrierInit(T0_row_barrier);');
    expect(cuda).toContain(`nvfBulkCopyWait(T0_row_barrier, static_cast<unsigned>(${row}) & 1u);`);
    expect(cuda).toMatch(/__syncthreads\(\);\n\s*if \(threadIdx\.x == 0 && threadIdx\.y == 0 && .*\) \{\n\s*nvfBulkCopyRowAgain\(T0_row_barrier, T0_row, /);
    // Two row buffers of 96 bf16 each after the grouped allreduce's shared memory.
    expect(compiled.launch.sharedMemBytes).toBeGreaterThanOrEqual(2 * 96 * 2);
  });

  it('the simulator catches a copy of the next row issued before this row was read (the buffer is in flight)', () => {
    // 2 rows per block, so the reissue fires.
    const c = buildLayerNormBackward('BFloat16', 1100, 96);
    const { kernel, compiled } = lowerCase(c, { bulkLoadRows: true });
    const at = kernel.body.findIndex((s) => s.kind === 'ForLoop' && s.body.some((b) => b.kind === 'BulkLoadWait'));
    const loop = kernel.body[at];
    if (loop === undefined || loop.kind !== 'ForLoop') throw new Error('no row loop');
    const wait = loop.body.findIndex((s) => s.kind === 'BulkLoadWait');
    const reissue = loop.body.find((s) => s.kind === 'BulkLoadReissue');
    if (reissue === undefined) throw new Error('no reissue');
    const early = loop.body.filter((s) => s !== reissue);
    early.splice(wait + 1, 0, reissue);
    const broken: Kernel = { ...kernel, body: kernel.body.map((s, i) => (i === at ? { ...loop, body: early } : s)) };
    const inputs = layerNormBackwardInputs(c);
    const outs = (evaluate(c.fusion, inputs) as HostTensor[]).map((w) => HostTensor.fromValues(w.dtype, [...w.sizes], new Array<number>(w.numel).fill(NaN)));
    expect(() => simulateKernel(broken, compiled.launch, [...inputs, ...outs])).toThrow(/read before its bulk copy was waited for/);
    // And a wait for a phase no copy completes never returns.
    const noFirst: Kernel = { ...kernel, body: kernel.body.map((s) => (s.kind === 'BulkLoadIssue' ? { ...s, predicates: [{ index: iconst(1), extent: iconst(0) }] } : s)) };
    expect(() => simulateKernel(noFirst, compiled.launch, [...inputs, ...outs])).toThrow(/would never return/);
  });

  it('on by default for 16-bit rows of 16-byte vectors, off for Float rows and when turned off; never with prefetchNextRow (one circular buffer at a time)', () => {
    const c = buildLayerNormBackward('BFloat16', 1100, 96);
    // One row per block: at 96 elements the default is several rows per block (bdimy 8), which the copies do not take.
    expect(lowerCase(c, { bdimy: 1 }).compiled.dumps.cuda).toContain('nvfBulkCopyRowAgain(');
    expect(lowerCase(c).compiled.dumps.cuda).not.toContain('nvfBulkCopyRow');
    expect(lowerCase(c, { bulkLoadRows: false }).compiled.dumps.cuda).not.toContain('nvfBulkCopyRow');
    expect(lowerCase(buildLayerNormBackward('Float', 700, 128)).compiled.dumps.cuda).not.toContain('nvfBulkCopyRow');
    const both = lowerCase(c, { bulkLoadRows: true, prefetchNextRow: true });
    expect(both.compiled.dumps.cuda).not.toContain('nvfBulkCopyRow');
    expect(both.compiled.dumps.schedulerParams).toContain('Circular buffer: 2 stages');
  });
});

describe('inner-outer persistent codegen: grouped allreduces (groupInnerReductions, the default)', () => {
  it('the row loop has one block allreduce doing both row sums (blockAllreduce2), shared memory for two; ungrouped has two', () => {
    const c = buildLayerNormBackward('BFloat16', 600, 258);
    const plain = lowerCase(c, { groupInnerReductions: false });
    const { kernel, compiled } = lowerCase(c);
    const reduces = (k: Kernel): Extract<Stmt, { kind: 'BlockReduce' }>[] => {
      const out: Extract<Stmt, { kind: 'BlockReduce' }>[] = [];
      walk(k.body, false, (s) => {
        // The row's reductions (over threadIdx.x); several rows per block add the outer partials' across threadIdx.y.
        if (s.kind === 'BlockReduce' && s.reduceDims.includes('TIDx')) out.push(s);
      });
      return out;
    };
    expect(reduces(plain.kernel).length).toBe(2);
    const grouped = reduces(kernel);
    expect(grouped.length).toBe(1);
    const g = grouped[0];
    if (g === undefined || g.grouped === undefined) throw new Error('not grouped');
    expect(new Set([g.in.tensor, g.grouped.in.tensor]).size).toBe(2);
    expect(compiled.dumps.cuda).toContain('blockAllreduce2<true, false>(');
    expect(compiled.dumps.cuda).not.toMatch(/blockAllreduce<true, false>\(/);
    expect(compiled.dumps.schedulerParams).toContain('Grouped inner reductions');
    expect(compiled.launch.sharedMemBytes).toBe(2 * plain.compiled.launch.sharedMemBytes);
  });
});

describe('inner-outer persistent codegen: structure', () => {
  it('one grid step at the top level, last; no block reduction or grid store inside an if it must not be in', () => {
    for (const c of layerNormBackwardFixtures()) {
      const { kernel } = lowerCase(c);
      const last = kernel.body[kernel.body.length - 1];
      expect(last?.kind).toBe('GridOuterReduce');
      let steps = 0;
      walk(kernel.body, false, (s, insideIf) => {
        if (s.kind === 'GridOuterReduce') steps += 1;
        if (s.kind === 'BlockReduce' || s.kind === 'GridOuterReduce') expect(insideIf).toBe(false);
      });
      expect(steps).toBe(1);
      expect(kernel.deviceGlobals.map((g) => g.ctype)).toEqual(['float', 'float', 'unsigned int']);
    }
  });

  it('the persistent grid never has more blocks than rows or than SMs × blocks per SM', () => {
    for (const c of [...layerNormBackwardFixtures(), buildLayerNormBackward('BFloat16', 16384, 4096)]) {
      const { compiled } = lowerCase(c);
      const p = compiled.params;
      if (p.schedulerType !== 'inner_outer_persistent') throw new Error(p.schedulerType);
      expect(p.lparams.gdimx).toBeLessThanOrEqual(Math.min(c.rows, 132 * p.blocksPerSm));
      expect(p.rowsPerBlock * p.lparams.gdimx).toBeGreaterThanOrEqual(c.rows);
    }
  });
});

describe('inner-outer persistent codegen: goldens', () => {
  it.each([
    ['BFloat16', 600, 258, 'layer_norm_bwd_bf16_600x258'],
    ['Float', 16384, 4096, 'layer_norm_bwd_float_16384x4096'],
    ['BFloat16', 600, 258, 'layer_norm_bwd_bf16_600x258_prefetch'],
    ['BFloat16', 600, 258, 'layer_norm_bwd_bf16_600x258_ungrouped'],
    ['BFloat16', 1100, 96, 'layer_norm_bwd_bf16_1100x96_bulk'],
  ] as const)('%s %d×%d (%s)', (dtype, rows, hidden, file) => {
    const overrides = file.endsWith('_prefetch') ? { prefetchNextRow: true } : file.endsWith('_ungrouped') ? { groupInnerReductions: false } : file.endsWith('_bulk') ? { bulkLoadRows: true } : {};
    const { compiled } = lowerCase(buildLayerNormBackward(dtype, rows, hidden), overrides);
    const check = (name: string, text: string): void => {
      expect(checkGolden(text, `${dir}${name}`, update).diff).toBe('');
    };
    check(`${file}.scheduler_params.txt`, compiled.dumps.schedulerParams + compiled.dumps.launchParams);
    check(`${file}.kernel_ir.txt`, compiled.dumps.kernelIr);
    check(`${file}.cuda_kernel.txt`, compiled.dumps.cuda);
  });
});
