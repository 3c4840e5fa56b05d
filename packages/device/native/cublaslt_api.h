// The slice of cuBLASLt that tsfuser's GEMM segments use, declared here so that no cuBLAS
// header is needed to build; resolved at run time with dlopen/dlsym (see cublaslt_api.cc for
// the search order). Invariant: every enum value and struct layout below equals cublasLt.h's /
// cublas_api.h's / library_types.h's — test/cublaslt-enums.test.ts checks each `constexpr` here
// against the real header when one is found (a static_assert per value, compiled with g++),
// else against native/cublaslt_enums.json, extracted from the header by
// scripts/extract-cublaslt-enums.mjs. Keep one `constexpr <type> NAME = value;` per line: the
// test reads them by that pattern.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace tsfuser {

using cublasStatus_t = int;
using cublasLtHandle_t = struct cublasLtContext*;
using cudaStream_t = struct CUstream_st*;

/** cublasLtMatmulAlgo_t: 64 opaque bytes, trivially copyable (cuBLASLt's own words). */
struct cublasLtMatmulAlgo_t {
  std::uint64_t data[8];
};

/** cublasLtMatmulHeuristicResult_t. */
struct cublasLtMatmulHeuristicResult_t {
  cublasLtMatmulAlgo_t algo;
  std::size_t workspaceSize;
  cublasStatus_t state;
  float wavesCount;
  int reserved[4];
};

using cublasLtMatmulDesc_t = struct cublasLtMatmulDescOpaque*;
using cublasLtMatrixLayout_t = struct cublasLtMatrixLayoutOpaque*;
using cublasLtMatmulPreference_t = struct cublasLtMatmulPreferenceOpaque*;

// cublasStatus_t (cublas_api.h)
constexpr int CUBLAS_STATUS_SUCCESS = 0;
constexpr int CUBLAS_STATUS_NOT_SUPPORTED = 15;
// cublasOperation_t
constexpr int CUBLAS_OP_N = 0;
constexpr int CUBLAS_OP_T = 1;
// cublasComputeType_t
constexpr int CUBLAS_COMPUTE_32F = 68;
constexpr int CUBLAS_COMPUTE_32F_FAST_TF32 = 77;
// cudaDataType (library_types.h)
constexpr int CUDA_R_32F = 0;
constexpr int CUDA_R_16F = 2;
constexpr int CUDA_R_16BF = 14;
constexpr int CUDA_R_8F_E4M3 = 28;
constexpr int CUDA_R_8F_E5M2 = 29;
// cublasLtOrder_t
constexpr int CUBLASLT_ORDER_COL = 0;
// cublasLtMatrixLayoutAttribute_t
constexpr int CUBLASLT_MATRIX_LAYOUT_ORDER = 1;
constexpr int CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT = 5;
constexpr int CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET = 6;
// cublasLtMatmulDescAttributes_t
constexpr int CUBLASLT_MATMUL_DESC_TRANSA = 3;
constexpr int CUBLASLT_MATMUL_DESC_TRANSB = 4;
constexpr int CUBLASLT_MATMUL_DESC_EPILOGUE = 7;
constexpr int CUBLASLT_MATMUL_DESC_BIAS_POINTER = 8;
constexpr int CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE = 10;
constexpr int CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER = 11;
constexpr int CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD = 12;
constexpr int CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE = 13;
constexpr int CUBLASLT_MATMUL_DESC_A_SCALE_POINTER = 17;
constexpr int CUBLASLT_MATMUL_DESC_B_SCALE_POINTER = 18;
constexpr int CUBLASLT_MATMUL_DESC_D_SCALE_POINTER = 20;
constexpr int CUBLASLT_MATMUL_DESC_AMAX_D_POINTER = 21;
constexpr int CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE = 22;
constexpr int CUBLASLT_MATMUL_DESC_FAST_ACCUM = 25;
constexpr int CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE = 26;
// cublasLtMatmulPreferenceAttributes_t
constexpr int CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1;
constexpr int CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES = 5;
constexpr int CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES = 6;
constexpr int CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES = 7;
constexpr int CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES = 8;
// The epilogue values (cublasLtEpilogue_t) travel from TypeScript (src/gemm/cublaslt-constants.ts,
// checked by the same test); the addon passes them through unchanged.

// X(name, parameter list); every symbol must resolve for the library to count as loaded.
#define TSFUSER_CUBLASLT_FUNCTIONS(X)                                                                    \
  X(cublasLtCreate, (cublasLtHandle_t*))                                                                 \
  X(cublasLtDestroy, (cublasLtHandle_t))                                                                 \
  X(cublasLtMatmulDescCreate, (cublasLtMatmulDesc_t*, int, int))                                         \
  X(cublasLtMatmulDescDestroy, (cublasLtMatmulDesc_t))                                                   \
  X(cublasLtMatmulDescSetAttribute, (cublasLtMatmulDesc_t, int, const void*, std::size_t))               \
  X(cublasLtMatrixLayoutCreate, (cublasLtMatrixLayout_t*, int, std::uint64_t, std::uint64_t, std::int64_t)) \
  X(cublasLtMatrixLayoutDestroy, (cublasLtMatrixLayout_t))                                               \
  X(cublasLtMatrixLayoutSetAttribute, (cublasLtMatrixLayout_t, int, const void*, std::size_t))           \
  X(cublasLtMatmulPreferenceCreate, (cublasLtMatmulPreference_t*))                                       \
  X(cublasLtMatmulPreferenceDestroy, (cublasLtMatmulPreference_t))                                       \
  X(cublasLtMatmulPreferenceSetAttribute, (cublasLtMatmulPreference_t, int, const void*, std::size_t))   \
  X(cublasLtMatmulAlgoGetHeuristic,                                                                      \
    (cublasLtHandle_t, cublasLtMatmulDesc_t, cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,             \
     cublasLtMatrixLayout_t, cublasLtMatrixLayout_t, cublasLtMatmulPreference_t, int,                    \
     cublasLtMatmulHeuristicResult_t*, int*))                                                            \
  X(cublasLtMatmul,                                                                                      \
    (cublasLtHandle_t, cublasLtMatmulDesc_t, const void*, const void*, cublasLtMatrixLayout_t,           \
     const void*, cublasLtMatrixLayout_t, const void*, const void*, cublasLtMatrixLayout_t, void*,       \
     cublasLtMatrixLayout_t, const cublasLtMatmulAlgo_t*, void*, std::size_t, cudaStream_t))

/** Function pointers into libcublasLt; all null until load() succeeds. */
struct CublasLtApi {
#define TSFUSER_DECLARE(name, params) cublasStatus_t(*name) params = nullptr;
  TSFUSER_CUBLASLT_FUNCTIONS(TSFUSER_DECLARE)
#undef TSFUSER_DECLARE
  const char* (*cublasLtGetStatusName)(cublasStatus_t) = nullptr;
  const char* (*cublasLtGetStatusString)(cublasStatus_t) = nullptr;
  std::size_t (*cublasLtGetVersion)() = nullptr;

  bool loaded = false;
  /** Why the library cannot be used (every candidate and its failure); empty when it can. */
  std::string unavailableReason;
  /** The file it was loaded from (dladdr). */
  std::string libraryPath;
  /** cublasLtGetVersion(), e.g. 130100 for 13.1.0. */
  std::size_t version = 0;

  /** Tries the candidates in order (see cublaslt_api.cc). Idempotent. */
  void load();

 private:
  bool attempted_ = false;
  void* handle_ = nullptr;
  bool tryOpen(const std::string& name, std::string& failures);
};

/** "CUBLAS_STATUS_X (n): text", using cublasLtGetStatusName/String when loaded. */
std::string describeCublasStatus(const CublasLtApi& api, cublasStatus_t status);

}  // namespace tsfuser
