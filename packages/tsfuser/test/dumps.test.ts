// The dump options: nvFuser's NVFUSER_DUMP names (each supported or refused with a reason), their
// parsing (--dump, NVFUSER_DUMP, TSFUSER_DUMP), every supported dump's content on the reference
// backend (compiled for sm_90 with an H100's properties, no GPU), golden files for the
// deterministic ones, capture_debug_output, and --arch / --device-properties.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkGolden } from '@tsfuser/fusion-ir';
import { describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { loadDefinition } from '../src/cli/load-definition.js';
import { planInputs } from '../src/cli/run-inputs.js';
import { compileForTarget } from '../src/dumps/compile-for-target.js';
import { DUMP_OPTIONS, DumpOptionError, parseDumpList } from '../src/dumps/dump-options.js';
import { renderDumps } from '../src/dumps/render-dumps.js';
import { DEFAULT_TARGET } from '../src/dumps/target.js';
import { FusionCache } from '../src/cache/fusion-cache.js';
import { FusionDefinition } from '../src/definition/fusion-definition.js';
import { DataType, Tensor } from '../src/index.js';
import { FIXTURES } from './helpers.js';

const floats = (values: number[], sizes: number[]): Tensor => Tensor.from(new Float32Array(values), sizes, DataType.Float);

const GOLDEN = fileURLToPath(new URL('../../../test-fixtures/golden/tsfuser/dumps/', import.meta.url));
const update = process.env['UPDATE_GOLDEN'] === '1';

/** nvFuser's NVFUSER_DUMP names (csrc/options.cpp, DebugDumpOption). */
const NVFUSER_NAMES = [
  'bank_conflict', 'buffer_reuse_verbose', 'ca_map', 'cubin', 'cuda_full', 'cuda_kernel', 'cuda_to_file', 'draw_segmented_fusion', 'expr_simplify',
  'expr_sort', 'expr_sort_verbose', 'ftrace', 'fusion_args', 'fusion_ir', 'fusion_ir_concretized', 'fusion_ir_graph', 'fusion_ir_math',
  'fusion_ir_original', 'fusion_ir_presched', 'fusion_ir_preseg', 'global_zeroed_memory', 'host_ir_lowering_logging', 'host_ir', 'host_ir_jit',
  'index_type', 'indexing_verbose', 'kernel_args', 'kernel_ir', 'launch_param', 'loop_rotation', 'lower_verbose', 'occupancy',
  'parallel_dimensions', 'perf_debug_verbose', 'pre_segmenter_logging', 'predicate_elimination', 'ptx', 'ptxas_verbose', 'python_definition',
  'python_definition_segments', 'python_frontend_debug', 'sass', 'sass_to_file', 'segmented_fusion', 'segmenter_logging', 'scheduler_params',
  'dynamic_shared_memory', 'scheduler_verbose', 'sync_map', 'transform_propagator', 'communication',
];

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function cli(argv: string[], env: Record<string, string> = {}, cwd = FIXTURES): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), colour: false, env, cwd });
  return { code, stdout, stderr };
}

async function load(file: string) {
  const { definition, inputs } = await loadDefinition(file, FIXTURES);
  return { definition, inputs: planInputs(definition.inputs(), inputs, { seed: 0, cwd: FIXTURES }).inputs };
}

/** What one dump prints on the reference backend through fd.execute(capture_debug_output). */
async function dumpText(file: string, name: string, directory?: string): Promise<string> {
  const { definition, inputs } = await load(file);
  await definition.execute(inputs, { backend: 'reference', dump: new Set([name]), captureDebugOutput: true, ...(directory === undefined ? {} : { dumpDirectory: directory }) });
  return definition.debugOutput() ?? '';
}

describe('the dump option table', () => {
  it("has every nvFuser name, 25 of them supported, and tsfuser's fusion_ir_segments", () => {
    const nv = DUMP_OPTIONS.filter((o) => o.nvFuser).map((o) => o.name);
    expect([...nv].sort()).toEqual([...NVFUSER_NAMES].sort());
    expect(DUMP_OPTIONS.filter((o) => o.nvFuser && o.supported).length).toBeGreaterThanOrEqual(25);
    expect(DUMP_OPTIONS.filter((o) => !o.nvFuser).map((o) => o.name)).toEqual(['fusion_ir_segments']);
    for (const name of ['ptx', 'cuda_to_file', 'kernel_args', 'fusion_args', 'segmenter_logging', 'scheduler_verbose', 'dynamic_shared_memory', 'global_zeroed_memory', 'host_ir', 'fusion_ir_math', 'ptxas_verbose']) {
      expect(DUMP_OPTIONS.find((o) => o.name === name)?.supported, name).toBe(true);
    }
  });

  it('parses comma lists and refuses unknown names in one error listing the valid ones', () => {
    expect([...parseDumpList(' cuda_kernel, ,host_ir', 'NVFUSER_DUMP')]).toEqual(['cuda_kernel', 'host_ir']);
    expect(() => parseDumpList('cuda_kernel,kernel_soup,ptx_soup', 'NVFUSER_DUMP')).toThrow(DumpOptionError);
    expect(() => parseDumpList('kernel_soup,ptx_soup', 'NVFUSER_DUMP')).toThrow(
      /^unknown dump options 'kernel_soup', 'ptx_soup' in NVFUSER_DUMP; valid options: bank_conflict, buffer_reuse_verbose, .*, transform_propagator$/,
    );
  });

  it('reads NVFUSER_DUMP and TSFUSER_DUMP in the CLI; a bad name there is a usage error', async () => {
    const r = await cli(['run', 'nvfuser_readme.py', '--backend', 'reference'], { NVFUSER_DUMP: 'fusion_ir_math', TSFUSER_DUMP: 'index_type' });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^%kernel_math \{\n/);
    expect(r.stdout).toContain('nvfuser_reduction_f0_c1_r0_g0: Index type: int\n');
    const bad = await cli(['run', 'nvfuser_readme.py', '--backend', 'reference'], { NVFUSER_DUMP: 'fusion_ir,kernel_soup' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("unknown dump option 'kernel_soup' in NVFUSER_DUMP; valid options: bank_conflict,");
  });

  it('fd.execute reads NVFUSER_DUMP from the environment, as nvFuser does', async () => {
    const saved = process.env['NVFUSER_DUMP'];
    process.env['NVFUSER_DUMP'] = 'index_type';
    try {
      expect(await dumpText('softmax.py', 'launch_param')).toBe(
        'nvfuser_inner_persistent_f0_c1_r0_g0: Index type: int\nLaunch Parameters: BlockDim.x = 5, BlockDim.y = 1, BlockDim.z = 1, GridDim.x = 8, GridDim.y = 1, GridDim.z = 1, Smem Size = 20\n',
      );
      // The CLI reads its own environment (io.env) and prints python_definition once.
      process.env['NVFUSER_DUMP'] = 'python_definition';
      const r = await cli(['run', 'nvfuser_readme.py', '--backend', 'reference'], { NVFUSER_DUMP: 'python_definition' });
      expect(r.stdout.split('function nvfuserFusionId').length).toBe(2);
      process.env['NVFUSER_DUMP'] = 'kernel_soup';
      await expect(dumpText('softmax.py', 'launch_param')).rejects.toThrow("unknown dump option 'kernel_soup' in NVFUSER_DUMP");
    } finally {
      if (saved === undefined) delete process.env['NVFUSER_DUMP'];
      else process.env['NVFUSER_DUMP'] = saved;
    }
  });

  it('says why an nvFuser dump tsfuser does not support is not printed', async () => {
    expect(await dumpText('softmax.py', 'bank_conflict')).toBe(
      'bank_conflict: not supported by tsfuser: tsfuser kernels use shared memory only for reductions, bulk row copies and transpose tiles (swizzled by construction); there is no bank-conflict analysis\n',
    );
  });
});

/** A fragment each supported compile-side or launch dump must print for issue785_gelu_bias_grad.py (two segments). */
const EXPECTED: Record<string, RegExp> = {
  fusion_ir_original: /^Fusion IR as defined:\nInputs:\n/,
  fusion_ir_concretized: /^Fusion IR after concretization:\nInputs:\n/,
  fusion_ir_preseg: /^Fusion IR after pre-segmenter optimization passes:\nInputs:\n/,
  fusion_ir_presched: /^Fusion IR before scheduling:\nInputs:\n[\s\S]*%kernel_math \{/,
  segmenter_logging: /^Segmenter log \(NVIDIA H100 80GB HBM3\):\n {2}whole fusion:\n[\s\S]*rejected: [\s\S]* {2}2 segments:\n[\s\S]*not merged/,
  segmented_fusion: /^Segmented_Fusion Dump: -- fusion segments:\n/,
  fusion_ir_segments: /^Fusion IR with segments: 2 segments/,
  scheduler_verbose: /^Scheduling segment 0 \([\s\S]*: accepted\nScheduling segment 1 /,
  scheduler_params: /===== Reduction Parameters ========[\s\S]*===== Pointwise Parameters ========/,
  fusion_ir: /%kernel_math \{[\s\S]*TransformPrinter : \n[\s\S]* logical domain: [\s\S]* loop domain: [\s\S]*TransformPrinter : /,
  fusion_ir_math: /^%kernel_math \{\n[\s\S]*\}\n%kernel_math \{\n[\s\S]*\}\n$/,
  lower_verbose: /^After kernel-signature:\n[\s\S]*nvfuser_reduction_f0_c1_r0_g0[\s\S]*After loop-nest:\n[\s\S]*After shared-memory-layout:\n[\s\S]*After kernel-signature:\n[\s\S]*nvfuser_pointwise_f0_c1_r0_g1/,
  kernel_ir: /nvfuser_reduction_f0_c1_r0_g0/,
  index_type: /^nvfuser_reduction_f0_c1_r0_g0: Index type: int\nnvfuser_pointwise_f0_c1_r0_g1: Index type: int\n$/,
  dynamic_shared_memory: /^nvfuser_reduction_f0_c1_r0_g0: dynamic shared memory: \d+ bytes\nnvfuser_pointwise_f0_c1_r0_g1: dynamic shared memory: 0 bytes\n$/,
  global_zeroed_memory: /^\[global zeroed memory\] nvfuser_reduction_f0_c1_r0_g0: /,
  cuda_kernel: /__global__ void __launch_bounds__\(\d+\) nvfuser_reduction_f0_c1_r0_g0\([\s\S]*nvfuser_pointwise_f0_c1_r0_g1\(/,
  cuda_full: /^\n======= Codegen output for kernel: nvfuser_reduction_f0_c1_r0_g0 =======\n\n\/\/ tsfuser runtime helpers\n[\s\S]*extern "C" __global__/,
  launch_param: /^Launch Parameters: BlockDim.x = \d+, [\s\S]*\nLaunch Parameters: /,
  host_ir: /^Launch plan \(NVIDIA H100 80GB HBM3, sm_90\): 2 segments, 2 kernel launches\n {2}buf0 = allocate /,
  fusion_args: /^Arguments for fusion0:\nInputs:\n {2}Double \d[\s\S]* {2}Float \[\d+, \d+, \d+\] \(strides = \[[\s\S]*Outputs:\n {2}Float \[/,
  kernel_args: /^Arguments for kernel nvfuser_reduction_f0_c1_r0_g0:\n {2}input T\d+ \(\d+ bytes at 0\): /,
};

describe('every supported dump prints its content without a GPU', () => {
  for (const option of DUMP_OPTIONS) {
    if (!option.supported || option.stage === 'nvcc' || option.stage === 'definition' || option.name === 'cuda_to_file') continue;
    it(option.name, async () => {
      const pattern = EXPECTED[option.name];
      expect(pattern, `no expectation for ${option.name}`).toBeDefined();
      expect(await dumpText('issue785_gelu_bias_grad.py', option.name)).toMatch(pattern as RegExp);
    });
  }

  it('python_definition (fd.execute and the CLI)', async () => {
    expect(await dumpText('nvfuser_readme.py', 'python_definition')).toMatch(/^function nvfuserFusionId/);
    const r = await cli(['run', 'nvfuser_readme.py', '--backend', 'reference', '--dump', 'python_definition', '--python']);
    expect(r.stdout).toMatch(/^=== python_definition ===\nfunction nvfuserFusionId[\s\S]*def nvfuser_fusion_id/);
  });

  it('host_ir shows views (expr_eval segments) and kernels with an empty grid', async () => {
    const view = FusionDefinition.build((fd) => fd.addOutput(fd.ops.permute(fd.defineTensor(2), [1, 0])), { cache: new FusionCache() });
    await view.execute([floats([1, 2, 3, 4, 5, 6], [2, 3])], { backend: 'reference', dump: new Set(['host_ir']), captureDebugOutput: true });
    expect(view.debugOutput()).toBe(
      'Launch plan (NVIDIA H100 80GB HBM3, sm_90): 1 segment, 0 kernel launches\n' +
        '  segment 0 (expr_eval): no kernel; its outputs are views of what it reads\n' +
        '  view0 = arg0 as [3, 2] (strides = [1, 3]) from element 0\n' +
        '  outputs: out0 = view0\n',
    );
    const empty = FusionDefinition.build((fd) => {
      const x = fd.defineTensor(2);
      fd.addOutput(fd.ops.add(x, x));
    }, { cache: new FusionCache() });
    await empty.execute([floats([], [0, 3])], { backend: 'reference', dump: new Set(['host_ir']), captureDebugOutput: true });
    expect(empty.debugOutput()).toContain('1 segment, 0 kernel launches\n');
    expect(empty.debugOutput()).toContain('segment 0 (pointwise): no launch (empty grid): nvfuser_pointwise_f0_c1_r0_g0 grid (0, 1, 1)');
  });

  it('says in one line why compile-side dumps are not produced for a fusion the GPU path refuses', async () => {
    const scalar = FusionDefinition.build((fd) => fd.addOutput(fd.ops.add(fd.defineScalar(null, 'Double'), fd.defineScalar(null, 'Double'))), { cache: new FusionCache() });
    const [out] = await scalar.execute([1, 2], { backend: 'reference', dump: new Set(['cuda_kernel', 'host_ir']), captureDebugOutput: true });
    expect(out?.toArray()).toEqual([3]);
    expect(scalar.debugOutput()).toBe(
      'cuda_kernel, host_ir: not produced: the GPU path cannot compile this fusion for sm_90 (NVIDIA H100 80GB HBM3): fusion output scalar 2 is not a tensor (scalar outputs run on the reference backend)\n',
    );
  });

  it('cuda_to_file writes __tmp_<kernel>.cu with the full source', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tsfuser-dumps-'));
    expect(await dumpText('softmax.py', 'cuda_to_file', dir)).toBe('PRINTING: __tmp_nvfuser_inner_persistent_f0_c1_r0_g0.cu\n');
    const { definition, inputs } = await load('softmax.py');
    const source = compileForTarget(definition.fusionIr(), inputs, DEFAULT_TARGET).plan.steps[0]?.kernel.source;
    expect(readFileSync(join(dir, '__tmp_nvfuser_inner_persistent_f0_c1_r0_g0.cu'), 'utf8')).toBe(`${source ?? ''}\n`);
  });

  it('the nvcc dumps say so in one line when nvcc is absent', async () => {
    const { definition, inputs } = await load('softmax.py');
    const out: string[] = [];
    renderDumps(compileForTarget(definition.fusionIr(), inputs, DEFAULT_TARGET), definition.fusionIr(), inputs, new Set(['ptx', 'ptxas_verbose', 'sass', 'occupancy']), (t) => void out.push(t), { nvcc: null });
    expect(out).toEqual([
      'ptx: nvfuser_inner_persistent_f0_c1_r0_g0: nvcc is not installed (set NVCC or put nvcc on PATH); this dump needs it\n',
      'ptxas_verbose: nvfuser_inner_persistent_f0_c1_r0_g0: nvcc is not installed (set NVCC or put nvcc on PATH); this dump needs it\n',
      'sass: nvfuser_inner_persistent_f0_c1_r0_g0: nvcc is not installed (set NVCC or put nvcc on PATH); this dump needs it\n',
      'occupancy: nvfuser_inner_persistent_f0_c1_r0_g0: nvcc is not installed (set NVCC or put nvcc on PATH); this dump needs it\n',
    ]);
  });
});

describe('nvcc failures', () => {
  it('print what nvcc said, in the dump, instead of failing the execute', async () => {
    const { definition, inputs } = await load('softmax.py');
    const out: string[] = [];
    renderDumps(compileForTarget(definition.fusionIr(), inputs, DEFAULT_TARGET), definition.fusionIr(), inputs, new Set(['ptx']), (t) => void out.push(t), { nvcc: '/bin/false' });
    expect(out).toEqual(['ptx: nvcc -ptx -arch=sm_90 -std=c++17 -diag-suppress=177 failed for nvfuser_inner_persistent_f0_c1_r0_g0 (exit status 1)\n']);
  });
});

/** Deterministic dumps, golden-tested (UPDATE_GOLDEN=1 rewrites them). */
const GOLDEN_DUMPS = [
  'segmenter_logging', 'segmented_fusion', 'scheduler_verbose', 'scheduler_params', 'fusion_ir_math', 'index_type', 'dynamic_shared_memory',
  'global_zeroed_memory', 'launch_param', 'host_ir', 'fusion_args', 'kernel_args',
];

describe('golden dumps', () => {
  for (const file of ['issue785_gelu_bias_grad.py', 'layer_norm_backward.py']) {
    it(file, async () => {
      const { definition, inputs } = await load(file);
      const c = compileForTarget(definition.fusionIr(), inputs, DEFAULT_TARGET);
      let text = '';
      for (const name of GOLDEN_DUMPS) {
        text += `=== ${name} ===\n`;
        renderDumps(c, definition.fusionIr(), inputs, new Set([name]), (t) => void (text += t), { nvcc: null });
      }
      const r = checkGolden(text, `${GOLDEN}${file.replace(/\.py$/, '')}.dumps.txt`, update);
      expect(r.diff).toBe('');
    });
  }
});

describe('the target of compile-side dumps', () => {
  it('is an H100 at sm_90 unless --arch / --device-properties say otherwise', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tsfuser-dumps-'));
    const props = join(dir, 'a100.json');
    writeFileSync(props, JSON.stringify({ name: 'NVIDIA A100-SXM4-80GB', smCount: 108, computeCapability: [8, 0], l2CacheBytes: 41943040, sharedMemPerSm: 167936, sharedMemPerBlockOptin: 166912 }));
    const h100 = await cli(['run', 'softmax.py', '--backend', 'reference', '--dump', 'host_ir']);
    expect(h100.stdout).toMatch(/^Launch plan \(NVIDIA H100 80GB HBM3, sm_90\)/);
    const a100 = await cli(['run', 'softmax.py', '--backend', 'reference', '--dump', 'host_ir', '--arch', 'sm_80', '--device-properties', props]);
    expect(a100.code).toBe(0);
    expect(a100.stdout).toMatch(/^Launch plan \(NVIDIA A100-SXM4-80GB, sm_80\)/);
  });

  it('refuses a malformed --arch or --device-properties with one usage error', async () => {
    const arch = await cli(['run', 'softmax.py', '--backend', 'reference', '--arch', 'compute_90']);
    expect(arch.code).toBe(2);
    expect(arch.stderr).toContain("--arch must be a real GPU architecture such as sm_90 or sm_80, got 'compute_90'");
    const dir = mkdtempSync(join(tmpdir(), 'tsfuser-dumps-'));
    writeFileSync(join(dir, 'bad.json'), '{"smCount": -3}');
    const props = await cli(['run', 'softmax.py', '--backend', 'reference', '--device-properties', join(dir, 'bad.json')]);
    expect(props.code).toBe(2);
    expect(props.stderr).toContain('smCount must be a positive integer, got -3');
  });
});

/** The README's row for one option (the README table must list every option as the table says). */
function readmeRow(o: (typeof DUMP_OPTIONS)[number]): string {
  const name = `\`${o.name}\`${o.nvFuser ? '' : ' (tsfuser only)'}`;
  if (!o.supported) return `| ${name} | no | ${o.reason} |`;
  const executor = ['fusion_ir_presched', 'segmented_fusion', 'fusion_ir_segments', 'scheduler_params', 'fusion_ir', 'fusion_ir_math', 'kernel_ir', 'cuda_kernel', 'launch_param'].includes(o.name);
  return `| ${name} | yes${executor ? ' (*executor*)' : ''}${o.stage === 'nvcc' ? ' (nvcc)' : ''} | ${o.description} |`;
}

describe('the README', () => {
  it('has a row for every dump option, in table order', () => {
    const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');
    const rows = DUMP_OPTIONS.map(readmeRow).join('\n');
    if (process.env['PRINT_README_ROWS'] === '1') console.log(rows);
    expect(readme).toContain(rows);
  });
});
