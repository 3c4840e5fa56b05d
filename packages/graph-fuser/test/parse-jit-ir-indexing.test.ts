// parseJitIR of aten::index_select, aten::gather and aten::embedding: the lowered fusion on the
// reference evaluator against values PyTorch computed (the cases of
// test-fixtures/torch-values/indexing.json), a pointwise consumer in the same graph, and the
// arguments that keep a node out of a fusion (a runtime dim, sparse_grad=True).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { HostTensor, evaluate, type DataType } from '@tsfuser/fusion-ir';
import { jitOpSupport, parseJitIR } from '../src/index.js';
import { graphOf, tensorType as T } from './helpers/ir-builder.js';

interface FixtureTensor {
  shape: number[];
  dtype: DataType;
  values: number[];
}
interface FixtureCase {
  op: string;
  args: { dim?: number; padding_idx?: number };
  inputs: FixtureTensor[];
  expected?: FixtureTensor;
}

const fixture = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../../test-fixtures/torch-values/indexing.json', import.meta.url)), 'utf8'),
) as { cases: FixtureCase[] };

const JIT_DTYPE: Partial<Record<DataType, string>> = { Float: 'Float', BFloat16: 'BFloat16', Half: 'Half', Int: 'Long', Int32: 'Int', Double: 'Double' };

function host(t: FixtureTensor): HostTensor {
  return HostTensor.fromValues(t.dtype, t.shape, t.dtype === 'Int' ? t.values.map((v) => BigInt(v)) : t.values);
}

function input(name: string, t: FixtureTensor): string {
  return `%${name} : ${T(JIT_DTYPE[t.dtype] ?? 'Float', ...t.shape)}`;
}

/** The aten call of a fixture case over %a and %b. */
function call(c: FixtureCase): string | null {
  const dim = `%dim : int = prim::Constant[value=${c.args.dim ?? 0}]()`;
  switch (c.op) {
    case 'index_select':
      return `${dim}\n%o : Tensor = aten::index_select(%a, %dim, %b)`;
    case 'gather':
      return `${dim}\n%f : bool = prim::Constant[value=0]()\n%o : Tensor = aten::gather(%a, %dim, %b, %f)`;
    case 'embedding':
    case 'embedding_fwd':
      return [
        `%p : int = prim::Constant[value=${c.args.padding_idx ?? -1}]()`,
        '%f : bool = prim::Constant[value=0]()',
        '%o : Tensor = aten::embedding(%b, %a, %p, %f, %f)',
      ].join('\n');
    default:
      return null;
  }
}

describe('parseJitIR: indexing ops against PyTorch', () => {
  fixture.cases.forEach((c, k) => {
    const body = call(c);
    if (body === null || c.expected === undefined) return;
    it(`${k}: aten::${c.op === 'embedding_fwd' ? 'embedding' : c.op} ${JSON.stringify(c.args)} ${c.inputs.map((t) => `${t.dtype}[${t.shape.join(', ')}]`).join(', ')}`, () => {
      const [a, b] = c.inputs as [FixtureTensor, FixtureTensor];
      const fusion = parseJitIR(graphOf([input('a', a), input('b', b)], body, ['o']));
      const out = evaluate(fusion, [host(a), host(b)])[0] as HostTensor;
      const want = c.expected as FixtureTensor;
      expect(out.sizes).toEqual(want.shape);
      expect(out.toNumbers()).toEqual(want.values);
    });
  });

  it('lowers an embedding followed by a pointwise op into one fusion', () => {
    const g = graphOf(
      [`%ids : ${T('Long', 2, 3)}`, `%w : ${T('Float', 5, 4)}`],
      `%p : int = prim::Constant[value=-1]()
       %f : bool = prim::Constant[value=0]()
       %e : Tensor = aten::embedding(%w, %ids, %p, %f, %f)
       %two : float = prim::Constant[value=2.]()
       %o : Tensor = aten::mul(%e, %two)`,
      ['o'],
    );
    const fusion = parseJitIR(g);
    const w = HostTensor.fromValues('Float', [5, 4], Array.from({ length: 20 }, (_, i) => i));
    const ids = HostTensor.fromValues('Int', [2, 3], [4n, 0n, 4n, 1n, 2n, 3n]);
    const out = evaluate(fusion, [ids, w])[0] as HostTensor;
    expect(out.sizes).toEqual([2, 3, 4]);
    expect(out.toNumbers().slice(0, 8)).toEqual([32, 34, 36, 38, 0, 2, 4, 6]);
  });

  it('keeps a runtime dim and sparse_grad=True out of fusions, with the reason', () => {
    const g = graphOf(
      [`%x : ${T('Float', 3, 4)}`, `%i : ${T('Long', 3, 2)}`, '%d : int'],
      `%t : bool = prim::Constant[value=1]()
       %one : int = prim::Constant[value=1]()
       %o : Tensor = aten::gather(%x, %d, %i, %t)
       %p : Tensor = aten::gather(%x, %one, %i, %t)`,
      ['o', 'p'],
    );
    const [runtimeDim, sparse] = [...g.nodes()].filter((n) => n.kind === 'aten::gather');
    expect(jitOpSupport(runtimeDim as never)).toMatchObject({ supported: false, reason: expect.stringMatching(/dim/) as unknown });
    expect(jitOpSupport(sparse as never)).toEqual({ supported: false, reason: 'gather with sparse_grad=True (a sparse gradient) is not fused' });
  });
});
