// The lowering pass list (src/lower/passes.ts) and the kernel IR verifier (src/kernel-ir/verify.ts):
// the pass order; the verifier catches IR that breaks its invariants; `kernelIrAfterPass` dumps
// the IR after a named pass and refuses an unknown name. lowering-passes-corpus.test.ts (slow
// tier) runs the verifier after every pass of every fixture family.
import { describe, expect, it } from 'vitest';
import { allFixtures, buildLayerNormBackward, innerOuterPersistentRegistry } from '@tsfuser/test-support';
import { compileFusion, iconst, isym, LOWERING_PASS_NAMES, verifyKernelIr, type Stmt } from '../src/index.js';

describe('lowering passes', () => {
  it('lists the passes in order: core, the optimisations, shared-memory-layout', () => {
    expect(LOWERING_PASS_NAMES).toEqual([
      'kernel-signature', 'loop-nest', 'allocation', 'expr-lowering', 'grid-outer-step',
      'group-iteration-lanes', 'group-allreduce', 'row-prefetch', 'evict-last', 'evict-last-loads', 'hoist-row-params', 'allreduce-barriers', 'bulk-row-loads', 'bulk-row-pipeline', 'transpose-smem-tile', 'unrolled-loads-first',
      'shared-memory-layout',
    ]);
  });

});

describe('kernel IR verifier', () => {
  const T = (tensor: string, memory: 'Global' | 'Local' | 'Shared', index = iconst(0)) => ({ kind: 'tensor' as const, tensor, dtype: 'Float' as const, memory, index });
  const params = [
    { kind: 'tensor' as const, name: 'T0', dtype: 'Float' as const, rank: 1, role: 'input' as const, position: 0 },
    { kind: 'tensor' as const, name: 'T1', dtype: 'Float' as const, rank: 1, role: 'output' as const, position: 0 },
  ];
  const load = (to: string, from: string, index = iconst(0)): Stmt => ({ kind: 'LoadStore', out: T(to, 'Local'), in: T(from, 'Global', index), width: 1 });
  const alloc = (buffer: string): Stmt => ({ kind: 'Allocate', buffer, dtype: 'Float', size: 4, align: 4 });
  const loop = (index: string, body: Stmt[]): Stmt => ({ kind: 'ForLoop', index, extent: iconst(4), unroll: false, body });

  it('accepts well-formed IR', () => {
    expect(verifyKernelIr([alloc('T2'), loop('i0', [load('T2', 'T0', isym('i0'))])], params, { pendingAllowed: false })).toEqual([]);
  });

  it('catches a use before the allocation, a use outside the allocating loop, a double allocation', () => {
    expect(verifyKernelIr([load('T2', 'T0'), alloc('T2')], params, { pendingAllowed: false }).join('\n')).toMatch(/local buffer T2 is not allocated/);
    expect(verifyKernelIr([loop('i0', [alloc('T2')]), load('T2', 'T0')], params, { pendingAllowed: false }).join('\n')).toMatch(/local buffer T2 is not allocated/);
    expect(verifyKernelIr([alloc('T2'), alloc('T2')], params, { pendingAllowed: false }).join('\n')).toMatch(/allocated twice/);
  });

  it('catches a loop index used outside its loop or re-bound, unknown globals and shared buffers', () => {
    const outside = [alloc('T2'), loop('i0', [load('T2', 'T0', isym('i0'))]), load('T2', 'T0', isym('i0'))];
    expect(verifyKernelIr(outside, params, { pendingAllowed: false }).join('\n')).toMatch(/uses loop index i0 outside its loop/);
    expect(verifyKernelIr([loop('i0', [loop('i0', [])])], params, { pendingAllowed: false }).join('\n')).toMatch(/re-bound/);
    expect(verifyKernelIr([alloc('T2'), load('T2', 'T9')], params, { pendingAllowed: false }).join('\n')).toMatch(/global tensor T9 is not a kernel parameter/);
    const shared: Stmt = { kind: 'LoadStore', out: T('T2', 'Local'), in: T('S0', 'Shared'), width: 1 };
    expect(verifyKernelIr([alloc('T2'), shared], params, { pendingAllowed: false }).join('\n')).toMatch(/shared buffer S0 is not filled by a bulk copy/);
  });

  it('catches an expression left unlowered after expression lowering', () => {
    const f = allFixtures()[0];
    if (f === undefined) throw new Error('no fixture');
    const expr = f.fusion.exprs()[0];
    if (expr === undefined) throw new Error('no expression');
    const pending: Stmt = { kind: 'PendingExpr', expr, positionIndices: [] };
    expect(verifyKernelIr([pending], params, { pendingAllowed: true })).toEqual([]);
    expect(verifyKernelIr([pending], params, { pendingAllowed: false }).join('\n')).toMatch(/an expression left unlowered/);
  });
});

describe('kernel_ir after a named pass', () => {
  it('dumps the IR after a pass; says so when the pass is off; refuses an unknown name', () => {
    const c = buildLayerNormBackward('BFloat16', 1100, 96);
    const registry = innerOuterPersistentRegistry({ bulkLoadRows: true });
    const before = compileFusion(c.fusion, c.info, { registry, kernelIrAfterPass: 'expr-lowering' });
    const after = compileFusion(c.fusion, c.info, { registry, kernelIrAfterPass: 'bulk-row-pipeline' });
    expect(before.dumps.kernelIrAfterPass).not.toContain('BulkLoadIssue');
    expect(after.dumps.kernelIrAfterPass).toMatch(/bulk/i);
    expect(after.dumps.kernelIrAfterPass).not.toBe(before.dumps.kernelIrAfterPass);
    const off = compileFusion(c.fusion, c.info, { registry: innerOuterPersistentRegistry({ bulkLoadRows: false }), kernelIrAfterPass: 'bulk-row-pipeline' });
    expect(off.dumps.kernelIrAfterPass).toMatch(/lowering pass 'bulk-row-pipeline' is not enabled/);
    expect(() => compileFusion(c.fusion, c.info, { registry, kernelIrAfterPass: 'no-such-pass' })).toThrow(/no such lowering pass \(passes: kernel-signature, loop-nest/);
  });

  it('keeps the IR after every enabled pass, in pass order (lower_verbose), each equal to the single-pass dump', () => {
    const c = buildLayerNormBackward('BFloat16', 1100, 96);
    const registry = innerOuterPersistentRegistry({ bulkLoadRows: true });
    const every = compileFusion(c.fusion, c.info, { registry, kernelIrAfterEveryPass: true });
    const passes = every.dumps.loweringPasses ?? [];
    const names = passes.map((p) => p.pass);
    expect(names[0]).toBe('kernel-signature');
    expect(names.at(-1)).toBe('shared-memory-layout');
    expect(names).toContain('bulk-row-pipeline');
    // In LOWERING_PASS_NAMES order, each pass once.
    expect(names).toEqual(LOWERING_PASS_NAMES.filter((n) => names.includes(n)));
    for (const name of ['expr-lowering', 'bulk-row-pipeline']) {
      const single = compileFusion(c.fusion, c.info, { registry, kernelIrAfterPass: name });
      expect(passes.find((p) => p.pass === name)?.kernelIr).toBe(single.dumps.kernelIrAfterPass);
    }
    expect(compileFusion(c.fusion, c.info, { registry }).dumps.loweringPasses).toBeUndefined();
    // Observing changes nothing in the kernel.
    expect(every.source).toBe(compileFusion(c.fusion, c.info, { registry }).source);
  });
});
