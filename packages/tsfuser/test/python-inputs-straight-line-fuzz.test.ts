// Fuzzer of the inputs line as straight-line Python (bounded, seed printed; tierCount sizes it):
// random scripts that bind and rebind x, y, z and n with factories, .t(), .contiguous(),
// .permute and plain copies, sizes written as Python integer arithmetic (`7 // 2`, `2**2 - 1`,
// `n + 1`), ending with `fd.execute([...])` and then more rebindings, are run
// through the importer and compared with a model of CPython's semantics (a name is its latest
// binding before the use; a use of a name never bound is "name '…' is not defined"). Only what
// fd.execute receives is evaluated (an unused statement that would raise in CPython is not).
// TSFUSER_FUZZ_CASES / TSFUSER_FUZZ_SEED for longer runs.

import { describe, expect, it } from 'vitest';
import { tierCount } from '@tsfuser/test-support';
import { DefinitionImportError, Tensor } from '../src/index.js';
import { materializeInput } from '../src/io/input-generation.js';
import { Random } from '../src/io/random.js';
import { importPythonScript } from '../src/python/import-definition.js';
import { ONE_INPUT_DEFINITION as DEFINITION } from './helpers.js';

const SEED = Number(process.env['TSFUSER_FUZZ_SEED'] ?? 20261202);
const CASES = Number(process.env['TSFUSER_FUZZ_CASES'] ?? tierCount(300, 40));


interface Layout {
  sizes: number[];
  strides: number[];
}

type Value = { kind: 'tensor'; layout: Layout } | { kind: 'int'; value: number };

function contiguous(sizes: number[]): Layout {
  const strides = sizes.map((_, d) => sizes.slice(d + 1).reduce((a, b) => a * b, 1));
  return { sizes, strides };
}

function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 13), 1274126177) + 0x6d2b79f5) >>> 0;
    return s / 2 ** 32;
  };
}

const TENSORS = ['x', 'y', 'z'] as const;

/**
 * Python integer arithmetic whose value is `v` (> 0): a literal, or +, -, *, //, %, ** (the
 * importer must compute it as CPython does, or the sizes differ from the model).
 */
function intExpr(next: () => number, v: number): string {
  const k = 1 + Math.floor(next() * 4);
  switch (Math.floor(next() * 7)) {
    case 0:
      return `${v + k} - ${k}`;
    case 1:
      return `${v * k + (k - 1)} // ${k}`;
    case 2:
      return `${v + k * (v + 1)} % ${v + 1}`;
    case 3:
      return `${k}**2 - ${k * k - v}`;
    case 4:
      return `-${k} + ${v + k}`;
    case 5:
      return `${v} * 1**${k}`;
    default:
      return String(v);
  }
}

/** One random statement over `env` (the model), as text; the model is updated as CPython would. */
function statement(next: () => number, env: Map<string, Value>): { text: string; error: string | null } {
  const target = TENSORS[Math.floor(next() * TENSORS.length)] as string;
  const source = TENSORS[Math.floor(next() * TENSORS.length)] as string;
  const r = next();
  const src = env.get(source);
  const needsSource = r >= 0.35 && r < 0.9;
  if (needsSource && src?.kind !== 'tensor') return { text: `${target} = ${source}.t()`, error: src === undefined && next() < 0.15 ? `name '${source}' is not defined` : 'skip' };
  const s = src as { kind: 'tensor'; layout: Layout };
  if (r < 0.2) {
    const a = 1 + Math.floor(next() * 4);
    const b = 1 + Math.floor(next() * 4);
    env.set(target, { kind: 'tensor', layout: contiguous([a, b]) });
    return { text: `${target} = torch.randn(${intExpr(next, a)}, ${intExpr(next, b)})`, error: null };
  }
  if (r < 0.35) {
    const n = env.get('n');
    if (n?.kind !== 'int') {
      const v = 1 + Math.floor(next() * 5);
      env.set('n', { kind: 'int', value: v });
      return { text: `n = ${v}`, error: null };
    }
    const plus = Math.floor(next() * 3);
    env.set(target, { kind: 'tensor', layout: contiguous([n.value + plus, 2]) });
    return { text: `${target} = torch.ones(${plus === 0 ? 'n' : `n + ${plus}`}, 2)`, error: null };
  }
  if (r < 0.55) {
    env.set(target, { kind: 'tensor', layout: { sizes: [...s.layout.sizes].reverse(), strides: [...s.layout.strides].reverse() } });
    return { text: `${target} = ${source}.t()`, error: null };
  }
  if (r < 0.7) {
    // PyTorch's contiguous() returns the tensor itself when is_contiguous() holds, which ignores
    // the strides of size-1 dims (randn(2, 1).t() keeps strides (1, 1)).
    const dense = contiguous([...s.layout.sizes]);
    const already = s.layout.sizes.every((n, d) => n === 1 || s.layout.strides[d] === dense.strides[d]);
    env.set(target, { kind: 'tensor', layout: already ? s.layout : dense });
    return { text: `${target} = ${source}.contiguous()`, error: null };
  }
  if (r < 0.8) {
    env.set(target, { kind: 'tensor', layout: { sizes: [s.layout.sizes[1] as number, s.layout.sizes[0] as number], strides: [s.layout.strides[1] as number, s.layout.strides[0] as number] } });
    return { text: `${target} = ${source}.permute(1, 0)`, error: null };
  }
  if (r < 0.9) {
    env.set(target, src as Value);
    return { text: `${target} = ${source}`, error: null };
  }
  const v = 1 + Math.floor(next() * 5);
  env.set('n', { kind: 'int', value: v });
  return { text: `n = ${intExpr(next, v)}`, error: null };
}

/** A case: its script, and the layouts fd.execute receives (or the error CPython would raise). */
function makeCase(seed: number): { script: string; expected: Layout[] | string } {
  const next = random(seed);
  const env = new Map<string, Value>([['x', { kind: 'tensor', layout: contiguous([2, 3]) }]]);
  const lines: string[] = ['x = torch.randn(2, 3)'];
  const count = 2 + Math.floor(next() * 10);
  for (let i = 0; i < count; i += 1) {
    const s = statement(next, env);
    if (s.error === 'skip') continue;
    lines.push(s.text);
    if (s.error !== null) {
      // The importer evaluates what fd.execute needs: use the name bound from the undefined one.
      const target = s.text.split(' = ')[0] as string;
      lines.push(`inputs = [${target}]`, 'fd.execute(inputs)');
      return { script: lines.join('\n'), expected: s.error };
    }
  }
  const bound = TENSORS.filter((t) => env.get(t)?.kind === 'tensor');
  const used = bound.length > 0 ? bound.slice(0, 1 + Math.floor(next() * bound.length)) : ['x'];
  lines.push(`inputs = [${used.join(', ')}]`, 'fd.execute(inputs)');
  if (bound.length === 0) return { script: lines.join('\n'), expected: "name 'x' is not defined" };
  const expected = used.map((t) => (env.get(t) as { kind: 'tensor'; layout: Layout }).layout);
  // Rebindings after the call must not change what it received.
  for (const t of used) lines.push(`${t} = torch.randn(7, 9)`);
  lines.push('inputs = [torch.ones(5)]');
  return { script: lines.join('\n'), expected };
}

function actual(script: string): Layout[] | string {
  try {
    const inputs = importPythonScript(`${DEFINITION}${script}\n`).inputs ?? [];
    const rng = new Random(3);
    return inputs.map((spec) => {
      const t = materializeInput(spec, rng) as Tensor;
      return { sizes: [...t.sizes], strides: [...t.strides] };
    });
  } catch (e) {
    if (e instanceof DefinitionImportError) return e.message.replace(/^\d+:\d+: /, '');
    return `uncaught ${String(e)}`;
  }
}

describe('straight-line inputs fuzzer', () => {
  it(`runs ${CASES} scripts from seed ${SEED} against the model of CPython`, () => {
    const failures: string[] = [];
    let refused = 0;
    for (let i = 0; i < CASES; i += 1) {
      const c = makeCase(SEED + i);
      if (typeof c.expected === 'string') refused += 1;
      const got = actual(c.script);
      if (JSON.stringify(got) !== JSON.stringify(c.expected)) failures.push(`case seed ${SEED + i}:\n${c.script}\n  want ${JSON.stringify(c.expected)}\n  got  ${JSON.stringify(got)}`);
    }
    console.log(`straight-line inputs fuzz: seed ${SEED}, ${CASES} cases (${refused} refused), ${failures.length} failures`);
    expect(failures.slice(0, 5), `seed ${SEED}`).toEqual([]);
    // Both outcomes were exercised.
    expect(refused).toBeGreaterThan(0);
    expect(refused).toBeLessThan(CASES);
  });
});
