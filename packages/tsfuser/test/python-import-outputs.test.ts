// The importer's fd.add_output and fd.define_vector as nvFuser's python bindings take them:
// add_output(t), add_output(t, alias_input=x) (also positional), add_output(t, stride_order=[…])
// (also a positional list); define_vector(size), define_vector(values, dtype=…) over lists and
// tuples of ints ≥ -1 and scalars. Each form gives the same records as the TypeScript API call;
// each misuse is one DefinitionImportError at the argument's line:col.

import { describe, expect, it } from 'vitest';
import { DataType, DefinitionImportError, FusionCache, FusionDefinition, Tensor, importPythonDefinition, type FusionRecord } from '../src/index.js';

const HEADER = 'def nvfuser_fusion_id0(fd : FusionDefinition) -> None :\n';
const INPUTS =
  '    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)\n' +
  '    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)\n' +
  '    T2 = fd.ops.add(T0, T1)\n';

function records(body: string): readonly FusionRecord[] {
  return importPythonDefinition(`${HEADER}${INPUTS}${body}`, { cache: new FusionCache() }).records();
}

function apiRecords(output: (fd: FusionDefinition, t0: ReturnType<FusionDefinition['defineTensor']>, t2: ReturnType<FusionDefinition['defineTensor']>) => void): readonly FusionRecord[] {
  return FusionDefinition.build((fd) => {
    const t0 = fd.defineTensor({ shape: [-1, -1], contiguity: [true, true] });
    const t1 = fd.defineTensor({ shape: [-1, -1], contiguity: [true, true] });
    output(fd, t0, fd.ops.add(t0, t1));
  }, { cache: new FusionCache() }).records();
}

function where(body: string): [number, number, string] {
  try {
    records(body);
  } catch (e) {
    if (e instanceof DefinitionImportError) return [e.line, e.column, e.description];
    throw e;
  }
  throw new Error('expected a DefinitionImportError');
}

describe('fd.add_output as nvFuser binds it', () => {
  it('alias_input= and the positional alias (the form nvFuser prints) give the API records', () => {
    const want = apiRecords((fd, t0, t2) => fd.addOutput(t2, { aliasInput: t0 }));
    expect(records('    fd.add_output(T2, alias_input=T0)\n')).toEqual(want);
    expect(records('    fd.add_output(T2, T0)\n')).toEqual(want);
    expect(records('    fd.add_output(output=T2, alias_input=T0)\n')).toEqual(want);
    // alias_input=None is nvFuser's default: a plain output.
    expect(records('    fd.add_output(T2, alias_input=None)\n')).toEqual(apiRecords((fd, _t0, t2) => fd.addOutput(t2)));
  });

  it('stride_order= and a positional list give the API records, and the output gets those strides', async () => {
    const want = apiRecords((fd, _t0, t2) => fd.addOutput(t2, { strideOrder: [0, 1] }));
    expect(records('    fd.add_output(T2, stride_order=[0, 1])\n')).toEqual(want);
    expect(records('    fd.add_output(T2, [0, 1])\n')).toEqual(want);
    // An empty stride order is nvFuser's "none".
    expect(records('    fd.add_output(T2, stride_order=[])\n')).toEqual(apiRecords((fd, _t0, t2) => fd.addOutput(t2)));
    const fd = importPythonDefinition(`${HEADER}${INPUTS}    fd.add_output(T2, stride_order=[0, 1])\n`, { cache: new FusionCache() });
    const a = Tensor.from(new Float32Array([1, 2, 3, 4, 5, 6]), [2, 3], DataType.Float);
    const [out] = await fd.execute([a, a], { backend: 'reference' });
    expect(out?.strides).toEqual([1, 2]);
    expect(out?.toArray()).toEqual([2, 4, 6, 8, 10, 12]);
  });

  it('refuses what nvFuser refuses, at the argument', () => {
    expect(where('    fd.add_output(T2, alias_input=T0, stride_order=[1, 0])\n')).toEqual([5, 39, "fd.add_output: stride_order can't be dictated for aliased outputs"]);
    expect(where('    fd.add_output(T2, stride_order=[0, 0])\n')).toEqual([5, 23, 'fd.add_output: stride_order [0, 0] must be empty or a permutation of 0..1 for a tensor of rank 2']);
    expect(where('    fd.add_output(T2, stride_order=[-1, 0])\n')).toEqual([5, 23, 'fd.add_output: stride_order [-1, 0] must be empty or a permutation of 0..1 for a tensor of rank 2']);
    expect(where('    fd.add_output(T2, [2, 0, 1])\n')).toEqual([5, 23, 'fd.add_output: stride_order [2, 0, 1] must be empty or a permutation of 0..1 for a tensor of rank 2']);
    expect(where('    fd.add_output(T2, alias_input=3)\n')).toEqual([5, 23, 'fd.add_output: alias_input must be a tensor, got 3']);
    expect(where('    S3 = fd.define_scalar(2.0, dtype=DataType.Double)\n    fd.add_output(S3, alias_input=T0)\n')).toEqual([6, 23, 'fd.add_output: scalar outputs should not alias inputs']);
    expect(where('    S3 = fd.define_scalar(2.0, dtype=DataType.Double)\n    fd.add_output(S3, stride_order=[0])\n')).toEqual([6, 23, "fd.add_output: stride_order can't be dictated for scalar outputs"]);
    expect(where('    fd.add_output(T2, stride_order=[0, 1], alias=T0)\n')).toEqual([5, 44, "fd.add_output() got an unexpected keyword argument 'alias' (parameters: output, alias_input, stride_order)"]);
    expect(where('    fd.add_output(T2, [1, 0], stride_order=[1, 0])\n')).toEqual([5, 23, "fd.add_output() got multiple values for argument 'stride_order'"]);
    expect(where('    fd.add_output([T2])\n')).toEqual([5, 19, 'fd.add_output expects a tensor or scalar, got a list']);
  });
});

describe('fd.define_vector as nvFuser binds it', () => {
  it('define_vector(size) and define_vector(size=…) make that many Int scalar inputs', async () => {
    const want = FusionDefinition.build((fd) => {
      const t = fd.defineTensor({ shape: [-1], contiguity: [true] });
      fd.addOutput(fd.ops.reshape(t, fd.defineVector(2)));
    }, { cache: new FusionCache() }).records();
    const text = (call: string): string => `${HEADER}    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)\n    V1 = ${call}\n    T2 = fd.ops.reshape(T0, new_shape=V1)\n    fd.add_output(T2)\n`;
    for (const call of ['fd.define_vector(2)', 'fd.define_vector(size=2)']) {
      const fd = importPythonDefinition(text(call), { cache: new FusionCache() });
      expect(fd.records()).toEqual(want);
      const [out] = await fd.execute([Tensor.from(new Float32Array([1, 2, 3, 4, 5, 6]), [6], DataType.Float), 3, 2], { backend: 'reference' });
      expect(out?.sizes).toEqual([3, 2]);
    }
  });

  it('define_vector(values, dtype) takes lists and tuples of ints ≥ -1 and scalars; the vector is Int whatever dtype says, as in nvFuser', () => {
    const text = (call: string): string => `${HEADER}    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)\n    S1 = fd.define_scalar(3, dtype=DataType.Int)\n    V2 = ${call}\n    T3 = fd.ops.reshape(T0, new_shape=V2)\n    fd.add_output(T3)\n`;
    const want = importPythonDefinition(text('fd.define_vector([S1, -1], dtype=DataType.Int)'), { cache: new FusionCache() }).records();
    for (const call of ['fd.define_vector([S1, -1])', 'fd.define_vector((S1, -1))', 'fd.define_vector(values=[S1, -1], dtype=DataType.Int32)', 'fd.define_vector([S1, -1], torch.int64)']) {
      expect(importPythonDefinition(text(call), { cache: new FusionCache() }).records(), call).toEqual(want);
    }
    const error = (call: string): [number, number, string] => {
      try {
        importPythonDefinition(text(call), { cache: new FusionCache() });
      } catch (e) {
        if (e instanceof DefinitionImportError) return [e.line, e.column, e.description];
        throw e;
      }
      throw new Error(`${call} was accepted`);
    };
    expect(error('fd.define_vector([S1, -2])')).toEqual([4, 27, 'fd.define_vector: element 1 must be an integer ≥ -1 (symbolic -1, 0, broadcast 1 or a static size) or a scalar, got -2']);
    expect(error('fd.define_vector([S1, 2.0])')).toEqual([4, 27, 'fd.define_vector: element 1 must be an integer ≥ -1 (symbolic -1, 0, broadcast 1 or a static size) or a scalar, got 2']);
    expect(error('fd.define_vector(-1)')).toEqual([4, 27, 'fd.define_vector: size must be a non-negative integer, got -1']);
    expect(error('fd.define_vector(2.5)')).toEqual([4, 27, 'fd.define_vector: size must be a non-negative integer, got 2.5']);
    expect(error('fd.define_vector("x")')).toEqual([4, 27, 'fd.define_vector: expected a size, or a list or tuple of sizes, got "x"']);
  });
});
