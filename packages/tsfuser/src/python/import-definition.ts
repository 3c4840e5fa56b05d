// Imports an nvFuser python repro (NVFUSER_DUMP=python_definition output, or a script pasted
// into an issue): finds the definition — a `def nvfuser_fusion_idN(fd : FusionDefinition)`
// called from `with FusionDefinition() as fd:`, or the `with` block's own statements — runs it
// into a FusionDefinition, and evaluates the script's `inputs = [...]` list (or the list passed
// to `fd.execute(...)`, as bound at that call: straight-line.ts) into InputSpecs — unless the
// caller replaces the inputs (`evaluateInputs: false`: the line is not evaluated, so a line tsfuser
// cannot evaluate does not stop `tsfuser run --inputs`). The text may start with a UTF-8 BOM and use LF, CRLF or
// CR line endings; a definition without `fd.add_output` is an error at its `def`/`with` line.

import { FusionDefinition, type FusionDefinitionOptions } from '../definition/fusion-definition.js';
import { DefinitionImportError } from '../errors.js';
import type { InputSpec } from '../io/input-spec.js';
import type { Stmt } from './ast.js';
import { DefinitionInterpreter } from './definition-interpreter.js';
import { parsePython } from './parser.js';
import type { Position } from './tokens.js';
import { straightLine } from './straight-line.js';
import { evalInputList } from './torch-inputs.js';

export interface ImportedScript {
  /** The finalized definition. */
  definition: FusionDefinition;
  /** The script's inputs, or null when it has none. */
  inputs: InputSpec[] | null;
  /** Name of the python function that held the definition, if any. */
  functionName: string | null;
}

interface Body {
  statements: readonly Stmt[];
  fdName: string;
  functionName: string | null;
  /** The `def` or `with` statement holding the definition. */
  pos: Position;
}

function findBody(stmts: readonly Stmt[]): Body {
  const defs = new Map<string, Stmt & { kind: 'def' }>();
  for (const s of stmts) if (s.kind === 'def') defs.set(s.name, s);
  const fromDef = (d: Stmt & { kind: 'def' }): Body => {
    const fdName = d.params[0];
    if (fdName === undefined) throw new DefinitionImportError(`def ${d.name}() must take the FusionDefinition as its first parameter`, d.pos.line, d.pos.column);
    return { statements: d.body, fdName, functionName: d.name, pos: d.pos };
  };
  for (const s of stmts) {
    if (s.kind !== 'with') continue;
    const item = s.items.find((i) => i.context.kind === 'call' && i.context.func.kind === 'name' && i.context.func.id === 'FusionDefinition');
    if (item === undefined || item.asName === null) continue;
    const calls = s.body.filter((b): b is Stmt & { kind: 'expr' } => b.kind === 'expr' && b.expr.kind === 'call' && b.expr.func.kind === 'name' && defs.has(b.expr.func.id));
    const first = calls[0];
    if (first !== undefined && first.expr.kind === 'call' && first.expr.func.kind === 'name') {
      return fromDef(defs.get(first.expr.func.id) as Stmt & { kind: 'def' });
    }
    return { statements: s.body, fdName: item.asName, functionName: null, pos: s.pos };
  }
  for (const d of defs.values()) if (d.params.length > 0) return fromDef(d);
  throw new DefinitionImportError(
    'no fusion definition found: expected `def nvfuser_fusion_idN(fd : FusionDefinition) -> None :` or a `with FusionDefinition() as fd:` block',
    1,
    1,
  );
}

/** How a script's inputs line is read (`tsfuser run` passes both). */
export interface ScriptInputOptions {
  /** Directory that numpy.load paths in the inputs line are relative to (null: only absolute paths). */
  scriptDirectory?: string | null;
  /** false: the inputs line is not evaluated at all (`--inputs` replaces it); `inputs` is then null. */
  evaluateInputs?: boolean;
}

export function importPythonScript(text: string, options: FusionDefinitionOptions = {}, script: ScriptInputOptions = {}): ImportedScript {
  const stmts = parsePython(text);
  const body = findBody(stmts);
  const definition = new FusionDefinition(options);
  new DefinitionInterpreter(definition, body.fdName).run(body.statements);
  if (!definition.records().some((r) => r.op === 'addOutput')) {
    const where = body.functionName === null ? 'the `with FusionDefinition()` block' : `def ${body.functionName}()`;
    throw new DefinitionImportError(`${where} defines no output: call fd.add_output(...) at least once`, body.pos.line, body.pos.column);
  }
  definition.finalize();

  // The inputs line runs as straight-line Python: each name read as bound at that point.
  if (script.evaluateInputs === false) return { definition, inputs: null, functionName: body.functionName };
  const program = straightLine(stmts);
  const inputs = program.inputs === null ? null : evalInputList(program.inputs, program.lookup, script.scriptDirectory ?? null);
  return { definition, inputs, functionName: body.functionName };
}

/** The FusionDefinition of an nvFuser python_definition text (finalized, in the given cache). */
export function importPythonDefinition(text: string, options: FusionDefinitionOptions = {}): FusionDefinition {
  return importPythonScript(text, options).definition;
}
