// `tsfuser fuse`: the guarded graph and the Fusion IR of each group. For the seed exercise the
// one group's Fusion has the structure of the seed's printed %kernel (per-channel parameters
// broadcast, rsqrt of var + eps, the alpha int cast to double and multiplied, relu at the end).
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { checkGolden } from '@tsfuser/fusion-ir';
import { runCli } from './helpers.js';

const TORCHSCRIPT = fileURLToPath(new URL('../../../test-fixtures/torchscript/', import.meta.url));
const GOLDEN = fileURLToPath(new URL('../../../test-fixtures/golden/graph-fuser/fuser/', import.meta.url));

function expectGolden(actual: string, name: string): void {
  const r = checkGolden(actual, join(GOLDEN, name), process.env['UPDATE_GOLDEN'] === '1');
  if (!r.ok) expect.fail(r.diff);
}

const count = (text: string, re: RegExp): number => (text.match(re) ?? []).length;

describe('tsfuser fuse', () => {
  it('seed exercise: one group whose Fusion has the seed %kernel structure', async () => {
    const r = await runCli(['fuse', join(TORCHSCRIPT, 'seed_exercise1_batch_norm_add_relu.ir')]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expectGolden(r.stdout, 'cli-fuse-seed_exercise1.txt');
    // The graph section is the fuser golden.
    const graph = readFileSync(join(GOLDEN, 'seed_exercise1_batch_norm_add_relu.txt'), 'utf8');
    expect(r.stdout).toContain(graph);
    const sections = r.stdout.split(/^=== /m);
    expect(sections.map((s) => s.split('\n')[0])).toEqual(['', 'graph after CudaGraphFuser and guardFusionGroups ===', 'prim::CudaFusionGroup_0: fusion_ir_presched ===']);
    const fusion = sections[2] ?? '';
    const math = fusion.slice(fusion.indexOf('%kernel_math {'), fusion.indexOf('TransformPrinter'));
    expect(count(math, /= broadcast\(/g)).toBe(8); // mean, invstd, weight, bias of each batch norm
    expect(count(math, /= rsqrtf\(/g)).toBe(2);
    expect(count(math, /\+ double\(9\.9999997473787516e-06\)/g)).toBe(2);
    expect(math).toMatch(/d\d+ = \(double\)\(i\d+\);/);
    expect(count(math, /= relu\(/g)).toBe(1);
    expect(fusion).toContain('TransformPrinter : ');
    // Inputs: ten tensors and the int alpha, in graph order.
    const inputs = fusion.slice(fusion.indexOf('Inputs:'), fusion.indexOf('Outputs:'));
    expect(count(inputs, /^ {2}T\d+_g\[/gm)).toBe(10);
    expect(count(inputs, /^ {2}i\d+, int64_t$/gm)).toBe(1);
  });

  it('a graph with nothing fusible prints it unchanged and says so', async () => {
    const r = await runCli(['fuse', join(TORCHSCRIPT, 'nothing_fusible.ir')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('(no fusion groups: nothing in this graph is fusible)');
    expect(r.stdout).toContain('aten::mm(%a.1, %b.1)');
  });

  it('--dump launch_param runs the guarded graph and reports each group', async () => {
    const r = await runCli(['fuse', join(TORCHSCRIPT, 'pointwise_add_relu.ir'), '--dump', 'launch_param,cuda_kernel', '--backend', 'reference']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('=== launch_param ===\nlaunch_param (runGraph):\n  prim::CudaFusionGroup_0: taken 1, fallback 0\n');
    expect(r.stdout).toContain('cuda_kernel: not produced by tsfuser fuse (see tsfuser run)');
  });

  it.each(['pointwise_chain.ir', 'profiled_graph.ir', 'reduction_sum_keepdim.ir', 'if_block.ir', 'loop_block.ir', 'multiple_outputs.ir', 'squeeze_unsqueeze.ir', 'broadcast_scalar_ops.ir'])(
    '--run --check --backend reference: %s computes what the un-fused graph computes',
    async (name) => {
      const r = await runCli(['fuse', join(TORCHSCRIPT, name), '--check', '--backend', 'reference', '--dump', 'launch_param']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('=== run (fusion groups on reference) ===\nout0: shape [');
      expect(r.stdout).toContain('check: passed (same outputs as the un-fused graph on the reference)');
      expect(r.stdout).toMatch(/prim::CudaFusionGroup_0: taken \d+, fallback 0/);
    },
  );

  it('--backend gpu without a GPU is a clear usage error; auto falls back with a note', async () => {
    const gpu = await runCli(['fuse', join(TORCHSCRIPT, 'pointwise_add_relu.ir'), '--run', '--backend', 'gpu']);
    if (gpu.code === 0) return; // a GPU host: the GPU suite covers it
    expect(gpu.code).toBe(2);
    expect(gpu.stderr).toMatch(/--backend gpu: the GPU is unavailable: /);
    const auto = await runCli(['fuse', join(TORCHSCRIPT, 'pointwise_add_relu.ir'), '--run']);
    expect(auto.code).toBe(0);
    expect(auto.stderr).toMatch(/^tsfuser fuse: [^\n]*: running on the CPU reference evaluator/);
    expect(auto.stdout).toContain('=== run (fusion groups on reference) ===');
    const bad = await runCli(['fuse', join(TORCHSCRIPT, 'pointwise_add_relu.ir'), '--run', '--backend', 'tpu']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--backend must be gpu, reference or auto, got 'tpu'");
  });

  it('errors: missing file argument, unreadable file, malformed IR, unknown dump', async () => {
    expect((await runCli(['fuse'])).stderr).toBe('tsfuser: tsfuser fuse: missing <graph.ir>\n');
    const missing = await runCli(['fuse', '/nonexistent/g.ir']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read /nonexistent/g.ir');
    const dir = mkdtempSync(join(tmpdir(), 'tsfuser-fuse-'));
    writeFileSync(join(dir, 'bad.ir'), 'graph(%x : Tensor):\n  %y : Tensor = aten::relu(%z)\n  return (%y)\n');
    const bad = await runCli(['fuse', join(dir, 'bad.ir')]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/bad\.ir:2:\d+: .*%z/);
    const dump = await runCli(['fuse', join(TORCHSCRIPT, 'pointwise_add_relu.ir'), '--dump', 'nope']);
    expect(dump.code).toBe(2);
    expect(dump.stderr).toMatch(/unknown dump option 'nope' in --dump/);
  });
});
