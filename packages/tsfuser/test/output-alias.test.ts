// add_output(t, alias_input=x) on the reference backend: the result lands in x's storage through
// x's strides, hidden outputs are not returned (nvFuser's kHidden), other inputs stay untouched.
import { describe, expect, it } from 'vitest';
import { HostTensor } from '@tsfuser/fusion-ir';
import { DataType, DefinitionError, FusionCache, FusionDefinition, InputMismatchError, Tensor, printTypeScriptDefinition } from '../src/index.js';

function host(values: number[], sizes: number[], strides?: number[]): Tensor {
  const t = HostTensor.fromValues('Float', [values.length], values);
  return Tensor.fromHost(new HostTensor('Float', sizes, strides ?? [...sizes.keys()].map((d) => sizes.slice(d + 1).reduce((a, b) => a * b, 1)), t.data));
}

function storage(t: Tensor): number[] {
  return Array.from(t.toHost().data as Float32Array);
}

/** x.add_(y): T2 = T0 + T1 written back into T0. */
function addInPlace(visible: boolean): FusionDefinition {
  return FusionDefinition.build((fd) => {
    const x = fd.defineTensor(2);
    const y = fd.defineTensor(2);
    const sum = fd.ops.add(x, y);
    if (visible) fd.addOutput(sum);
    fd.addOutput(sum, { aliasInput: x });
  }, { cache: new FusionCache() });
}

describe('add_output(t, alias_input=x)', () => {
  it('writes the result into x, returns nothing for a hidden alias and leaves y untouched', async () => {
    const x = host([1, 2, 3, 4, 5, 6], [2, 3]);
    const y = host([10, 20, 30, 40, 50, 60], [2, 3]);
    const outs = await addInPlace(false).execute([x, y], { backend: 'reference' });
    expect(outs).toEqual([]);
    expect(storage(x)).toEqual([11, 22, 33, 44, 55, 66]);
    expect(storage(y)).toEqual([10, 20, 30, 40, 50, 60]);
  });

  it('gives the reference outputs execute() would return without writing the aliased input', () => {
    const x = host([1, 2, 3, 4], [2, 2]);
    const y = host([1, 1, 1, 1], [2, 2]);
    const fd = addInPlace(true);
    expect(fd.referenceOutputs([x, y]).map((t) => t.toArray())).toEqual([[2, 3, 4, 5]]);
    expect(addInPlace(false).referenceOutputs([x, y])).toEqual([]);
    expect(storage(x)).toEqual([1, 2, 3, 4]);
  });

  it('returns the output too when it was an output before it was aliased', async () => {
    const x = host([1, 2, 3, 4], [2, 2]);
    const y = host([1, 1, 1, 1], [2, 2]);
    const outs = await addInPlace(true).execute([x, y], { backend: 'reference' });
    expect(outs.map((t) => t.toArray())).toEqual([[2, 3, 4, 5]]);
    expect(storage(x)).toEqual([2, 3, 4, 5]);
  });

  it('returns an output added again after it was aliased (the alias stays hidden)', async () => {
    const fd = FusionDefinition.build((f) => {
      const x = f.defineTensor(1);
      const doubled = f.ops.mul(x, 2);
      f.addOutput(doubled, x);
      f.addOutput(doubled);
    }, { cache: new FusionCache() });
    const x = host([1, 2], [2]);
    const outs = await fd.execute([x], { backend: 'reference' });
    expect(outs.map((t) => t.toArray())).toEqual([[2, 4]]);
    expect(storage(x)).toEqual([2, 4]);
  });

  it('writes through the strides of a non-contiguous x and leaves the gaps alone', async () => {
    // x: 2×3 in a 2×4 storage (row stride 4), column 3 of each row is padding (-1).
    const x = host([0, 1, 2, -1, 3, 4, 5, -1], [2, 3], [4, 1]);
    // y is broadcast along dim 0 (stride 0 over 3 values) and x's transpose-free partner.
    const y = host([100, 200, 300], [2, 3], [0, 1]);
    const outs = await addInPlace(false).execute([x, y], { backend: 'reference' });
    expect(outs).toEqual([]);
    expect(storage(x)).toEqual([100, 201, 302, -1, 103, 204, 305, -1]);
    expect(storage(y)).toEqual([100, 200, 300]);
  });

  it('writes a transposed x in its own layout', async () => {
    const x = host([0, 1, 2, 3, 4, 5], [2, 3], [1, 2]); // x[i][j] = 2j + i
    const y = host([1, 1, 1, 1, 1, 1], [2, 3]);
    await addInPlace(false).execute([x, y], { backend: 'reference' });
    expect(storage(x)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('updates running stats the way batch_norm definitions do (broadcast and expanded operands)', async () => {
    // running_mean = (1 - m) * running_mean + m * mean(x, 0); x is read through an expanded input.
    const fd = FusionDefinition.build((f) => {
      const x = f.defineTensor({ shape: [-1, -1], contiguity: [null, true] }); // expanded rows
      const running = f.defineTensor({ shape: [-1], contiguity: [true] });
      const m = f.defineScalar(0.5, DataType.Double);
      const mean = f.ops.mean(x, [0]);
      const updated = f.ops.add(f.ops.mul(running, f.ops.sub(1, m)), f.ops.mul(mean, m));
      f.addOutput(f.ops.relu(x));
      f.addOutput(f.ops.cast(updated, DataType.Float), { aliasInput: running });
    }, { cache: new FusionCache() });
    const x = host([1, -2, 3], [4, 3], [0, 1]);
    const running = host([10, 10, 10], [3]);
    const outs = await fd.execute([x, running], { backend: 'reference' });
    expect(outs.map((t) => t.sizes)).toEqual([[4, 3]]);
    expect(storage(running)).toEqual([5.5, 4, 6.5]);
    expect(storage(x)).toEqual([1, -2, 3]);
  });

  it('copies an input into another input when the output is itself an input', async () => {
    const fd = FusionDefinition.build((f) => {
      const dst = f.defineTensor(1);
      const src = f.defineTensor(1);
      f.addOutput(src, dst);
    }, { cache: new FusionCache() });
    const dst = host([0, 0, 0], [3]);
    const src = host([7, 8, 9], [3]);
    expect(await fd.execute([dst, src], { backend: 'reference' })).toEqual([]);
    expect(storage(dst)).toEqual([7, 8, 9]);
  });

  // nvFuser's alias analysis makes set(x) an output that shares x's buffer (MarkAliasesPrepare),
  // so after the in-place write it reads the new values, as tsfuser's expr_eval view does.
  it('returns an output that is a view of the aliased input with the updated values (it shares the storage)', async () => {
    const fd = FusionDefinition.build((f) => {
      const x = f.defineTensor(1);
      f.addOutput(f.ops.set(x));
      f.addOutput(f.ops.mul(x, 2), { aliasInput: x });
    }, { cache: new FusionCache() });
    const x = host([1, 2], [2]);
    const [view] = await fd.execute([x], { backend: 'reference' });
    expect(view?.toArray()).toEqual([2, 4]);
    expect(storage(x)).toEqual([2, 4]);
  });

  it('refuses an expanded target and mismatched definitions with one clear error', async () => {
    const x = host([1, 2, 3], [2, 3], [0, 1]);
    const y = host([1, 1, 1, 1, 1, 1], [2, 3]);
    await expect(addInPlace(false).execute([x, y], { backend: 'reference' })).rejects.toThrow(InputMismatchError);
    await expect(addInPlace(false).execute([x, y], { backend: 'reference' })).rejects.toThrow(
      'input 0: is updated in place by output 0, but its dim 0 is expanded (stride 0, size 2): several elements share one memory location',
    );
    expect(storage(x)).toEqual([1, 2, 3]);
    const build = (body: (fd: FusionDefinition) => void): FusionDefinition => FusionDefinition.build(body, { cache: new FusionCache() });
    expect(() =>
      build((f) => {
        const a = f.defineTensor(1, DataType.Half);
        f.addOutput(f.ops.mul(a, 2.0), { aliasInput: a });
      }),
    ).not.toThrow();
    expect(() =>
      build((f) => {
        const a = f.defineTensor(1, DataType.Half);
        f.addOutput(f.ops.cast(a, DataType.Float), { aliasInput: a });
      }),
    ).toThrow(/rank and dtype must match/);
    expect(() =>
      build((f) => {
        const a = f.defineTensor(2);
        f.addOutput(f.ops.neg(a), { aliasInput: f.ops.neg(a) });
      }),
    ).toThrow(DefinitionError);
    expect(() =>
      build((f) => {
        const a = f.defineTensor(2);
        f.addOutput(f.ops.neg(a), { aliasInput: a, strideOrder: [0, 1] });
      }),
    ).toThrow("addOutput: stride_order can't be dictated for aliased outputs");
    expect(() =>
      build((f) => {
        const a = f.defineTensor(2);
        f.addOutput(f.ops.neg(a), a);
        f.addOutput(f.ops.abs(a), a);
      }),
    ).toThrow('addOutput: input 0 is already updated in place by output 0; a second output (1) written into the same input has no defined result');
  });

  it('prints the alias and is a different fusion from the plain output', () => {
    const hidden = addInPlace(false);
    expect(printTypeScriptDefinition(hidden.records())).toContain('fd.addOutput(T2, T0);');
    const plain = FusionDefinition.build((fd) => {
      fd.addOutput(fd.ops.add(fd.defineTensor(2), fd.defineTensor(2)));
    }, { cache: hidden.cache });
    expect(plain.id()).not.toBe(hidden.id());
    expect(hidden.outputAliases()).toEqual([{ output: 0, input: 0, hidden: true }]);
  });

  it('returns outputs that are views of an input as aliases of its storage (permute, slice, expand)', async () => {
    const fd = FusionDefinition.build((f) => {
      const x = f.defineTensor({ shape: [-1, -1], contiguity: true });
      f.addOutput(f.ops.permute(x, [1, 0]));
      f.addOutput(f.ops.slice(x, [0, 1], [2, 3]));
      f.addOutput(f.ops.add(x, 1));
    }, { cache: new FusionCache() });
    const x = host([1, 2, 3, 4, 5, 6], [2, 3]);
    const [t, s, sum] = await fd.execute([x], { backend: 'reference' });
    expect(t?.strides).toEqual([1, 3]);
    expect(t?.toHost().data).toBe(x.toHost().data);
    expect(s?.toHost().data).toBe(x.toHost().data);
    expect(s?.toArray()).toEqual([2, 3, 5, 6]);
    expect(sum?.toHost().data).not.toBe(x.toHost().data);
  });
});
