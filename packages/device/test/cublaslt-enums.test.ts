// Every cuBLASLt / cuBLAS / CUDA value the device layer declares — the addon's `constexpr`s and
// struct layouts (native/cublaslt_api.h) and the TypeScript side's CUBLASLT_VALUES — equals the
// real header's. With cublasLt.h installed (TSFUSER_CUBLASLT_INCLUDE, the CUDA toolkit's include
// directories, the nvidia-cublas wheel) a C++ file of static_asserts is compiled against it with
// g++; without one, the values are compared with native/cublaslt_enums.json, the table
// scripts/extract-cublaslt-enums.mjs extracted from the header (and the extractor's parser is
// checked on a header fragment).

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CUBLASLT_VALUES } from '../src/gemm/cublaslt-constants.js';
import {
  WANTED_STRUCTS,
  parseConstexprValues,
  parseEnums,
  parsePlainStruct,
  parseTypedefStruct,
} from '../scripts/cublaslt-header.mjs';

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const apiHeaderPath = join(packageRoot, 'native', 'cublaslt_api.h');
const apiHeader = readFileSync(apiHeaderPath, 'utf8');
const nativeValues = parseConstexprValues(apiHeader);
const tsValues: Record<string, number> = { ...CUBLASLT_VALUES };

interface Table {
  source: string;
  enums: Record<string, Record<string, number>>;
  structs: Record<string, [string, string][]>;
}
const table = JSON.parse(readFileSync(join(packageRoot, 'native', 'cublaslt_enums.json'), 'utf8')) as Table;
const tableValues: Record<string, number> = Object.assign({}, ...Object.values(table.enums));

/** Entries of `dir` whose names start with `prefix`, as full paths ([] when it does not exist). */
function children(dir: string, prefix: string): string[] {
  try {
    return readdirSync(dir).filter((name) => name.startsWith(prefix)).map((name) => join(dir, name));
  } catch {
    return [];
  }
}

function findHeaderDir(): string | undefined {
  const explicit = process.env.TSFUSER_CUBLASLT_INCLUDE;
  const toolkits = ['/usr/local/cuda', ...children('/usr/local', 'cuda-')];
  const pythons = ['/usr/local/lib', '/usr/lib'].flatMap((dir) => children(dir, 'python3'));
  const candidates = [
    ...(explicit !== undefined && explicit !== '' ? [explicit] : []),
    ...toolkits.flatMap((root) => [join(root, 'include'), join(root, 'targets', 'x86_64-linux', 'include')]),
    ...pythons.flatMap((root) =>
      ['site-packages', 'dist-packages'].flatMap((p) => ['cublas', 'cu13'].map((w) => join(root, p, 'nvidia', w, 'include'))),
    ),
  ];
  return candidates.find((dir) => existsSync(join(dir, 'cublasLt.h')));
}

describe('declared cuBLASLt values', () => {
  it('the addon declares the values the test reads (the pattern still matches)', () => {
    expect(Object.keys(nativeValues).length).toBeGreaterThanOrEqual(30);
    expect(nativeValues.CUBLASLT_MATMUL_DESC_EPILOGUE).toBe(7);
  });

  const headerDir = findHeaderDir();
  if (headerDir !== undefined) {
    it(`match cublasLt.h in ${headerDir} (compiled static_asserts)`, () => {
      const lines = ['#include <cstddef>', '#include <cublasLt.h>', `#include "${apiHeaderPath}"`];
      for (const [name, value] of Object.entries(nativeValues)) {
        lines.push(`static_assert(static_cast<long long>(::${name}) == ${value} && tsfuser::${name} == ${value}, "${name}");`);
      }
      for (const [name, value] of Object.entries(tsValues)) {
        lines.push(`static_assert(static_cast<long long>(::${name}) == ${value}, "TS ${name}");`);
      }
      lines.push('static_assert(sizeof(tsfuser::cublasLtMatmulAlgo_t) == sizeof(::cublasLtMatmulAlgo_t), "algo size");');
      lines.push('static_assert(sizeof(tsfuser::cublasLtMatmulHeuristicResult_t) == sizeof(::cublasLtMatmulHeuristicResult_t), "result size");');
      for (const field of ['algo', 'workspaceSize', 'state', 'wavesCount', 'reserved']) {
        lines.push(
          `static_assert(offsetof(tsfuser::cublasLtMatmulHeuristicResult_t, ${field}) == offsetof(::cublasLtMatmulHeuristicResult_t, ${field}), "${field}");`,
        );
      }
      const dir = mkdtempSync(join(tmpdir(), 'cublaslt-check-'));
      try {
        const file = join(dir, 'check.cc');
        writeFileSync(file, `${lines.join('\n')}\n`);
        const includes = [headerDir, '/usr/local/cuda/include'].flatMap((d) => ['-I', d]);
        // Throws with g++'s diagnostics (naming the value) when any assertion fails.
        execFileSync('g++', ['-std=c++17', '-Wall', '-fsyntax-only', ...includes, file], { stdio: 'pipe' });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  } else {
    it(`match the table extracted from the header (${table.source}; no cublasLt.h installed here)`, () => {
      const mismatches: string[] = [];
      for (const [origin, values] of [['native/cublaslt_api.h', nativeValues], ['CUBLASLT_VALUES', tsValues]] as const) {
        for (const [name, value] of Object.entries(values)) {
          if (tableValues[name] !== value) mismatches.push(`${origin}: ${name} = ${value}, header ${String(tableValues[name])}`);
        }
      }
      expect(mismatches).toEqual([]);
    });

    it('declare the header structs field for field', () => {
      for (const name of WANTED_STRUCTS) {
        expect(parsePlainStruct(apiHeader, name), name).toEqual(table.structs[name]);
      }
    });
  }
});

describe('header parser (scripts/cublaslt-header.mjs)', () => {
  const fragment = `
    /** comment with = signs, { braces } */
    typedef enum {
      X_DEFAULT = 1,        // one
      X_RELU = 2,
      X_RELU_AUX = (X_RELU | 128),
      X_NEXT,
      X_HEX = 0x10u,
      X_SHIFT = 1 << 3,
    } x_t;
    typedef enum cudaDataType_t { R_A = 2, R_B = R_A } cudaDataType;
    typedef struct { uint64_t data[8]; } algo_t;
  `;

  it('evaluates explicit, implicit, hex, shifted and referenced enumerators as C does', () => {
    const enums = parseEnums(fragment);
    expect(enums.map((e) => e.enumName)).toEqual(['x_t', 'cudaDataType']);
    expect(Object.fromEntries(enums[0]?.values ?? [])).toEqual({ X_DEFAULT: 1, X_RELU: 2, X_RELU_AUX: 130, X_NEXT: 131, X_HEX: 16, X_SHIFT: 8 });
    expect(enums[1]?.values).toEqual([['R_A', 2], ['R_B', 2]]);
  });

  it('refuses an enumerator it cannot evaluate, naming it', () => {
    expect(() => parseEnums('typedef enum { A = sizeof(int) } t;')).toThrow(/A: unknown identifier sizeof/);
    expect(() => parseEnums('typedef enum { A = B + 1 } t;')).toThrow(/A: unknown identifier B/);
  });

  it('reads typedef struct fields', () => {
    expect(parseTypedefStruct(fragment, 'algo_t')).toEqual([['uint64_t', 'data[8]']]);
    expect(parseTypedefStruct(fragment, 'missing_t')).toBeNull();
  });
});
