// Prints a record list in nvFuser's python_definition form (`def nvfuser_fusion_idN(fd :
// FusionDefinition) -> None :` …), the text NVFUSER_DUMP=python_definition shows and users paste
// into issues. Leading tensor operands print positionally, the rest as keywords, as nvFuser does;
// add_output prints its alias input positionally and its stride order as `stride_order=[…]`.
//
// Invariant: importPythonDefinition of the printed text gives the same record list.

import { isDataType, type DataType } from '@tsfuser/fusion-ir';
import { opByName } from './ops-table.js';
import type { OpSpec, ParamKind } from './op-spec.js';
import { isStateRef, type FusionRecord, type RecordValue } from './records.js';
import { StateNames } from './state-names.js';
import { pythonBool, pythonComplex, pythonNumber, pythonScalar } from './value-format.js';

const POSITIONAL_KINDS: ReadonlySet<ParamKind> = new Set<ParamKind>(['tensor', 'operand', 'tensors']);

function value(names: StateNames, v: RecordValue, kind?: ParamKind): string {
  if (isStateRef(v)) return names.name(v.ref);
  if (v === null) return kind === 'dtype' ? 'DataType.Null' : 'None';
  if (Array.isArray(v)) return `[${(v as readonly RecordValue[]).map((e) => value(names, e)).join(', ')}]`;
  // A -0 here is an integer (size, dim, index): python ints have no negative zero.
  if (typeof v === 'number') return pythonNumber(v === 0 ? 0 : v, false);
  if (typeof v === 'boolean') return pythonBool(v);
  if (kind === 'dtype') return `DataType.${v as string}`;
  return JSON.stringify(v);
}

function opCall(names: StateNames, spec: OpSpec, args: readonly RecordValue[]): string {
  const parts: string[] = [];
  let positional = true;
  spec.params.forEach((p, i) => {
    const a = args[i] ?? null;
    positional = positional && (POSITIONAL_KINDS.has(p.kind) || p.printPositional === true);
    parts.push(positional ? value(names, a, p.kind) : `${p.python}=${value(names, a, p.kind)}`);
  });
  return `fd.ops.${spec.python}(${parts.join(', ')})`;
}

function statement(names: StateNames, r: FusionRecord): string {
  const outs = r.outputs.map((i) => names.name(i));
  const lhs = outs.length === 0 ? '' : `${outs.join(', ')} = `;
  const a = r.args;
  switch (r.op) {
    case 'defineTensor': {
      const [shape, contiguity, dtype, isCpu, strideOrder] = a;
      let text = `fd.define_tensor(shape=${value(names, shape ?? [])}, contiguity=${value(names, contiguity ?? [])}, dtype=${value(names, dtype ?? 'Float', 'dtype')}, is_cpu=${pythonBool(isCpu === true)}`;
      if (Array.isArray(strideOrder) && strideOrder.length > 0) text += `, stride_order=${value(names, strideOrder)}`;
      return `${lhs}${text})`;
    }
    case 'defineScalar': {
      const dtype = typeof a[1] === 'string' && isDataType(a[1]) ? a[1] : ('Double' as DataType);
      const v = a[0];
      const literal = Array.isArray(v) ? pythonComplex(v[0] as number, v[1] as number) : typeof v === 'number' || typeof v === 'boolean' ? pythonScalar(v, dtype) : 'None';
      return `${lhs}fd.define_scalar(${literal}, dtype=DataType.${dtype})`;
    }
    case 'defineVector':
      return `${lhs}fd.define_vector(${value(names, a[0] ?? [])}, dtype=${value(names, a[1] ?? 'Int', 'dtype')})`;
    case 'addOutput': {
      // nvFuser's OutputRecord: the alias input prints positionally, a stride order as a keyword.
      const [output, alias, order] = a;
      const extra = alias !== undefined && alias !== null ? `, ${value(names, alias)}` : Array.isArray(order) && order.length > 0 ? `, stride_order=${value(names, order)}` : '';
      return `fd.add_output(${value(names, output ?? null)}${extra})`;
    }
    default: {
      const spec = opByName(r.op);
      if (spec === undefined) return `# unknown op ${r.op}`;
      return `${lhs}${opCall(names, spec, a)}`;
    }
  }
}

export function printPythonDefinition(records: readonly FusionRecord[], name = 'nvfuser_fusion_id0'): string {
  const names = new StateNames(records);
  const body = records.map((r) => `    ${statement(names, r)}`).join('\n');
  return `def ${name}(fd : FusionDefinition) -> None :\n${body}\n`;
}
