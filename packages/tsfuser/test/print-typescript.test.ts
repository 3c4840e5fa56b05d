import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { DataType, FusionCache, FusionDefinition, importPythonDefinition } from '../src/index.js';
import { fixtureText, pythonFixtures } from './helpers.js';

/** Compiles fd.print() output and runs it with the package's exports injected. */
function rebuild(source: string, name: string, cache: FusionCache): FusionDefinition {
  const js = ts.transpileModule(source, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.None } }).outputText;
  const make = new Function('FusionDefinition', 'DataType', `${js}\nreturn ${name};`) as (
    f: typeof FusionDefinition,
    d: typeof DataType,
  ) => (fd: FusionDefinition) => void;
  return FusionDefinition.build(make(FusionDefinition, DataType), { cache });
}

describe('fd.print()', () => {
  it.each(pythonFixtures())('re-creates %s with the same id', (file) => {
    const cache = new FusionCache();
    const fd = importPythonDefinition(fixtureText(file), { cache });
    const source = fd.print();
    expect(source).toMatch(/^function nvfuserFusionId\d+\(fd: FusionDefinition\): void \{/);
    const again = rebuild(source, `nvfuserFusionId${fd.id()}`, cache);
    expect(again.id()).toBe(fd.id());
    expect(cache.numFusions()).toBe(1);
  });

  it('keeps non-trivial constants, dtypes, defaults and multi-output ops exact', () => {
    const cache = new FusionCache();
    const fd = FusionDefinition.build((fd) => {
      const x = fd.defineTensor({ shape: [-1, 1, 4], contiguity: [null, false, true], dtype: DataType.BFloat16, strideOrder: [1, 2, 0] });
      const s = fd.defineScalar(null, DataType.Int);
      const c = fd.defineScalar(0.1 + 0.2, DataType.Double);
      const n = fd.defineScalar(-0, DataType.Double);
      const y = fd.ops.cast(x, DataType.Float);
      const [v, m] = fd.ops.varMean(y, [0, 2], 0, true);
      fd.addOutput(fd.ops.add(fd.ops.mul(v, c), fd.ops.sub(m, n)));
      fd.addOutput(fd.ops.mul(s, 2));
      fd.addOutput(fd.ops.where(fd.ops.gt(y, Infinity), y, Number.NaN));
    }, { cache });
    const source = fd.print({ module: true });
    expect(source).toContain("import { DataType, FusionDefinition } from 'tsfuser';");
    expect(source).toContain('0.30000000000000004');
    const body = source.replace(/^import .*\n/m, '').replace(/^export default .*$/m, '').replace(/^export /m, '');
    expect(rebuild(body, `nvfuserFusionId${fd.id()}`, cache).id()).toBe(fd.id());
  });
});
