import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DefinitionImportError, FusionCache, hashRecords, importPythonDefinition, importPythonScript } from '../src/index.js';
import { fixtureText, pythonFixtures } from './helpers.js';

function importError(text: string): DefinitionImportError {
  try {
    importPythonDefinition(text, { cache: new FusionCache() });
  } catch (e) {
    if (e instanceof DefinitionImportError) return e;
    throw e;
  }
  throw new Error('expected a DefinitionImportError');
}

const HEADER = 'def nvfuser_fusion_id0(fd : FusionDefinition) -> None :\n';

describe('importPythonDefinition', () => {
  it.each(pythonFixtures())('round-trips %s through printPython with the same id', (file) => {
    const cache = new FusionCache();
    const fd = importPythonDefinition(fixtureText(file), { cache });
    const again = importPythonDefinition(fd.printPython(), { cache });
    expect(again.id()).toBe(fd.id());
    expect(hashRecords(again.records())).toBe(hashRecords(fd.records()));
  });

  it('reads the older symbolic_sizes/contiguous form and define_constant like the newer form', () => {
    const old = `${HEADER}    T0 = fd.define_tensor(symbolic_sizes=[-1, 1, -1], contiguous=[True, True, True], dtype=DataType.Float)\n    S1 = fd.define_constant(3.00000)\n    T2 = fd.ops.mul(T0, S1)\n    T3 = fd.ops.sum(T2, axes=[-1], keepdim=False, dtype=DataType.Float)\n    fd.add_output(T3)\n`;
    const newer = `${HEADER}    T0 = fd.define_tensor(shape=[-1, 1, -1], contiguity=[True, None, True], dtype=DataType.Float, is_cpu=False)\n    S1 = fd.define_scalar(3.0, dtype=DataType.Double)\n    T2 = fd.ops.mul(T0, S1)\n    T3 = fd.ops.sum(T2, dims=[-1], keepdim=False, dtype=DataType.Float)\n    fd.add_output(T3)\n`;
    const cache = new FusionCache();
    expect(importPythonDefinition(old, { cache }).id()).toBe(importPythonDefinition(newer, { cache }).id());
  });

  it('handles positional and keyword arguments, tuple unpacking, size/shape and python floats', () => {
    const text = `${HEADER}    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T1, T2 = fd.ops.var_mean(T0, [1], 0, False)
    T3 = fd.ops.broadcast_in_dim(T2, shape=[T0.size(0), 1], broadcast_dims=[0])
    T4 = fd.ops.sub(T0, T3)
    T5 = fd.ops.mul(T4, 2.0)
    T6 = fd.ops.reshape(T5, new_shape=T0.shape())
    fd.add_output(T6)
    fd.add_output(T1)
`;
    const fd = importPythonDefinition(text, { cache: new FusionCache() });
    const ops = fd.records().map((r) => r.op);
    expect(ops).toEqual(['defineTensor', 'varMean', 'size', 'broadcastInDim', 'sub', 'defineScalar', 'mul', 'shape', 'reshape', 'addOutput', 'addOutput']);
    expect(fd.records()[5]?.args).toEqual([2, 'Double']);
  });

  it('reads the inputs list: torch factories, dtypes, as_strided and python scalars', () => {
    const script = `import torch
${HEADER}    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[False, True], dtype=DataType.Half, is_cpu=False)
    S1 = fd.define_scalar(None, dtype=DataType.Double)
    fd.add_output(fd.ops.mul(T0, S1))

inputs = [
    torch.randn(4, 6, dtype=torch.float16, device='cuda').as_strided((4, 3), (6, 1)),
    2.5,
]
`;
    const r = importPythonScript(script, { cache: new FusionCache() });
    expect(r.inputs).toEqual([
      { kind: 'tensor', factory: 'randn', shape: [4, 6], dtype: 'Half', asStrided: { size: [4, 3], stride: [6, 1] } },
      { kind: 'scalar', value: 2.5, isFloat: true },
    ]);
    expect(r.functionName).toBe('nvfuser_fusion_id0');
  });

  it('reads a with-block definition and the list passed to fd.execute', () => {
    const script = `with FusionDefinition() as fd :
    t0 = fd.define_tensor(3)
    fd.add_output(fd.ops.relu(t0))

input1 = torch.full((2, 3, 4), 1.5, device='cuda')
out = fd.execute([input1])[0]
`;
    const r = importPythonScript(script, { cache: new FusionCache() });
    expect(r.definition.records()).toHaveLength(3);
    expect(r.inputs).toEqual([{ kind: 'tensor', factory: 'full', shape: [2, 3, 4], dtype: 'Float', fill: 1.5 }]);
  });

  it('reports an unknown op with its line and column', () => {
    const e = importError(`${HEADER}    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n    T1 = fd.ops.frobnicate(T0)\n`);
    expect([e.line, e.column]).toEqual([3, 10]);
    expect(e.description).toMatch(/unknown op 'fd.ops.frobnicate'/);
  });

  it('reports a wrong keyword at the keyword', () => {
    const e = importError(`${HEADER}    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n    T1 = fd.ops.sum(T0, axis_list=[0])\n`);
    expect([e.line, e.column]).toEqual([3, 25]);
    expect(e.description).toMatch(/unexpected keyword argument 'axis_list'.*parameters: arg, dims, keepdim, dtype/);
  });

  it('reports a bad shape list', () => {
    const bad = importError(`${HEADER}    T0 = fd.define_tensor(shape=[-1, -5], contiguity=[True, True], dtype=DataType.Float)\n`);
    expect([bad.line, bad.column]).toEqual([2, 10]);
    expect(bad.description).toMatch(/shape\[1\] is -5/);
    const unclosed = importError(`${HEADER}    T0 = fd.define_tensor(shape=[-1, -1 contiguity=[True, True])\n`);
    expect([unclosed.line, unclosed.column]).toEqual([2, 64]);
    expect(unclosed.description).toMatch(/closing '\)' does not match '\[' opened at 2:33/);
  });

  it('reports a fusion-ir error (wrong broadcast dims) at the call', () => {
    const e = importError(`${HEADER}    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n    T1 = fd.ops.broadcast_in_dim(T0, shape=[2, 3], broadcast_dims=[0, 1])\n`);
    expect(e.line).toBe(3);
    expect(e.description).toMatch(/broadcastInDim/);
  });

  it('fails only with DefinitionImportError on mutated fixtures (property)', () => {
    const base = fixtureText('issue785_pow_sum.py');
    fc.assert(
      fc.property(fc.nat(base.length - 1), fc.string({ maxLength: 3 }), (at, insert) => {
        const text = base.slice(0, at) + insert + base.slice(at + 1);
        try {
          importPythonScript(text, { cache: new FusionCache() });
        } catch (e) {
          expect(e).toBeInstanceOf(DefinitionImportError);
          const err = e as DefinitionImportError;
          expect(err.line).toBeGreaterThanOrEqual(1);
          expect(err.column).toBeGreaterThanOrEqual(1);
        }
      }),
      { numRuns: 300 },
    );
  });
});
