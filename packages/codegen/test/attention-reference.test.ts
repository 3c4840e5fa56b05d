// The float64 attention reference that the GPU attention entry checks the generated kernels
// against (@tsfuser/test-support attention-reference.ts), itself checked here against PyTorch:
// F.scaled_dot_product_attention's output and autograd gradients and the logsumexp of the
// masked scores, from test-fixtures/torch-values/attention.json (tools/torch-values/
// matmul_attention_values.py; causal with L ≠ S, GQA, bias, boolean masks with a fully masked
// row, broadcast heads). Dropout: the reference's keep mask against the definition evaluated
// element by element with fusion-ir's Philox (random seeds and sizes, seed printed).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { philox, uniformFloat } from '@tsfuser/fusion-ir';
import { attentionDropoutKeep, attentionReference, seededRandom, testSeed } from '@tsfuser/test-support';

type Encoded = number | string;
interface TorchCase {
  name: string;
  batch: number | number[];
  h: number;
  hkv: number;
  l: number;
  s: number;
  e: number;
  ev: number;
  causal: boolean;
  scale: number | null;
  query: Encoded[];
  key: Encoded[];
  value: Encoded[];
  gradOutput: Encoded[];
  output: Encoded[];
  logsumexp: Encoded[];
  gradQuery: Encoded[];
  gradKey: Encoded[];
  gradValue: Encoded[];
  bias?: { shape: number[]; values: Encoded[] };
  mask?: { shape: number[]; values: boolean[] };
}

const fixture = JSON.parse(readFileSync(fileURLToPath(new URL('../../../test-fixtures/torch-values/attention.json', import.meta.url)), 'utf8')) as { cases: TorchCase[] };

function decode(values: readonly Encoded[]): Float64Array {
  return Float64Array.from(values, (v) => (typeof v === 'number' ? v : v === '-inf' ? -Infinity : v === 'inf' ? Infinity : NaN));
}

/** Index into a [.., H, L, S] tensor of `shape` broadcast to [N, H, L, S] (size-1 dims repeat). */
function broadcastIndex(shape: readonly number[], n: number, h: number, l: number, s: number): number {
  const dims = shape.slice(-4);
  const full = [...Array<number>(4 - dims.length).fill(1), ...dims];
  const [dn, dh, dl, ds] = full as [number, number, number, number];
  const batch = shape.length > 4 ? shape.slice(0, -3).reduce((a, b) => a * b, 1) : dn;
  return (((batch === 1 ? 0 : n) * dh + (dh === 1 ? 0 : h)) * dl + (dl === 1 ? 0 : l)) * ds + (ds === 1 ? 0 : s);
}

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let worst = 0;
  for (let i = 0; i < b.length; i += 1) {
    const x = a[i] ?? NaN;
    const y = b[i] ?? NaN;
    if (x === y) continue;
    worst = Math.max(worst, Math.abs(x - y));
  }
  return worst;
}

describe('float64 attention reference vs PyTorch', () => {
  const cases = fixture.cases.filter((c) => c.e === c.ev);
  it('covers the fixture cases with equal head dims for K and V', () => {
    expect(cases.length).toBeGreaterThanOrEqual(10);
  });
  for (const c of cases) {
    it(c.name, () => {
      const n = Array.isArray(c.batch) ? c.batch.reduce((a, b) => a * b, 1) : c.batch;
      const bias = c.bias === undefined ? undefined : decode(c.bias.values);
      const r = attentionReference(
        {
          q: { sizes: [n, c.h, c.l, c.e], data: decode(c.query) },
          k: { sizes: [n, c.hkv, c.s, c.e], data: decode(c.key) },
          v: { sizes: [n, c.hkv, c.s, c.e], data: decode(c.value) },
          causal: c.causal,
          scale: c.scale ?? 1 / Math.sqrt(c.e),
          ...(bias === undefined || c.bias === undefined ? {} : { biasAt: (bn: number, bh: number, bl: number, bs: number) => bias[broadcastIndex(c.bias?.shape ?? [], bn, bh, bl, bs)] ?? NaN }),
          ...(c.mask === undefined ? {} : { maskAt: (bn: number, bh: number, bl: number, bs: number) => c.mask?.values[broadcastIndex(c.mask.shape, bn, bh, bl, bs)] === true }),
        },
        { sizes: [n, c.h, c.l, c.e], data: decode(c.gradOutput) },
      );
      expect(maxAbsDiff(r.forward.out, decode(c.output))).toBeLessThan(1e-12);
      expect(maxAbsDiff(r.forward.lse, decode(c.logsumexp))).toBeLessThan(1e-12);
      expect(maxAbsDiff(r.backward?.dq ?? [], decode(c.gradQuery))).toBeLessThan(1e-12);
      expect(maxAbsDiff(r.backward?.dk ?? [], decode(c.gradKey))).toBeLessThan(1e-12);
      expect(maxAbsDiff(r.backward?.dv ?? [], decode(c.gradValue))).toBeLessThan(1e-12);
    });
  }

  it("the dropout keep mask is the definition's: uniformf(philox(seed, i / 4, offset)[i % 4]) < float32(1 − p) (random seed printed)", () => {
    const seed = testSeed();
    const random = seededRandom(seed);
    for (let t = 0; t < 6; t += 1) {
      const heads = 1 + Math.floor(random() * 3);
      const [n, h, l, s] = [Math.floor(random() * 2), Math.floor(random() * heads), 1 + Math.floor(random() * 9), 1 + Math.floor(random() * 13)];
      const p = [0.1, 0.5, 0.9][t % 3] ?? 0.5;
      const philoxSeed = BigInt(Math.floor(random() * 2 ** 40));
      const offset = BigInt(Math.floor(random() * 2 ** 20)) * 4n;
      const mask = attentionDropoutKeep(p, philoxSeed, offset, n, h, heads, l, s);
      for (let row = 0; row < l; row += 1) {
        for (let col = 0; col < s; col += 1) {
          const i = ((n * heads + h) * l + row) * s + col;
          const u = uniformFloat(philox(philoxSeed, Math.floor(i / 4), offset)[i % 4] ?? 0);
          expect(mask[row * s + col], `seed ${seed}, case ${t}, element (${n}, ${h}, ${row}, ${col})`).toBe(u < Math.fround(1 - p) ? 1 : 0);
        }
      }
    }
  });
});
