// nvcc -ptx -arch=sm_90 on embedding lookups after the `unrolled-loads-first` pass: in the PTX
// of the kernel, every global load comes before the first global store (all the lookups of a
// thread in flight at once), and the id of the row is loaded once. The benchmark's shape (8192
// ids into a [128256, 4096] bf16 table: vector loads of 8, unrolled 4×), rows of 4095 (scalar
// loads, predicated) under the heuristic schedule, and an unvectorized f32 lookup with an odd
// hidden size under an unrolled schedule. Slow tier (runs nvcc).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embeddingFwd, Fusion, makeTensor, type DataType } from '@tsfuser/fusion-ir';
import { makeRuntimeInfo, PointwiseScheduler, SchedulerRegistry, type PointwiseOverrides } from '@tsfuser/scheduler';
import { describe, expect, it } from 'vitest';
import { compileFusion, runtimeLibrary, withCLinkage } from '../src/index.js';
import { hasNvcc, NVCC } from './nvcc-batch.js';

/** The PTX of the embedding kernel's body (from `.entry`). */
function embeddingPtx(dtype: DataType, tokens: number, vocab: number, hidden: number, overrides?: PointwiseOverrides): string {
  const f = new Fusion();
  const ids = makeTensor(f, { shape: [-1], dtype: 'Int' });
  const table = makeTensor(f, { shape: [-1, -1], dtype });
  f.addInput(ids);
  f.addInput(table);
  f.addOutput(embeddingFwd(ids, table));
  const info = makeRuntimeInfo(f, [{ sizes: [tokens] }, { sizes: [vocab, hidden] }]);
  const k = compileFusion(f, info, overrides === undefined ? {} : { registry: new SchedulerRegistry([new PointwiseScheduler(overrides)]) });
  const dir = mkdtempSync(join(tmpdir(), 'tsfuser-embed-ptx-'));
  const file = join(dir, 'k.cu');
  writeFileSync(file, `${runtimeLibrary(k.indexType, { bulkCopies: false, rng: false, scanSort: false, complex: false, fastDivision: k.args.divisors !== null })}\n${withCLinkage(k.dumps.cuda)}`);
  execFileSync(NVCC, ['-ptx', '-arch=sm_90', '-std=c++17', file, '-o', `${file}.ptx`], { stdio: 'pipe' });
  const ptx = readFileSync(`${file}.ptx`, 'utf8');
  return ptx.slice(ptx.indexOf('.entry'));
}

function memoryOps(ptx: string): string[] {
  return ptx.split('\n').map((l) => l.trim()).filter((l) => /^(ld|st)\.global/.test(l));
}

describe.skipIf(!hasNvcc)('unrolled-loads-first in PTX (nvcc -ptx -arch=sm_90)', () => {
  it('embedding_bf16 (8192 ids, [128256, 4096]): the id loaded once, the 4 vector lookups before the 4 vector stores', () => {
    const ops = memoryOps(embeddingPtx('BFloat16', 8192, 128256, 4096));
    expect(ops.filter((l) => l.startsWith('ld.global.u64')).length).toBe(1);
    const firstStore = ops.findIndex((l) => l.startsWith('st.global'));
    const loads = ops.filter((l) => l.startsWith('ld.global.v4'));
    expect(loads.length).toBe(4);
    expect(ops.slice(firstStore).filter((l) => l.startsWith('ld.global')), ops.join('\n')).toEqual([]);
    expect(ops.filter((l) => l.startsWith('st.global.v4')).length).toBe(4);
  });

  it('bf16 rows of 4095 (not vectorizable) under the heuristic schedule: the id once, the 4 lookups before the 4 stores', () => {
    const ops = memoryOps(embeddingPtx('BFloat16', 8192, 128256, 4095));
    const firstStore = ops.findIndex((l) => l.startsWith('st.global'));
    expect(ops.filter((l) => l.startsWith('ld.global.u64')).length).toBe(1);
    expect(ops.filter((l) => l.startsWith('ld.global.u16')).length).toBe(4);
    expect(ops.slice(firstStore).filter((l) => l.startsWith('ld.global')), ops.join('\n')).toEqual([]);
  });

  it('an f32 lookup of odd rows (hidden 37) unrolled 4x, not vectorized: every load before the first store', () => {
    const ops = memoryOps(embeddingPtx('Float', 64, 101, 37, { breakPoint: 1, bdimx: 32, unroll: 4 }));
    const firstStore = ops.findIndex((l) => l.startsWith('st.global'));
    expect(firstStore).toBeGreaterThan(0);
    expect(ops.filter((l) => l.startsWith('ld.global.u64')).length).toBe(1);
    expect(ops.filter((l) => l.startsWith('ld.global.f32')).length).toBe(4);
    expect(ops.slice(firstStore).filter((l) => l.startsWith('ld.global')), ops.join('\n')).toEqual([]);
  });
});
