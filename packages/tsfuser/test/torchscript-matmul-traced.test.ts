// Real traced TorchScript graphs with matrix products and attention (made by
// tools/torchscript/generate_matmul_graphs.py with PyTorch: Linear → GELU and a GPT MLP block in
// Float and BFloat16 under test-fixtures/torchscript/traced/, an attention block with QKV
// projections and causal F.scaled_dot_product_attention, mm / addmm / bmm / baddbmm / matmul under
// traced-matmul/): each parses, lowers whole with parseJitIR (every aten::linear / mm / … a GEMM
// op, the attention an sdpfa_fwd), fuses and runs (the products inside fusion groups, attention
// outside them) on the reference, and matches PyTorch's committed outputs (tolerance by dtype).
// A mismatched aten::mm is PyTorch's error, not NaN.
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Fusion, HostTensor, evaluate, makeTensor, sdpfaFwd } from '@tsfuser/fusion-ir';
import { parseIR } from '@tsfuser/jit-ir';
import { fuseGraph, guardFusionGroups, lowerJitGraph, referenceGroupExecutor, runGraph } from '@tsfuser/graph-fuser';
import { compareTensors } from '../src/io/compare.js';
import { readNpy } from '../src/io/npy.js';
import { readNpyInput } from '../src/torchscript/graph-inputs.js';
import { runCli } from './helpers.js';

const DIR = fileURLToPath(new URL('../../../test-fixtures/torchscript/traced-matmul/', import.meta.url));
const TRACED = fileURLToPath(new URL('../../../test-fixtures/torchscript/traced/', import.meta.url));
/** The generator's modules that fuse whole live with the other traced graphs (the GPU entry's directory). */
const IN_TRACED = ['linear_gelu.traced.ir', 'mlp.traced.ir', 'mlp_bf16.traced.ir'];
const graphs = [...readdirSync(DIR).filter((f) => f.endsWith('.ir')), ...IN_TRACED].sort();
const dirOf = (file: string): string => (IN_TRACED.includes(file) ? TRACED : DIR);

function npyFiles(dir: string, prefix: string): string[] {
  return readdirSync(dir).filter((f) => f.startsWith(prefix) && f.endsWith('.npy')).sort((a, b) => parseInt(a.slice(prefix.length), 10) - parseInt(b.slice(prefix.length), 10));
}

function load(file: string): { text: string; inputs: HostTensor[]; expected: HostTensor[] } {
  const text = readFileSync(join(dirOf(file), file), 'utf8');
  const graph = parseIR(text);
  const dir = join(dirOf(file), file.replace(/\.traced\.ir$/, ''));
  const inputs = npyFiles(dir, 'in').map((f, i) => readNpyInput(new Uint8Array(readFileSync(join(dir, f))), graph, i, f) as HostTensor);
  const expected = npyFiles(dir, 'out').map((f) => readNpy(new Uint8Array(readFileSync(join(dir, f)))));
  return { text, inputs, expected };
}

function check(file: string, outputs: readonly unknown[], expected: readonly HostTensor[]): void {
  expect(outputs.length, file).toBe(expected.length);
  expected.forEach((e, i) => {
    const out = outputs[i];
    if (!(out instanceof HostTensor)) expect.fail(`${file}: output ${i} is not a tensor`);
    const r = compareTensors(out, e);
    if (!r.ok) expect.fail(`${file}: output ${i}: ${r.reason}`);
  });
}

describe('traced modules with matrix products and attention', () => {
  it.each(graphs)('%s: fused, guarded and run, matches PyTorch', (file) => {
    const { text, inputs, expected } = load(file);
    const graph = parseIR(text);
    fuseGraph(graph);
    guardFusionGroups(graph);
    const run = runGraph(graph, inputs, { executor: referenceGroupExecutor });
    check(file, run.outputs.flatMap((o) => (Array.isArray(o) ? o : [o])), expected);
    // The products run inside the groups (GEMM segments on the GPU), attention outside them.
    const grouped = graph.nodes().flatMap((n) => n.blocks.flatMap((b) => b.nodes())).filter((n) => n.kind === 'prim::CudaFusionGroup');
    const inGroups = grouped.flatMap((g) => g.g('Subgraph').nodes().map((n) => n.kind));
    // (gqa_attention is attention alone)
    expect(inGroups.some((k) => ['aten::linear', 'aten::mm', 'aten::bmm', 'aten::matmul'].includes(k))).toBe(!file.startsWith('gqa_attention'));
    expect(inGroups).not.toContain('aten::scaled_dot_product_attention');
  });

  it.each(graphs.filter((f) => !f.startsWith('products')))('%s: parseJitIR lowers the whole graph to one Fusion that matches PyTorch', (file) => {
    const { text, inputs, expected } = load(file);
    const lowering = lowerJitGraph(parseIR(text));
    const kinds = lowering.fusion.exprs().map((e) => e.kind);
    if (file.includes('attention')) expect(kinds).toContain('SdpaFwdOp');
    else expect(kinds).toContain('LinearOp');
    const values = lowering.fusion.inputs.map((_, i) => inputs[i] as HostTensor);
    check(file, evaluate(lowering.fusion, values), expected);
  });

  const MISMATCHED_MM = [
        'graph(%a : Float(2, 3, strides=[3, 1], requires_grad=0, device=cuda:0),',
        '      %b : Float(2, 3, strides=[3, 1], requires_grad=0, device=cuda:0)):',
        '  %c : Float(2, 3, strides=[3, 1], requires_grad=0, device=cuda:0) = aten::mm(%a, %b) # m.py:1:0',
        '  %d : Float(2, 3, strides=[3, 1], requires_grad=0, device=cuda:0) = aten::relu(%c) # m.py:2:0',
        '  return (%d)',
      ].join('\n');

  it('an aten::mm with mismatched sizes fails with PyTorch’s message (was NaN)', () => {
    const graph = parseIR(MISMATCHED_MM);
    fuseGraph(graph);
    guardFusionGroups(graph);
    const x = HostTensor.fromValues('Float', [2, 3], [1, 2, 3, 4, 5, 6]);
    expect(() => runGraph(graph, [x, x], { executor: referenceGroupExecutor })).toThrow('mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)');
  });

  it('`tsfuser fuse --run --check` of it exits 1 with PyTorch’s message (it returned NaN and passed --check)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tsfuser-mm-'));
    const file = join(dir, 'mm_mismatch.ir');
    writeFileSync(file, MISMATCHED_MM);
    const r = await runCli(['fuse', file, '--run', '--check', '--backend', 'reference']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)');
    expect(r.stderr.split('\n').filter((l) => l.trim() !== '')).toHaveLength(1);
  });

  it('scaled_dot_product_attention with dropout draws from the graph runner’s seed and offset inputs', () => {
    const { text, inputs } = load('gqa_attention.traced.ir');
    const withDropout = text.replace('%4 : float = prim::Constant[value=0.]()', '%4 : float = prim::Constant[value=0.25]()');
    expect(withDropout).not.toBe(text);
    const lowering = lowerJitGraph(parseIR(withDropout));
    // q, k, v, mask, then the two Int inputs the runner fills from its Philox generator
    expect(lowering.fusion.inputs.map((v) => (v.kind === 'iterDomain' ? null : v.dtype))).toEqual(['Float', 'Float', 'Float', 'Bool', 'Int', 'Int']);
    const [out] = evaluate(lowering.fusion, [...inputs, 11n, 4n]) as HostTensor[];
    // the same op built directly with that seed and offset
    const f = new Fusion();
    const t = (shape: number[], dtype: 'Float' | 'Bool') => {
      const x = makeTensor(f, { shape, dtype });
      f.addInput(x);
      return x;
    };
    const q = t([1, 4, 5, 8], 'Float');
    const k = t([1, 2, 7, 8], 'Float');
    const v = t([1, 2, 7, 8], 'Float');
    const mask = t([1, 1, 5, 7], 'Bool');
    f.addOutput(sdpfaFwd(q, k, v, { mask, dropoutP: 0.25, scale: 0.5, rng: { rngSeed: 11, rngOffset: 4 } }).output);
    const maskValues = inputs[3] as HostTensor;
    const [want] = evaluate(f, [...inputs.slice(0, 3), HostTensor.fromValues('Bool', [1, 1, 5, 7], maskValues.toNumbers().map((x) => x !== 0))]) as HostTensor[];
    expect((out as HostTensor).toNumbers()).toEqual((want as HostTensor).toNumbers());
    const [undropped] = evaluate(lowerJitGraph(parseIR(text)).fusion, inputs) as HostTensor[];
    expect((out as HostTensor).toNumbers()).not.toEqual((undropped as HostTensor).toNumbers());
  });

  it('scaled_dot_product_attention with differing head counts needs enable_gqa=True, as PyTorch', () => {
    const { text } = load('gqa_attention.traced.ir');
    const noGqa = text.replace('%7 : bool = prim::Constant[value=1]()', '%7 : bool = prim::Constant[value=0]()');
    expect(noGqa).not.toBe(text);
    expect(() => lowerJitGraph(parseIR(noGqa))).toThrow('the query has 4 heads and the key 2: grouped-query attention needs enable_gqa=True');
  });
});
