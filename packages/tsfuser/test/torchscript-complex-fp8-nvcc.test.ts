// The complex and float8 TorchScript graphs (test-fixtures/torchscript/complex-fp8.json, made by
// tools/torchscript/generate_complex_fp8_graphs.py with PyTorch): each lowers (parseJitIR) to a
// fusion the pointwise scheduler takes whole, and its kernel compiles with nvcc -ptx for sm_90.
// Slow tier (nvcc); skipped where nvcc is not installed. Values: graph-fuser's
// test/parse-jit-ir-complex-fp8.test.ts (reference) and the GPU entry tsfuser-complex-fp8-graphs.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tierCases } from '@tsfuser/test-support';
import { compileFusion, runtimeLibrary, withCLinkage } from '@tsfuser/codegen';
import { parseJitIR } from '@tsfuser/graph-fuser';
import { lowerTupleOutputs, parseIR, type Graph } from '@tsfuser/jit-ir';
import { defaultSchedulerRegistry, makeRuntimeInfo, segmentFusion } from '@tsfuser/scheduler';
import { findNvcc } from '../src/dumps/nvcc.js';

interface FixtureCase {
  name: string;
  kind: string;
  graph: string;
  inputs: { shape: number[] }[];
}
const fixture = JSON.parse(readFileSync(fileURLToPath(new URL('../../../test-fixtures/torchscript/complex-fp8.json', import.meta.url)), 'utf8')) as { cases: FixtureCase[] };
const nvcc = findNvcc();

/** The graph with a tuple output replaced by its elements (tuples are not fusion values). */
function untupled(text: string): Graph {
  const g = parseIR(text);
  lowerTupleOutputs(g);
  return g;
}

describe.skipIf(nvcc === null)('complex and float8 TorchScript graphs compile for sm_90', () => {
  it('every graph is one pointwise kernel that nvcc -ptx accepts', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tsfuser-complex-fp8-'));
    const sources: string[] = [];
    let fastDivision = false;
    // The fast test tier (testTier): an evenly spread 6 of the graphs.
    const cases = tierCases(fixture.cases, 6);
    cases.forEach((c, k) => {
      const fusion = parseJitIR(untupled(c.graph));
      const info = makeRuntimeInfo(fusion, c.inputs.map((i) => ({ sizes: i.shape })));
      expect(segmentFusion(fusion, info, defaultSchedulerRegistry()).groups.length, `${c.name} (${c.kind})`).toBe(1);
      const kernel = compileFusion(fusion, info, { fusionId: 24000 + k });
      expect(kernel.params.schedulerType, `${c.name} (${c.kind})`).toBe('pointwise');
      sources.push(withCLinkage(kernel.dumps.cuda));
      fastDivision ||= kernel.args.divisors !== null;
    });
    const file = join(dir, 'k.cu');
    writeFileSync(file, `${runtimeLibrary('Int32', { bulkCopies: false, rng: false, scanSort: false, complex: true, fastDivision })}\n${sources.join('\n')}`);
    execFileSync(nvcc as string, ['-ptx', '-arch=sm_90', '-std=c++17', file, '-o', `${file}.ptx`], { stdio: 'pipe' });
    expect(readFileSync(`${file}.ptx`, 'utf8').match(/\.entry/g)?.length).toBe(cases.length);
  }, 120_000);
});
