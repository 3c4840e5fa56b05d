#!/usr/bin/env node
// Writes native/cublaslt_enums.json: the enum values and struct field lists the addon relies on
// (WANTED_ENUMS / WANTED_STRUCTS of cublaslt-header.mjs), read from a CUDA include directory
// that holds cublasLt.h, cublas_api.h and library_types.h. test/cublaslt-enums.test.ts checks
// the addon's declarations against this table where no header is installed.
//
//   node packages/device/scripts/extract-cublaslt-enums.mjs /usr/local/cuda/include
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WANTED_ENUMS, WANTED_STRUCTS, parseEnums, parseTypedefStruct } from './cublaslt-header.mjs';

const includeDir = process.argv[2];
if (includeDir === undefined) {
  console.error('usage: extract-cublaslt-enums.mjs <include dir with cublasLt.h> [output.json]');
  process.exit(2);
}
const output = process.argv[3] ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'native', 'cublaslt_enums.json');

const known = {};
const enums = {};
for (const [file, names] of Object.entries(WANTED_ENUMS)) {
  const path = join(includeDir, file);
  if (!existsSync(path)) throw new Error(`${path} not found`);
  const parsed = parseEnums(readFileSync(path, 'utf8'), known);
  for (const name of names) {
    const found = parsed.find((e) => e.enumName === name);
    if (found === undefined) throw new Error(`${file}: enum ${name} not found`);
    enums[name] = Object.fromEntries(found.values);
  }
}
const lt = readFileSync(join(includeDir, 'cublasLt.h'), 'utf8');
const structs = {};
for (const name of WANTED_STRUCTS) {
  const fields = parseTypedefStruct(lt, name);
  if (fields === null) throw new Error(`cublasLt.h: struct ${name} not found`);
  structs[name] = fields;
}
const api = readFileSync(join(includeDir, 'cublas_api.h'), 'utf8');
const version = ['MAJOR', 'MINOR', 'PATCH'].map((part) => new RegExp(`#define CUBLAS_VER_${part}\\s+(\\d+)`).exec(api)?.[1] ?? '?').join('.');
const table = { source: `cuBLAS ${version} headers (cublasLt.h, cublas_api.h, library_types.h)`, enums, structs };
writeFileSync(resolve(output), `${JSON.stringify(table, null, 2)}\n`);
console.log(`wrote ${output} from cuBLAS ${version}`);
