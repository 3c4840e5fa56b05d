// Codegen's fast division (lower/fast-division.ts): which divisions of an Int32 pointwise kernel
// become divisions by an NvfDivisor (a run-time extent read from a tensor's sizes, a dividend
// provably non-negative), that nothing else of the text changes, the argument layout's divisor
// parameter, the kernel simulator (which divides as the device helper does, from the magic
// numbers the packer computes) against the reference evaluator at odd sizes, and the PTX: no
// integer division or remainder left in RoPE's kernel, where the C divisions had them.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { add, Fusion, makeTensor, type DataType } from '@tsfuser/fusion-ir';
import { defaultSchedulerRegistry, makeRuntimeInfo, PointwiseScheduler, SchedulerRegistry } from '@tsfuser/scheduler';
import { ropeFusion, ropeInputs, seededRandom, testSeed } from '@tsfuser/test-support';
import { compileFusion, iadd, iconst, idiv, imod, imul, isym, type CompiledKernel, type Stmt } from '../src/index.js';
import { fastDivisions } from '../src/lower/fast-division.js';
import { simulateAndCheck } from './shape-ops-simulation.js';
import { hasNvcc, NVCC } from './nvcc-batch.js';

const OFF = (): SchedulerRegistry => new SchedulerRegistry([new PointwiseScheduler({ fastDivision: false })]);

function rope(dtype: DataType, sizes: [number, number, number, number], registry = defaultSchedulerRegistry()): CompiledKernel {
  const f = ropeFusion(dtype, sizes[3]);
  return compileFusion(f, makeRuntimeInfo(f, [{ sizes }, { sizes: [1, sizes[1], 1, sizes[3]] }, { sizes: [1, sizes[1], 1, sizes[3]] }]), { registry });
}

/** A fast kernel's text with its divisors undone: plain names, no declarations, no last parameter. */
function withoutDivisors(k: CompiledKernel): string {
  return k.dumps.cuda
    .replace(/, NvfDivisorMagic<\d+> nvf_divisors\)/, ')')
    .replace(/ {2}const NvfDivisor \w+ = \{[^}]*\};\n/g, '')
    .replace(/\b(\w+)_div\b/g, '$1');
}

describe('fast division: which divisions', () => {
  const params = [{ kind: 'tensor' as const, name: 'T0', dtype: 'Float' as const, rank: 2, role: 'input' as const, position: 0 }];
  const locals = [
    { name: 'i0', value: 'T0.logical_size[0]' },
    { name: 'i1', value: 'T0.logical_size[1]' },
  ];
  const load = (index: ReturnType<typeof iadd>): Stmt => ({ kind: 'LoadStore', out: { kind: 'tensor', tensor: 'T9', dtype: 'Float', memory: 'Local', index: iconst(0) }, in: { kind: 'tensor', tensor: 'T0', dtype: 'Float', memory: 'Global', index }, width: 1 });
  const flat = iadd(imul(isym('blockIdx.x'), iconst(128)), isym('threadIdx.x'));

  it('renames divisions and remainders of non-negative indices by extent locals, and no other', () => {
    const body: Stmt[] = [
      load(iadd(imul(idiv(flat, isym('i1')), isym('T0.alloc_stride[0]')), imod(flat, isym('i1')))),
      // a dividend with a negative offset (a pad's shift) and one with a computed scalar keep C's `/`
      load(idiv(iadd(flat, iconst(-3)), isym('i1'))),
      load(imod(iadd(flat, isym('r0')), isym('i1'))),
      // a division by a constant or by a product is not a divisor's
      load(idiv(flat, imul(isym('i0'), isym('i1')))),
      { kind: 'ForLoop', index: 'i7', extent: iconst(4), unroll: true, body: [load(idiv(iadd(imul(flat, iconst(4)), isym('i7')), isym('i0')))] },
    ];
    const r = fastDivisions(body, locals, params);
    expect(r.divisors).toEqual([
      { name: 'i0_div', extent: 'i0', param: 0, dim: 0 },
      { name: 'i1_div', extent: 'i1', param: 0, dim: 1 },
    ]);
    const texts = r.body.map((s) => JSON.stringify(s));
    expect(texts[0]).toContain('"i1_div"');
    expect(texts[0]).not.toMatch(/"name":"i1"/);
    expect(texts[1]).not.toContain('_div');
    expect(texts[2]).not.toContain('_div');
    expect(texts[3]).not.toContain('_div');
    expect(texts[4]).toContain('"i0_div"');
  });

  it('finds nothing without extent locals of tensor parameters, or when the name is taken', () => {
    const body: Stmt[] = [load(idiv(flat, isym('i1')))];
    expect(fastDivisions(body, [{ name: 'i1', value: 'r5' }], params).divisors).toEqual([]);
    expect(fastDivisions(body, [{ name: 'i1', value: 'T4.logical_size[1]' }], params).divisors).toEqual([]);
    const taken: Stmt[] = [...body, load(isym('i1_div'))];
    expect(fastDivisions(taken, locals, params).divisors).toEqual([]);
  });
});

describe('fast division: RoPE', () => {
  it('divides by x\'s three inner extents through magic numbers; the rest of the text is unchanged', () => {
    const on = rope('BFloat16', [2, 64, 4, 128]);
    const off = rope('BFloat16', [2, 64, 4, 128], OFF());
    expect(on.indexType).toBe('Int32');
    expect(on.params.schedulerType === 'pointwise' && on.params.fastDivision).toBe(true);
    expect(on.args.divisors?.sources.map((s) => s.name)).toEqual(['i1_div', 'i2_div', 'i3_div']);
    expect(on.dumps.cuda).toMatch(/ \/ i3_div \/ i2_div % i1_div \* T1\.alloc_stride\[1\]/);
    expect(on.dumps.cuda).not.toMatch(/[/%] i[0-9]+\b(?!_div)/);
    expect(off.args.divisors).toBeNull();
    expect(off.dumps.cuda).not.toContain('NvfDivisor');
    expect(off.source).not.toContain('NvfDivisor');
    expect(withoutDivisors(on)).toBe(off.dumps.cuda);
    // The divisor parameter: after the four tensors, 8 bytes a divisor.
    const last = on.args.slots.at(-1);
    expect(on.args.divisors?.offset).toBe((last?.offset ?? 0) + (last?.size ?? 0));
    expect(on.args.size).toBe((on.args.divisors?.offset ?? 0) + 24);
    expect(on.dumps.kernelIr).toContain('i3_div = fast_divisor(i3, magic 2 of T0.logical_size[3])');
  });

  it('is off for 64-bit indexing and where index values could reach 2^30', () => {
    // 2^30 elements: still Int32 indexing, but past the bound the scheduler keeps (launch overshoot)
    const big = rope('Float', [8, 4096, 32, 1024]);
    expect(big.indexType).toBe('Int32');
    expect(big.args.divisors).toBeNull();
    expect(big.dumps.cuda).toMatch(/ [/%] i[0-9]+\b/); // C divisions by extents remain
    expect(rope('Float', [8, 4096, 32, 512]).args.divisors).not.toBeNull(); // 2^29
    const f = new Fusion();
    const a = makeTensor(f, { shape: [-1, -1, -1] });
    const b = makeTensor(f, { shape: [-1, 1, -1] });
    f.addInput(a);
    f.addInput(b);
    f.addOutput(add(a, b));
    const sizes = (n: number): { sizes: number[] }[] => [{ sizes: [n, 3, 5] }, { sizes: [n, 1, 5] }];
    expect(compileFusion(f, makeRuntimeInfo(f, sizes(7))).args.divisors).not.toBeNull();
    const wide = compileFusion(f, makeRuntimeInfo(f, sizes(1 << 28)));
    expect(wide.indexType).toBe('Int');
    expect(wide.args.divisors).toBeNull();
    expect(wide.source).not.toContain('NvfDivisor');
  });

  const seed = testSeed();
  it(`simulates like the reference evaluator at odd sizes, Float and BFloat16, with the packer's magic numbers (TSFUSER_SEED=${seed})`, () => {
    const r = seededRandom(seed);
    const cases: [DataType, [number, number, number, number]][] = [
      ['Float', [2, 7, 3, 8]],
      ['BFloat16', [3, 5, 7, 16]],
      ['Float', [1, 9, 5, 6]],
      ['BFloat16', [2, 3, 11, 64]],
    ];
    for (const [dtype, sizes] of cases) {
      const f = ropeFusion(dtype, sizes[3]);
      const sim = simulateAndCheck(f, ropeInputs(dtype, sizes, r), `rope ${dtype} [${sizes.join(', ')}] (TSFUSER_SEED=${seed})`);
      expect(sim.kernel.divisors.length, `rope ${dtype} [${sizes.join(', ')}]`).toBeGreaterThan(0);
    }
  });

  it.skipIf(!hasNvcc)('compiles with nvcc; its PTX has no integer division or remainder, the C divisions had them', () => {
    const ptx = (k: CompiledKernel): string => {
      const dir = mkdtempSync(join(tmpdir(), 'tsfuser-fast-division-'));
      const file = join(dir, 'k.cu');
      writeFileSync(file, k.source);
      execFileSync(NVCC, ['-ptx', '-arch=sm_90', '-std=c++17', file, '-o', `${file}.ptx`], { stdio: 'pipe' });
      const text = readFileSync(`${file}.ptx`, 'utf8');
      return text.slice(text.indexOf(`.entry ${k.kernelName}`));
    };
    const count = (text: string, re: RegExp): number => text.split('\n').filter((l) => re.test(l.trim())).length;
    const on = ptx(rope('BFloat16', [8, 4096, 32, 128]));
    const off = ptx(rope('BFloat16', [8, 4096, 32, 128], OFF()));
    expect(count(on, /^(div|rem)\.(u|s)(32|64)\b/)).toBe(0);
    expect(count(on, /^mul\.hi\.u32\b/)).toBeGreaterThanOrEqual(3);
    expect(count(off, /^(div|rem)\.(u|s)(32|64)\b/)).toBeGreaterThan(0);
  }, 120_000);
});
