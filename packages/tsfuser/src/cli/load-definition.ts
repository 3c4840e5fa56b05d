// Loads the file given to `tsfuser run`: an nvFuser python definition (.py) through the
// importer, or a JS module (.mjs/.js) whose default export (or `definition` export) is a define
// function `(fd) => void` or a FusionDefinition, with an optional `inputs` export (numbers,
// booleans, or `{ shape, dtype?, factory?, fill? }` tensor specs). A .py must be valid UTF-8
// (CPython's default source encoding: the first bad byte is refused with its line and column);
// a module that does not parse is one DefinitionSourceError with file:line:col (Node's import()
// does not say where, so `node --check` is asked on that error path only).

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isDataType } from '@tsfuser/fusion-ir';
import { FusionDefinition } from '../definition/fusion-definition.js';
import type { FusionRecord } from '../definition/records.js';
import type { InputSpec, TensorFactory } from '../io/input-spec.js';
import { importPythonScript } from '../python/import-definition.js';
import { UsageError } from './console.js';

/** The definition file cannot be decoded or parsed: exit status 1, the message has file:line:col. */
export class DefinitionSourceError extends Error {
  override readonly name = 'DefinitionSourceError';
}

/** The 1-based line and column of byte `offset` in `bytes` (columns count bytes, as CPython's). */
function lineColumn(bytes: Uint8Array, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i += 1) {
    if (bytes[i] === 0x0a) {
      line += 1;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/** The byte offset of the first invalid UTF-8 sequence in `bytes`, or -1. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    decoder.decode(bytes);
    return -1;
  } catch {
    // Walk the sequences (rarely: only a file that failed to decode) to find the first bad one.
  }
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] as number;
    const length = b < 0x80 ? 1 : b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0;
    if (length === 0 || i + length > bytes.length) return i;
    try {
      decoder.decode(bytes.subarray(i, i + length));
    } catch {
      return i;
    }
    i += length;
  }
  return -1;
}

/** A .py file's text, refused as CPython refuses a non-UTF-8 source without a coding line. */
function decodePythonSource(bytes: Uint8Array, file: string): string {
  const bad = firstInvalidUtf8(bytes);
  if (bad < 0) return new TextDecoder('utf-8').decode(bytes).replace(/^\uFEFF/, '');
  const { line, column } = lineColumn(bytes, bad);
  const byte = (bytes[bad] as number).toString(16).padStart(2, '0');
  throw new DefinitionSourceError(`${file}:${line}:${column}: SyntaxError: Non-UTF-8 code starting with '\\x${byte}' in file ${file} on line ${line}, but no encoding declared (the source must be UTF-8)`);
}

/**
 * `node --check` on a module that failed to import: its SyntaxError with file:line:col, or null
 * when it parses (the import failed while evaluating it).
 */
function moduleSyntaxError(path: string, file: string): DefinitionSourceError | null {
  const check = spawnSync(process.execPath, ['--check', path], { encoding: 'utf8', timeout: 30_000 });
  if (check.status === 0) return null;
  const lines = (check.stderr ?? '').split('\n');
  const message = lines.find((l) => l.startsWith('SyntaxError:')) ?? 'SyntaxError';
  const where = /:(\d+)$/.exec(lines[0] ?? '');
  const caret = lines[2]?.indexOf('^') ?? -1;
  if (where === null) return new DefinitionSourceError(`${file}: ${message}`);
  return new DefinitionSourceError(`${file}:${where[1]}${caret >= 0 ? `:${caret + 1}` : ''}: ${message}`);
}

export interface LoadedDefinition {
  definition: FusionDefinition;
  inputs: InputSpec[] | null;
}

const FACTORIES: readonly TensorFactory[] = ['randn', 'rand', 'ones', 'zeros', 'full', 'make_tensor'];

function moduleInput(v: unknown, i: number): InputSpec {
  if (typeof v === 'number') return { kind: 'scalar', value: v, isFloat: !Number.isInteger(v) };
  if (typeof v === 'boolean') return { kind: 'scalar', value: v, isFloat: false };
  if (typeof v === 'object' && v !== null && 'shape' in v && Array.isArray(v.shape)) {
    const o = v as { shape: unknown[]; dtype?: unknown; factory?: unknown; fill?: unknown };
    const dtype = o.dtype ?? 'Float';
    if (typeof dtype !== 'string' || !isDataType(dtype)) throw new UsageError(`inputs[${i}]: unknown dtype ${String(dtype)}`);
    const factory = o.factory ?? 'randn';
    if (typeof factory !== 'string' || !(FACTORIES as readonly string[]).includes(factory)) {
      throw new UsageError(`inputs[${i}]: factory must be one of ${FACTORIES.join(', ')}`);
    }
    if (!o.shape.every((s) => typeof s === 'number' && Number.isInteger(s) && s >= 0)) throw new UsageError(`inputs[${i}]: bad shape`);
    const spec: InputSpec = { kind: 'tensor', factory: factory as TensorFactory, shape: o.shape as number[], dtype };
    if (typeof o.fill === 'number' || typeof o.fill === 'boolean') spec.fill = o.fill;
    return spec;
  }
  throw new UsageError(`inputs[${i}] must be a number, a boolean or { shape, dtype?, factory?, fill? }`);
}

function hasRecords(v: unknown): v is { records(): readonly FusionRecord[] } {
  return typeof v === 'object' && v !== null && 'records' in v && typeof v.records === 'function';
}

/** `inputsLine: false` (`--inputs` given): a .py script's inputs line is not evaluated, a module's `inputs` export not read. */
export async function loadDefinition(file: string, cwd: string, options: { inputsLine?: boolean } = {}): Promise<LoadedDefinition> {
  const inputsLine = options.inputsLine ?? true;
  const path = resolve(cwd, file);
  const ext = extname(path);
  if (ext === '.py') {
    let bytes: Uint8Array;
    try {
      bytes = readFileSync(path);
    } catch {
      throw new UsageError(`cannot read ${file}`);
    }
    const text = decodePythonSource(bytes, file);
    // numpy.load paths in the inputs line are relative to the script, not to the working directory.
    const imported = importPythonScript(text, {}, { scriptDirectory: dirname(path), evaluateInputs: inputsLine });
    return { definition: imported.definition, inputs: imported.inputs };
  }
  if (ext === '.mjs' || ext === '.js') {
    let mod: Record<string, unknown>;
    try {
      mod = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
    } catch (e) {
      if (e instanceof Error && 'code' in e && e.code === 'ERR_MODULE_NOT_FOUND') throw new UsageError(`cannot read ${file}: ${e.message}`);
      // Node's import() does not say where a SyntaxError is (and a bundler's loader words it its own way).
      const syntax = moduleSyntaxError(path, file);
      if (syntax !== null) throw syntax;
      // Evaluating the module threw (a ReferenceError at top level…): say which file.
      throw new DefinitionSourceError(`${file}: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
    }
    const exported = mod['default'] ?? mod['definition'];
    let definition: FusionDefinition;
    if (exported instanceof FusionDefinition) definition = exported;
    else if (typeof exported === 'function') definition = FusionDefinition.build(exported as (fd: FusionDefinition) => void);
    else if (hasRecords(exported)) definition = FusionDefinition.fromRecords(exported.records());
    else throw new UsageError(`${file}: the default export must be a function (fd) => void or a FusionDefinition`);
    const raw = mod['inputs'];
    const inputs = inputsLine && Array.isArray(raw) ? raw.map(moduleInput) : null;
    return { definition, inputs };
  }
  throw new UsageError(`${file}: expected a .py (nvFuser python definition), .mjs or .js file`);
}
