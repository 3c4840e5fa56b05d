// Test helper: compiles generated kernels with nvcc (-ptx, sm_90; `cubin: true` runs ptxas too,
// which is what checks inline PTX such as cache hints), many kernels (distinct names, C linkage)
// per translation unit per index type, the units in parallel. Throws with nvcc's log and
// `context` (e.g. the random seed) when one fails. In the fast test tier (test-support's
// testTier) it compiles an evenly spread sample of NVCC_FAST_SAMPLE kernels of each index type in
// one unit per index type, so every nvcc test still runs nvcc on its kind of kernel; the slow tier
// compiles all of them.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { isFastTier, tierCases } from '@tsfuser/test-support';
import { runtimeLibrary, withCLinkage, type CompiledKernel } from '../src/index.js';

export const NVCC = process.env.NVCC ?? '/usr/local/bin/nvcc';
export const hasNvcc = existsSync(NVCC);
const run = promisify(execFile);
/** Kernels of each index type that one compileKernelsWithNvcc call compiles in the fast tier. */
export const NVCC_FAST_SAMPLE = 4;

export async function compileKernelsWithNvcc(kernels: readonly CompiledKernel[], options: { chunks?: number; label?: string; context?: string; cubin?: boolean } = {}): Promise<void> {
  const target = options.cubin === true ? '-cubin' : '-ptx';
  const chunks = isFastTier() ? 1 : (options.chunks ?? 2);
  const dir = mkdtempSync(join(tmpdir(), `tsfuser-nvcc-${options.label ?? 'k'}-`));
  const jobs: Promise<unknown>[] = [];
  for (const indexType of ['Int32', 'Int'] as const) {
    const ks = tierCases(
      kernels.filter((k) => k.indexType === indexType),
      NVCC_FAST_SAMPLE,
    );
    for (let c = 0; c < chunks; c += 1) {
      const part = ks.filter((_, i) => i % chunks === c);
      if (part.length === 0) continue;
      const file = join(dir, `k_${indexType}_${c}.cu`);
      writeFileSync(file, `${runtimeLibrary(indexType, { bulkCopies: part.some((k) => k.dumps.cuda.includes('nvfBulkCopyRow(')), rng: part.some((k) => k.dumps.cuda.includes('NvfRngCache')), scanSort: part.some((k) => k.params.schedulerType === 'greedy'), complex: part.some((k) => /nvf_c(float|double)/.test(k.dumps.cuda)), fastDivision: part.some((k) => k.args.divisors !== null) })}\n${part.map((k) => withCLinkage(k.dumps.cuda)).join('\n')}`);
      jobs.push(
        run(NVCC, [target, '-arch=sm_90', '-std=c++17', file, '-o', `${file}${target === '-cubin' ? '.cubin' : '.ptx'}`], { maxBuffer: 1 << 24 }).catch((e: { stderr?: string }) => {
          throw new Error(`nvcc failed on ${file}${options.context === undefined ? '' : ` (${options.context})`}:\n${(e.stderr ?? '').slice(0, 4000)}`);
        }),
      );
    }
  }
  await Promise.all(jobs);
}
