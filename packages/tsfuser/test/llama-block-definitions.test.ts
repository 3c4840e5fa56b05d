// The python examples test-fixtures/definitions/llama_block_fwd.py / llama_block_bwd.py: the
// LLaMA block's inference forward and backward (small size, B2 T16 D64 H4 E16 ffn 160) as
// nvFuser's frontend prints a definition (python_definition with an `inputs = [...]` list), for
// `tsfuser run <file> --check`. Checked here: each imports to the very records the TS
// definition (src/bench/llama-block-*.ts) builds — so it computes what the fixture test checks
// against PyTorch — and runs with --check on the reference backend (exit 0).
// Update command (after a deliberate change of the TS definitions):
//   UPDATE_LLAMA_DEFINITIONS=1 npx vitest run test/llama-block-definitions.test.ts
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FusionCache, hashRecords, importPythonDefinition, type FusionDefinition } from '../src/index.js';
import { LLAMA_SMALL_CONFIG as c, describeLlamaConfig } from '../src/bench/llama-block-config.js';
import { llamaBlockForward, llamaSavedShapes, LLAMA_SAVED } from '../src/bench/llama-block-forward.js';
import { llamaBlockBackward } from '../src/bench/llama-block-backward.js';
import { FIXTURES, runCli } from './helpers.js';

const BF16 = 'torch.bfloat16';

function randn(shape: readonly number[], dtype = BF16): string {
  return `torch.randn(${shape.join(', ')}, dtype=${dtype}, device='cuda')`;
}

/** make_tensor in [low, high]: weights of std ~1/√fan-in, positive statistics. */
function uniform(shape: readonly number[], low: number, high: number, dtype = BF16): string {
  return `torch.testing.make_tensor((${shape.join(', ')}${shape.length === 1 ? ',' : ''}), dtype=${dtype}, device='cuda', low=${low}, high=${high})`;
}

function forwardInputs(): string[] {
  const [q, kv] = [c.heads * c.headDim, c.kvHeads * c.headDim];
  const w = (out: number, inFeatures: number): string => {
    const bound = Number(Math.sqrt(3 / inFeatures).toFixed(4));
    return uniform([out, inFeatures], -bound, bound);
  };
  const norm = uniform([c.hidden], 0.5, 1.5);
  const table = uniform([c.seq, c.headDim], -1, 1);
  return [randn([c.batch, c.seq, c.hidden]), table, table, norm, w(q, c.hidden), w(kv, c.hidden), w(kv, c.hidden), w(c.hidden, q), norm, w(c.ffn, c.hidden), w(c.ffn, c.hidden), w(c.hidden, c.ffn)];
}

function savedInputs(): string[] {
  const shapes = llamaSavedShapes(c);
  return LLAMA_SAVED.map((n) => {
    const { sizes, dtype } = shapes[n];
    if (n === 'rstd1' || n === 'rstd2') return uniform(sizes, 0.5, 2, 'torch.float32');
    // The logsumexp in the range a forward gives (log of up to `seq` keys of scores of std ~1):
    // a standard-normal one made P = exp(s − lse) reach e² and more per key, amplifying bf16
    // rounding differences between the GPU's attention kernel and the reference 100-fold.
    if (n === 'lse') return uniform(sizes, Number(Math.log(c.seq).toFixed(2)), Number((Math.log(c.seq) + 2).toFixed(2)), 'torch.float32');
    if (dtype === 'UInt64') return sizes.length === 0 ? "torch.tensor(0, dtype=torch.uint64, device='cuda')" : `torch.zeros(${sizes.join(', ')}, dtype=torch.uint64, device='cuda')`;
    return randn(sizes, dtype === 'Float' ? 'torch.float32' : BF16);
  });
}

function fileText(name: string, what: string[], fd: FusionDefinition, inputs: readonly string[]): string {
  const body = fd.printPython().replace(/^def nvfuser_fusion_id\d+\(/, `def ${name}(`);
  return [
    ...what.map((l) => `# ${l}`),
    `# Generated from the TS definition by packages/tsfuser/test/llama-block-definitions.test.ts (UPDATE_LLAMA_DEFINITIONS=1).`,
    'import torch',
    'from nvfuser import FusionDefinition, DataType',
    '',
    body.trimEnd(),
    '',
    'inputs = [',
    ...inputs.map((i) => `    ${i},`),
    ']',
    '',
    'with FusionDefinition() as fd:',
    `    ${name}(fd)`,
    '',
    'out = fd.execute(inputs)',
    '',
  ].join('\n');
}

const CASES = [
  {
    file: 'llama_block_fwd.py',
    build: (): FusionDefinition => llamaBlockForward(c, { saveForBackward: false }),
    text: (fd: FusionDefinition): string =>
      fileText('llama_block_fwd', [
        `LLaMA decoder block forward (inference), ${describeLlamaConfig(c)} bf16, as nvFuser's python_definition`,
        'prints it: RMSNorm -> q/k/v linears -> RoPE (rotate-half, bf16 cos/sin [T, E]) -> causal sdpfa_fwd ->',
        'o linear -> residual -> RMSNorm -> silu(gate) * up -> down linear -> residual; every bf16 op rounded',
        'as eager PyTorch rounds it. Inputs: x, cos, sin, attn_norm.weight, wq, wk, wv, wo, ffn_norm.weight,',
        'w_gate, w_up, w_down (nn.Linear layout [out, in]).',
      ], fd, forwardInputs()),
  },
  {
    file: 'llama_block_bwd.py',
    build: (): FusionDefinition => llamaBlockBackward(c),
    text: (fd: FusionDefinition): string =>
      fileText('llama_block_bwd', [
        `LLaMA decoder block backward, ${describeLlamaConfig(c)} bf16, as autograd computes it, as nvFuser's`,
        'python_definition prints it. Inputs: dy, the forward\'s inputs, then the saved activations',
        `(${LLAMA_SAVED.join(', ')}); outputs: dx and the grads of the nine weights.`,
        'Here the saved activations are random (a run of the definition, not of a real forward).',
      ], fd, [randn([c.batch, c.seq, c.hidden]), ...forwardInputs(), ...savedInputs()]),
  },
];

describe('LLaMA block python examples (test-fixtures/definitions)', () => {
  it.each(CASES)('$file imports to the records the TS definition builds', ({ file, build, text }) => {
    const path = join(FIXTURES, file);
    const fd = build();
    if (process.env['UPDATE_LLAMA_DEFINITIONS'] === '1') writeFileSync(path, text(fd));
    const source = readFileSync(path, 'utf8');
    expect(source, `${file} is stale: run the update command in this test's header`).toBe(text(fd));
    const imported = importPythonDefinition(source, { cache: new FusionCache() });
    expect(hashRecords(imported.records())).toBe(hashRecords(fd.records()));
  });

  it.each(CASES)('tsfuser run $file --check exits 0 on the reference backend', async ({ file }) => {
    const r = await runCli(['run', join(FIXTURES, file), '--check', '--backend', 'reference']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });
});
