// Prints a record list as TypeScript source that re-creates the definition (nvFuser's
// fd.print(), in TypeScript): one statement per record, states named T/S/V + index as in
// nvFuser's python_definition dump, trailing default arguments omitted.
//
// Invariant: evaluating the printed function with FusionDefinition.build gives a definition
// with the same record list (hence the same id).

import { opByName } from './ops-table.js';
import type { OpSpec, ParamKind } from './op-spec.js';
import { isStateRef, type FusionRecord, type RecordValue } from './records.js';
import { StateNames } from './state-names.js';
import { tsNumber } from './value-format.js';

export interface PrintTypeScriptOptions {
  /** Function name (default `nvfuserFusionId<id>`). */
  name?: string;
  /** Print a module: an import of `tsfuser` and `export default` of the function. */
  module?: boolean;
}

function value(names: StateNames, v: RecordValue, kind?: ParamKind): string {
  if (isStateRef(v)) return names.name(v.ref);
  if (v === null) return 'null';
  if (Array.isArray(v)) return `[${(v as readonly RecordValue[]).map((e) => value(names, e)).join(', ')}]`;
  if (typeof v === 'number') return tsNumber(v);
  if (typeof v === 'boolean') return String(v);
  if (kind === 'dtype') return `DataType.${v as string}`;
  return JSON.stringify(v);
}

function sameValue(a: RecordValue, b: RecordValue): boolean {
  return JSON.stringify(a) === JSON.stringify(b) && !(typeof a === 'number' && Object.is(a, -0) !== Object.is(b, -0));
}

function opCall(names: StateNames, spec: OpSpec, args: readonly RecordValue[]): string {
  let n = args.length;
  while (n > 0) {
    const p = spec.params[n - 1];
    const a = args[n - 1];
    if (p?.default === undefined || a === undefined || !sameValue(a, p.default)) break;
    n -= 1;
  }
  const printed = args.slice(0, n).map((a, i) => value(names, a, spec.params[i]?.kind));
  return `fd.ops.${spec.name}(${printed.join(', ')})`;
}

function statement(names: StateNames, r: FusionRecord): string {
  const lhs = (): string => {
    const outs = r.outputs.map((i) => names.name(i));
    const spec = opByName(r.op);
    if (spec !== undefined && typeof spec.output === 'number') return `const [${outs.join(', ')}] = `;
    return outs.length === 0 ? '' : `const ${outs[0] ?? ''} = `;
  };
  const a = r.args;
  switch (r.op) {
    case 'defineTensor': {
      const [shape, contiguity, dtype, isCpu, strideOrder] = a;
      let opts = `shape: ${value(names, shape ?? [])}, contiguity: ${value(names, contiguity ?? [])}, dtype: ${value(names, dtype ?? 'Float', 'dtype')}`;
      if (isCpu === true) opts += ', isCpu: true';
      if (Array.isArray(strideOrder) && strideOrder.length > 0) opts += `, strideOrder: ${value(names, strideOrder)}`;
      return `${lhs()}fd.defineTensor({ ${opts} });`;
    }
    case 'defineScalar': {
      const v = a[0] ?? null;
      // A complex constant is recorded as [re, im].
      const literal = Array.isArray(v) ? `new Complex(${tsNumber(v[0] as number)}, ${tsNumber(v[1] as number)})` : value(names, v);
      return `${lhs()}fd.defineScalar(${literal}, ${value(names, a[1] ?? null, 'dtype')});`;
    }
    case 'defineVector':
      return `${lhs()}fd.defineVector(${value(names, a[0] ?? [])}, ${value(names, a[1] ?? null, 'dtype')});`;
    case 'addOutput': {
      const out = value(names, a[0] ?? null);
      if (a[1] !== undefined && a[1] !== null) return `fd.addOutput(${out}, ${value(names, a[1])});`;
      if (Array.isArray(a[2])) return `fd.addOutput(${out}, { strideOrder: ${value(names, a[2])} });`;
      return `fd.addOutput(${out});`;
    }
    default: {
      const spec = opByName(r.op);
      if (spec === undefined) return `// unknown op ${r.op}`;
      return `${lhs()}${opCall(names, spec, a)};`;
    }
  }
}

export function printTypeScriptDefinition(records: readonly FusionRecord[], options: PrintTypeScriptOptions = {}): string {
  const names = new StateNames(records);
  const name = options.name ?? 'nvfuserFusion';
  const body = records.map((r) => `  ${statement(names, r)}`).join('\n');
  const fn = `function ${name}(fd: FusionDefinition): void {\n${body}\n}\n`;
  if (options.module !== true) return fn;
  const complex = records.some((r) => r.op === 'defineScalar' && Array.isArray(r.args[0]));
  return `import { ${complex ? 'Complex, ' : ''}DataType, FusionDefinition } from 'tsfuser';\n\nexport ${fn}\nexport default ${name};\n`;
}
