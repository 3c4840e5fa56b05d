// Loads the file given to `tsfuser run`: an nvFuser python definition (.py) through the
// importer, or a JS module (.mjs/.js) whose default export (or `definition` export) is a define
// function `(fd) => void` or a FusionDefinition, with an optional `inputs` export (numbers,
// booleans, or `{ shape, dtype?, factory?, fill? }` tensor specs).

import { readFileSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isDataType } from '@tsfuser/fusion-ir';
import { FusionDefinition } from '../definition/fusion-definition.js';
import type { FusionRecord } from '../definition/records.js';
import type { InputSpec, TensorFactory } from '../io/input-spec.js';
import { importPythonScript } from '../python/import-definition.js';
import { UsageError } from './console.js';

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

export async function loadDefinition(file: string, cwd: string): Promise<LoadedDefinition> {
  const path = resolve(cwd, file);
  const ext = extname(path);
  if (ext === '.py') {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      throw new UsageError(`cannot read ${file}`);
    }
    const imported = importPythonScript(text);
    return { definition: imported.definition, inputs: imported.inputs };
  }
  if (ext === '.mjs' || ext === '.js') {
    const mod = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
    const exported = mod['default'] ?? mod['definition'];
    let definition: FusionDefinition;
    if (exported instanceof FusionDefinition) definition = exported;
    else if (typeof exported === 'function') definition = FusionDefinition.build(exported as (fd: FusionDefinition) => void);
    else if (hasRecords(exported)) definition = FusionDefinition.fromRecords(exported.records());
    else throw new UsageError(`${file}: the default export must be a function (fd) => void or a FusionDefinition`);
    const raw = mod['inputs'];
    const inputs = Array.isArray(raw) ? raw.map(moduleInput) : null;
    return { definition, inputs };
  }
  throw new UsageError(`${file}: expected a .py (nvFuser python definition), .mjs or .js file`);
}
