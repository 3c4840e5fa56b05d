// printPython → importPythonDefinition round trip (issue 19 acceptance): for every definition
// fixture (subfolders and JS modules included) and for one definition per op of the op table (built through the TypeScript API with
// every parameter spelled), the re-imported definition has the same id and gives bit-identical
// outputs on the reference backend. Also enumerates the keywords nvFuser's printer adds that the
// op table does not carry, in both spellings nvFuser prints (False/True and 0/1).

import { describe, expect, it } from 'vitest';
import { isComplexType, type DataType } from '@tsfuser/fusion-ir';
import { DefinitionImportError, FusionCache, FusionDefinition, Tensor, allOps, importPythonDefinition, type OpSpec, type ParamKind, type TensorHandle } from '../src/index.js';
import type { ExecuteInput } from '../src/execute/backend.js';
import { generateInputs, materializeInput } from '../src/io/input-generation.js';
import { Random } from '../src/io/random.js';
import { FRONTEND_KEYWORDS } from '../src/python/frontend-keywords.js';
import { loadDefinition } from '../src/cli/load-definition.js';
import { FIXTURES, definitionFixtures } from './helpers.js';

const SEED = 1919;

/** Output values with NaN made comparable. */
async function outputsOf(fd: FusionDefinition, inputs: readonly ExecuteInput[]): Promise<(number | string)[][]> {
  const outs = await fd.execute(inputs, { backend: 'reference' });
  // Complex outputs (fd.ops.complex) compare as their interleaved (re, im) parts.
  const values = (t: (typeof outs)[number]): (number | bigint)[] => (isComplexType(t.dtype) ? Array.from(t.toComplexInterleaved()) : t.toArray());
  return outs.map((t) => values(t).map((v) => (typeof v === 'number' && Number.isNaN(v) ? 'nan' : Number(v))));
}

async function expectRoundTrip(fd: FusionDefinition, inputs: readonly ExecuteInput[]): Promise<void> {
  const printed = fd.printPython();
  const again = importPythonDefinition(printed, { cache: fd.cache });
  expect(again.id(), printed).toBe(fd.id());
  expect(again.records()).toEqual(fd.records());
  const first = await outputsOf(fd, inputs);
  // A definition whose outputs change from run to run (random ops without a given seed) is
  // compared by id and records only.
  if (JSON.stringify(await outputsOf(fd, inputs)) !== JSON.stringify(first)) return;
  expect(await outputsOf(again, inputs), printed).toEqual(first);
}

describe(`printPython round trip (seed ${SEED})`, () => {
  it.each(definitionFixtures())('%s: same id, same records, same outputs on the reference backend', async (file) => {
    const loaded = await loadDefinition(file, FIXTURES);
    // Into a cache of its own, so that ids are compared within one cache.
    const definition = FusionDefinition.fromRecords(loaded.definition.records(), { cache: new FusionCache() });
    const rng = new Random(SEED);
    const inputs = loaded.inputs === null ? generateInputs(definition.inputs(), rng) : loaded.inputs.map((spec) => materializeInput(spec, rng));
    await expectRoundTrip(definition, inputs);
  });

  it('covers the fixtures of test-fixtures/definitions/ and its subfolders (nvfuser/ included) and the JS modules', () => {
    const files = definitionFixtures();
    expect(files.some((f) => f.startsWith('nvfuser/'))).toBe(true);
    expect(files.some((f) => f.endsWith('.mjs'))).toBe(true);
  });

  // Argument choices per parameter kind and the two input tensors, tried profile by profile
  // until one builds and runs.
  interface Profile {
    shape: number[];
    dtypes: [DataType, DataType];
    int: number;
    ints: number[];
    intOrInts: number | number[];
    sizes: number[];
    scalar: number;
    bool: boolean;
    bools: boolean[];
    dtype: DataType;
  }
  const base: Profile = { shape: [2, 3], dtypes: ['Float', 'Float'], int: 1, ints: [1], intOrInts: 3, sizes: [2, 3], scalar: 2.5, bool: false, bools: [false, false, true], dtype: 'Float' };
  const profiles: readonly Profile[] = [
    base,
    { ...base, int: 0, ints: [1, 0], intOrInts: [2, 3], sizes: [3, 2], scalar: 3, bool: true, bools: [true, false, false], dtype: 'Half' },
    { ...base, ints: [0], sizes: [1, 1, 1, 1], scalar: 0.5, bool: true, bools: [false, true, false], dtype: 'Int' },
    { ...base, dtypes: ['Int', 'Int'], scalar: 3 },
    { ...base, dtypes: ['Bool', 'Float'] },
    { ...base, ints: [0, 1] },
    { ...base, shape: [1, 3], ints: [0] },
  ];

  function argument(kind: ParamKind, tensors: readonly TensorHandle[], k: number, spec: OpSpec, index: number, c: Profile): unknown {
    switch (kind) {
      case 'tensor':
      case 'operand':
        return tensors[k % tensors.length];
      case 'optTensor':
        return null;
      case 'scalar':
      case 'optScalar':
        return c.scalar;
      case 'int':
        return c.int;
      case 'ints':
        return c.ints;
      case 'intOrInts':
        return c.intOrInts;
      case 'bool':
        return c.bool;
      case 'bools':
        return c.bools;
      case 'dtype':
        return c.dtype;
      case 'sizes':
        return c.sizes;
      case 'optSizes':
        return null;
      case 'tensors':
        return [tensors[0], tensors[1]];
      case 'string':
        return spec.params[index]?.choices?.[0] ?? '';
      default: {
        const unreachable: never = kind;
        throw new Error(`unknown kind ${String(unreachable)}`);
      }
    }
  }

  /** A definition calling `spec` once on the profile's two inputs with every parameter given, or null. */
  async function opDefinition(spec: OpSpec, profile: Profile): Promise<FusionDefinition | null> {
    let fd: FusionDefinition;
    try {
      fd = FusionDefinition.build(
        (fd) => {
          const tensors = profile.dtypes.map((dtype) => fd.defineTensor({ shape: profile.shape, contiguity: profile.shape.map((s) => (s === 1 ? null : true)), dtype }));
          let tensorCount = 0;
          const args = spec.params.map((p, i) => argument(p.kind, tensors, p.kind === 'tensor' || p.kind === 'operand' ? tensorCount++ : 0, spec, i, profile));
          const fn = (fd.ops as unknown as Record<string, (...a: unknown[]) => unknown>)[spec.name] as (...a: unknown[]) => unknown;
          const result = fn(...args);
          for (const r of Array.isArray(result) ? result : [result]) fd.addOutput(r as TensorHandle);
        },
        { cache: new FusionCache() },
      );
      await fd.execute(inputsFor(fd), { backend: 'reference' });
    } catch {
      return null;
    }
    return fd;
  }

  function inputsFor(fd: FusionDefinition): ExecuteInput[] {
    const rng = new Random(SEED);
    return fd.inputs().map((d): ExecuteInput => {
      if (d.kind === 'scalar') return 2;
      const { shape, dtype } = d.spec;
      const n = shape.reduce((a, b) => a * b, 1);
      const values = Array.from({ length: n }, () => (dtype === 'Bool' ? rng.uniform() < 0.5 : dtype === 'Int' || dtype === 'Int32' ? rng.int(-8, 9) : Math.fround(rng.normal())));
      return Tensor.from(values, shape, dtype);
    });
  }

  it('every op of the op table: printed with all its keywords, re-imported with the same id and outputs', async () => {
    const unbuilt: string[] = [];
    let covered = 0;
    for (const spec of allOps()) {
      let fd: FusionDefinition | null = null;
      for (const profile of profiles) {
        fd = await opDefinition(spec, profile);
        if (fd !== null) break;
      }
      if (fd === null) {
        unbuilt.push(spec.python);
        continue;
      }
      await expectRoundTrip(fd, inputsFor(fd));
      covered += 1;
    }
    console.log(`op-table round trip: ${covered} ops built and round-tripped; not built by the generic profiles: ${unbuilt.join(', ') || 'none'}`);
    // `shape` returns a vector, which cannot be a fusion output (its round trip is covered by
    // the fixtures); ops added later whose constraints no profile meets are tolerated up to a
    // tenth of the table, listed in the message.
    expect(unbuilt, `not built: ${unbuilt.join(', ')}`).toContain('shape');
    expect(unbuilt.length, `not built: ${unbuilt.join(', ')}`).toBeLessThanOrEqual(Math.ceil(allOps().length / 10));
    expect(covered).toBeGreaterThan(0);
  });

  // The FusionDefinition forms beyond fd.ops: in-place outputs, stride-ordered outputs,
  // define_vector(size), and inputs with stride orders, expanded (None) and broadcast dims.
  // Each with the values of its scalar inputs (sizes [.., 4, 6] for the tensors).
  const apiDefinitions: Readonly<Record<string, { define: (fd: FusionDefinition) => void; scalars: number[] }>> = {
    'add_output(t, alias_input=x) beside a visible output': { scalars: [], define: (fd) => {
      const x = fd.defineTensor({ shape: [-1, -1], contiguity: [true, true] });
      const y = fd.defineTensor({ shape: [-1, -1], contiguity: [true, true] });
      const sum = fd.ops.add(x, y);
      fd.addOutput(fd.ops.mul(sum, 2));
      fd.addOutput(sum, { aliasInput: x });
    } },
    'add_output(t, stride_order=…) and fd.ops.stride_order': { scalars: [], define: (fd) => {
      const x = fd.defineTensor({ shape: [-1, -1, -1], contiguity: [true, true, true], strideOrder: [0, 2, 1] });
      fd.addOutput(fd.ops.neg(x), { strideOrder: [0, 2, 1] });
      fd.addOutput(fd.ops.strideOrder(fd.ops.abs(x), [1, 2, 0]));
    } },
    'define_vector(size) as a reshape target, inputs with None contiguity': { scalars: [4, 6], define: (fd) => {
      const x = fd.defineTensor({ shape: [1, -1, -1], contiguity: [null, true, true] });
      const e = fd.defineTensor({ shape: [-1, -1], contiguity: [null, true], strideOrder: [1, 0] });
      const v = fd.defineVector(2);
      const flat = fd.ops.reshape(x, v);
      fd.addOutput(fd.ops.add(flat, e));
    } },
  };

  /** Outputs and every input's values after one execute on fresh inputs (aliased inputs change). */
  async function effectsOf(fd: FusionDefinition, scalars: readonly number[]): Promise<unknown> {
    let k = 0;
    const inputs = generateInputs(fd.inputs(), new Random(SEED), [4, 6]).map((v) => (v instanceof Tensor ? v : (scalars[k++] ?? v)));
    const outputs = await fd.execute(inputs, { backend: 'reference' });
    return { outputs: outputs.map((t) => [t.sizes, t.strides, t.toArray()]), inputs: inputs.map((t) => (t instanceof Tensor ? t.toArray() : t)) };
  }

  it.each(Object.keys(apiDefinitions))('%s: printed as nvFuser prints it, re-imported with the same id, the same outputs and the same input updates', async (name) => {
    const sample = apiDefinitions[name] as { define: (fd: FusionDefinition) => void; scalars: number[] };
    const fd = FusionDefinition.build(sample.define, { cache: new FusionCache() });
    const printed = fd.printPython();
    const again = importPythonDefinition(printed, { cache: fd.cache });
    expect(again.id(), printed).toBe(fd.id());
    expect(again.records()).toEqual(fd.records());
    if (name.includes('alias_input')) expect(printed).toMatch(/fd\.add_output\(T\d+, T0\)/);
    if (name.includes('stride_order')) expect(printed).toContain('stride_order=[0, 2, 1])');
    if (name.includes('define_vector')) expect(printed).toMatch(/V\d+ = fd\.define_vector\(\[S\d+, S\d+\], dtype=DataType\.Int\)/);
    expect(await effectsOf(again, sample.scalars)).toEqual(await effectsOf(fd, sample.scalars));
  });

  it('infinite and NaN scalars print as nvFuser prints them (float("inf"), float("-inf"), float("nan")) and import back', async () => {
    const fd = FusionDefinition.build(
      (fd) => {
        const t = fd.defineTensor({ shape: [2, 3], contiguity: [true, true], dtype: 'Float' });
        const lo = fd.defineScalar(-Infinity, 'Float');
        const hi = fd.defineScalar(Infinity, 'Double');
        const nan = fd.defineScalar(NaN, 'Double');
        const clamped = fd.ops.clamp(t, lo, hi);
        fd.addOutput(fd.ops.where(fd.ops.gt(t, 0), clamped, nan));
      },
      { cache: new FusionCache() },
    );
    const printed = fd.printPython();
    expect(printed).toContain('fd.define_scalar(float("-inf"), dtype=DataType.Float)');
    expect(printed).toContain('fd.define_scalar(float("inf"), dtype=DataType.Double)');
    expect(printed).toContain('fd.define_scalar(float("nan"), dtype=DataType.Double)');
    const inputs = inputsFor(fd);
    await expectRoundTrip(fd, inputs);
    const [out] = await outputsOf(fd, inputs);
    expect(out).toContain('nan');
  });

  it.each(Object.entries(FRONTEND_KEYWORDS).flatMap(([op, ks]) => ks.map((k) => [op, k.python] as const)))(
    'fd.ops.%s takes nvFuser\'s %s keyword in both printed spellings (0/1 and False/True) and refuses other values',
    (op, keyword) => {
      const k = (FRONTEND_KEYWORDS[op] ?? []).find((x) => x.python === keyword);
      expect(k).toBeDefined();
      const call: Readonly<Record<string, string>> = {
        slice: 'fd.ops.slice(T0, start_indices=[0, 1], end_indices=[2, 3], strides=[1, 1]',
        squeeze: 'fd.ops.squeeze(T2, dims=[0]',
        cat: 'fd.ops.cat([T0, T0], dim=-1',
      };
      const prefix = call[op];
      expect(prefix, `no sample call for ${op}`).toBeDefined();
      const text = (value: string): string =>
        `def f(fd : FusionDefinition) -> None :\n    T0 = fd.define_tensor(shape=[2, 3], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)\n    T2 = fd.ops.broadcast_in_dim(T0, shape=[1, 2, 3], broadcast_dims=[1, 2])\n    T1 = ${prefix as string}, ${keyword}=${value})\n    fd.add_output(T1)\n`;
      const records = (value: string): unknown => importPythonDefinition(text(value), { cache: new FusionCache() }).records();
      const error = (value: string): DefinitionImportError => {
        try {
          records(value);
        } catch (e) {
          if (e instanceof DefinitionImportError) return e;
          throw e;
        }
        throw new Error(`${keyword}=${value} was accepted`);
      };
      // The default spelled out is the same definition as the keyword left out.
      expect(records(k?.default === true ? '1' : '0')).toEqual(records(k?.default === true ? 'True' : 'False'));
      for (const [numeric, spelled, flag] of [['0', 'False', false], ['1', 'True', true]] as const) {
        if (k?.accepted.includes(flag) === true) {
          expect(records(numeric)).toEqual(records(spelled));
        } else {
          for (const v of [numeric, spelled]) {
            const e = error(v);
            expect(e.line).toBe(4);
            expect(e.description).toContain(`${keyword}=True`);
          }
        }
      }
      const bad = error('2');
      expect([bad.line, bad.description]).toEqual([4, `fd.ops.${op}(): ${keyword} takes True/False (or 1/0), got 2`]);
    },
  );
});
