// Property: for random graphs of supported pointwise ops (broadcast operands, constant and runtime
// scalars, Float and Half), parseJitIR's Fusion computes what the aten reference computes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { differentialCheck } from './helpers/differential.js';
import { graphOf, tensorType as T } from './helpers/ir-builder.js';

const SHAPES = [[3, 4], [4], [1, 4], [3, 1], [2, 3, 4]] as const;
const UNARY = ['sigmoid', 'tanh', 'relu', 'neg', 'abs', 'sin', 'silu', 'erf'] as const;
const BINARY = ['add', 'sub', 'mul', 'maximum', 'minimum', 'where_gt', 'add_alpha', 'mul_scalar', 'mul_runtime'] as const;

interface Step {
  op: (typeof UNARY)[number] | (typeof BINARY)[number];
  a: number;
  b: number;
}

const stepArb = fc.record({
  op: fc.constantFrom(...UNARY, ...BINARY),
  a: fc.nat(),
  b: fc.nat(),
});

const recipeArb = fc.record({
  dtype: fc.constantFrom('Float', 'Float', 'Half'),
  shapes: fc.array(fc.constantFrom(...SHAPES), { minLength: 1, maxLength: 3 }),
  steps: fc.array(stepArb, { minLength: 1, maxLength: 8 }),
  extraOutput: fc.boolean(),
});

/** Graph text for a recipe: values %v0.. are inputs, then one node per step. */
function buildGraph(r: { dtype: string; shapes: readonly (readonly number[])[]; steps: readonly Step[]; extraOutput: boolean }) {
  const inputs = r.shapes.map((s, i) => `%v${i} : ${T(r.dtype, ...s)}`);
  inputs.push('%s : float');
  const lines = [
    '%two : int = prim::Constant[value=2]()',
    '%one : int = prim::Constant[value=1]()',
    '%c : float = prim::Constant[value=0.75]()',
  ];
  let count = r.shapes.length;
  const pick = (k: number): string => `%v${k % count}`;
  for (const step of r.steps) {
    const [a, b] = [pick(step.a), pick(step.b)];
    const out = `%v${count}`;
    switch (step.op) {
      case 'add':
      case 'sub':
        lines.push(`${out} : Tensor = aten::${step.op}(${a}, ${b}, %one)`);
        break;
      case 'add_alpha':
        lines.push(`${out} : Tensor = aten::add(${a}, ${b}, %two)`);
        break;
      case 'mul':
      case 'maximum':
      case 'minimum':
        lines.push(`${out} : Tensor = aten::${step.op}(${a}, ${b})`);
        break;
      case 'mul_scalar':
        lines.push(`${out} : Tensor = aten::mul(${a}, %c)`);
        break;
      case 'mul_runtime':
        lines.push(`${out} : Tensor = aten::mul(${a}, %s)`);
        break;
      case 'where_gt':
        lines.push(`%g${count} : Tensor = aten::gt(${a}, ${b})`, `${out} : Tensor = aten::where(%g${count}, ${a}, ${b})`);
        break;
      default:
        lines.push(`${out} : Tensor = aten::${step.op}(${a})`);
    }
    count += 1;
  }
  const outputs = [`v${count - 1}`];
  if (r.extraOutput && count - 2 >= r.shapes.length) outputs.push(`v${count - 2}`);
  return graphOf(inputs, lines.join('\n'), outputs);
}

describe('random pointwise graphs', () => {
  it('lower to fusions that compute what aten computes', () => {
    fc.assert(
      fc.property(recipeArb, (recipe) => {
        const g = buildGraph(recipe);
        const problems = differentialCheck(g, { atol: 1e-4 });
        expect(problems.join('\n'), g.toString()).toBe('');
      }),
      { numRuns: 150 },
    );
  });
});
