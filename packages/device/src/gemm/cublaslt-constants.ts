// The cuBLASLt / cuBLAS / CUDA enum values that the TypeScript side chooses and hands to the
// addon (epilogues, data types, compute types, operations), under their C names. Invariant:
// each equals the header's value — test/cublaslt-enums.test.ts checks every entry against
// cublasLt.h when it is installed, else against native/cublaslt_enums.json.

export const CUBLASLT_VALUES = {
  CUBLAS_OP_N: 0,
  CUBLAS_OP_T: 1,
  CUBLAS_COMPUTE_32F: 68,
  CUBLAS_COMPUTE_32F_FAST_TF32: 77,
  CUDA_R_32F: 0,
  CUDA_R_16F: 2,
  CUDA_R_16BF: 14,
  CUDA_R_8F_E4M3: 28,
  CUDA_R_8F_E5M2: 29,
  CUBLASLT_EPILOGUE_DEFAULT: 1,
  CUBLASLT_EPILOGUE_RELU: 2,
  CUBLASLT_EPILOGUE_RELU_AUX: 130,
  CUBLASLT_EPILOGUE_BIAS: 4,
  CUBLASLT_EPILOGUE_RELU_BIAS: 6,
  CUBLASLT_EPILOGUE_RELU_AUX_BIAS: 134,
  CUBLASLT_EPILOGUE_DRELU: 136,
  CUBLASLT_EPILOGUE_DRELU_BGRAD: 152,
  CUBLASLT_EPILOGUE_GELU: 32,
  CUBLASLT_EPILOGUE_GELU_AUX: 160,
  CUBLASLT_EPILOGUE_GELU_BIAS: 36,
  CUBLASLT_EPILOGUE_GELU_AUX_BIAS: 164,
  CUBLASLT_EPILOGUE_DGELU: 192,
  CUBLASLT_EPILOGUE_DGELU_BGRAD: 208,
  CUBLASLT_EPILOGUE_BGRADA: 256,
  CUBLASLT_EPILOGUE_BGRADB: 512,
} as const;

export type CublasLtValueName = keyof typeof CUBLASLT_VALUES;
