// Bindings for cuBLASLt GEMMs: probe, handle lifetime, heuristic query and matmul. They take a
// plan already in cuBLASLt's column-major terms (src/gemm/cublaslt-plan.ts makes it: the
// row-major transposition identity, validation, enum values), so this file only moves fields
// into descriptors. Invariant: every descriptor created here is destroyed on every path (RAII),
// and every failing cuBLASLt call becomes CudaError(call, status, CUBLAS_STATUS_NAME).
#include <cstring>
#include <vector>

#include "addon_state.h"

namespace tsfuser {

namespace {

const CublasLtApi& requireCublasLt(Napi::Env env, const char* call) {
  AddonState& s = state(env);
  s.cublasLt.load();
  if (!s.cublasLt.loaded) {
    throwCudaError(env, call, -1, "CUBLASLT_UNAVAILABLE", std::string(call) + ": " + s.cublasLt.unavailableReason);
  }
  return s.cublasLt;
}

void checkCublas(Napi::Env env, const CublasLtApi& api, cublasStatus_t status, const char* call) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  const char* name = api.cublasLtGetStatusName != nullptr ? api.cublasLtGetStatusName(status) : nullptr;
  throwCudaError(env, call, status, name != nullptr ? name : "CUBLAS_STATUS_UNKNOWN",
                 std::string(call) + " failed: " + describeCublasStatus(api, status));
}

[[noreturn]] void planError(Napi::Env env, const std::string& field, const char* expected) {
  throw Napi::TypeError::New(env, "cuBLASLt plan field " + field + " must be " + expected);
}

Napi::Object objectField(Napi::Env env, const Napi::Object& object, const char* field) {
  Napi::Value value = object.Get(field);
  if (!value.IsObject()) planError(env, field, "an object");
  return value.As<Napi::Object>();
}

std::int64_t intField(Napi::Env env, const Napi::Object& object, const char* field) {
  Napi::Value value = object.Get(field);
  if (!value.IsNumber()) planError(env, field, "an integer number");
  double d = value.As<Napi::Number>().DoubleValue();
  if (!(d >= -9007199254740991.0 && d <= 9007199254740991.0) || static_cast<double>(static_cast<std::int64_t>(d)) != d) {
    planError(env, field, "an integer number");
  }
  return static_cast<std::int64_t>(d);
}

double numberField(Napi::Env env, const Napi::Object& object, const char* field) {
  Napi::Value value = object.Get(field);
  if (!value.IsNumber()) planError(env, field, "a number");
  return value.As<Napi::Number>().DoubleValue();
}

std::uint64_t pointerField(Napi::Env env, const Napi::Object& object, const char* field) {
  Napi::Value value = object.Get(field);
  if (!value.IsBigInt()) planError(env, field, "a bigint device pointer (0n for none)");
  bool lossless = false;
  std::uint64_t out = value.As<Napi::BigInt>().Uint64Value(&lossless);
  if (!lossless) planError(env, field, "a bigint in [0, 2^64)");
  return out;
}

const void* asPointer(std::uint64_t address) { return reinterpret_cast<const void*>(static_cast<std::uintptr_t>(address)); }

/** The descriptors of one GEMM, destroyed with it. */
class GemmDescriptors {
 public:
  GemmDescriptors(Napi::Env env, const CublasLtApi& api) : env_(env), api_(api) {}

  /** Creates the descriptors from the plan. A throw here leaves the object complete, so the
   *  destructor still releases what was created (a throwing constructor would not). */
  void build(const Napi::Object& plan) {
    Napi::Env env = env_;
    const CublasLtApi& api = api_;
    check(api.cublasLtMatmulDescCreate(&operation_, static_cast<int>(intField(env, plan, "computeType")),
                                       static_cast<int>(intField(env, plan, "scaleType"))),
          "cublasLtMatmulDescCreate");
    setInt32(CUBLASLT_MATMUL_DESC_TRANSA, intField(env, plan, "transa"));
    setInt32(CUBLASLT_MATMUL_DESC_TRANSB, intField(env, plan, "transb"));
    std::uint32_t epilogue = static_cast<std::uint32_t>(intField(env, plan, "epilogue"));
    setOperation(CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue));
    setPointer(CUBLASLT_MATMUL_DESC_BIAS_POINTER, pointerField(env, plan, "biasPointer"));
    setInt64(CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, intField(env, plan, "biasBatchStride"));
    if (std::int64_t biasType = intField(env, plan, "biasDataType"); biasType >= 0) {
      setInt32(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, biasType);
    }
    if (std::uint64_t aux = pointerField(env, plan, "auxPointer"); aux != 0) {
      setPointer(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, aux);
      setInt64(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, intField(env, plan, "auxLd"));
      setInt64(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE, intField(env, plan, "auxBatchStride"));
      if (std::int64_t auxType = intField(env, plan, "auxDataType"); auxType >= 0) {
        setInt32(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE, auxType);
      }
    }
    setPointerIfSet(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, pointerField(env, plan, "aScalePointer"));
    setPointerIfSet(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, pointerField(env, plan, "bScalePointer"));
    setPointerIfSet(CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, pointerField(env, plan, "dScalePointer"));
    setPointerIfSet(CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, pointerField(env, plan, "amaxDPointer"));
    if (std::int64_t fast = intField(env, plan, "fastAccumulate"); fast != 0) {
      std::int8_t flag = 1;
      setOperation(CUBLASLT_MATMUL_DESC_FAST_ACCUM, &flag, sizeof(flag));
    }
    layout(objectField(env, plan, "a"), a_);
    layout(objectField(env, plan, "b"), b_);
    layout(objectField(env, plan, "c"), c_);
    layout(objectField(env, plan, "d"), d_);
  }

  ~GemmDescriptors() {
    for (cublasLtMatrixLayout_t layout : {a_, b_, c_, d_}) {
      if (layout != nullptr) api_.cublasLtMatrixLayoutDestroy(layout);
    }
    if (operation_ != nullptr) api_.cublasLtMatmulDescDestroy(operation_);
  }

  GemmDescriptors(const GemmDescriptors&) = delete;
  GemmDescriptors& operator=(const GemmDescriptors&) = delete;

  cublasLtMatmulDesc_t operation() const { return operation_; }
  cublasLtMatrixLayout_t a() const { return a_; }
  cublasLtMatrixLayout_t b() const { return b_; }
  cublasLtMatrixLayout_t c() const { return c_; }
  cublasLtMatrixLayout_t d() const { return d_; }

 private:
  void check(cublasStatus_t status, const char* call) { checkCublas(env_, api_, status, call); }

  void setOperation(int attribute, const void* value, std::size_t bytes) {
    check(api_.cublasLtMatmulDescSetAttribute(operation_, attribute, value, bytes), "cublasLtMatmulDescSetAttribute");
  }
  void setInt32(int attribute, std::int64_t value) {
    std::int32_t v = static_cast<std::int32_t>(value);
    setOperation(attribute, &v, sizeof(v));
  }
  void setInt64(int attribute, std::int64_t value) { setOperation(attribute, &value, sizeof(value)); }
  void setPointer(int attribute, std::uint64_t address) {
    const void* p = asPointer(address);
    setOperation(attribute, &p, sizeof(p));
  }
  void setPointerIfSet(int attribute, std::uint64_t address) {
    if (address != 0) setPointer(attribute, address);
  }

  /** Creates one layout into `slot` (owned by this object as soon as it exists). */
  void layout(const Napi::Object& description, cublasLtMatrixLayout_t& slot) {
    check(api_.cublasLtMatrixLayoutCreate(&slot, static_cast<int>(intField(env_, description, "dataType")),
                                          static_cast<std::uint64_t>(intField(env_, description, "rows")),
                                          static_cast<std::uint64_t>(intField(env_, description, "cols")),
                                          intField(env_, description, "ld")),
          "cublasLtMatrixLayoutCreate");
    std::int32_t order = CUBLASLT_ORDER_COL;
    check(api_.cublasLtMatrixLayoutSetAttribute(slot, CUBLASLT_MATRIX_LAYOUT_ORDER, &order, sizeof(order)),
          "cublasLtMatrixLayoutSetAttribute");
    std::int32_t batchCount = static_cast<std::int32_t>(intField(env_, description, "batchCount"));
    if (batchCount > 1) {
      std::int64_t stride = intField(env_, description, "batchStride");
      check(api_.cublasLtMatrixLayoutSetAttribute(slot, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batchCount, sizeof(batchCount)),
            "cublasLtMatrixLayoutSetAttribute");
      check(api_.cublasLtMatrixLayoutSetAttribute(slot, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof(stride)),
            "cublasLtMatrixLayoutSetAttribute");
    }
  }

  Napi::Env env_;
  const CublasLtApi& api_;
  cublasLtMatmulDesc_t operation_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr;
  cublasLtMatrixLayout_t b_ = nullptr;
  cublasLtMatrixLayout_t c_ = nullptr;
  cublasLtMatrixLayout_t d_ = nullptr;
};

Napi::Object planArgument(const Napi::CallbackInfo& info, std::size_t index) {
  if (!info[index].IsObject()) throw Napi::TypeError::New(info.Env(), "argument " + std::to_string(index) + " (plan) must be an object");
  return info[index].As<Napi::Object>();
}

Napi::Value CublasLtProbe(const Napi::CallbackInfo& info) {
  AddonState& s = state(info.Env());
  s.cublasLt.load();
  Napi::Object out = Napi::Object::New(info.Env());
  out.Set("loaded", s.cublasLt.loaded);
  out.Set("reason", s.cublasLt.unavailableReason);
  out.Set("path", s.cublasLt.libraryPath);
  out.Set("version", static_cast<double>(s.cublasLt.version));
  return out;
}

Napi::Value CublasLtCreate(const Napi::CallbackInfo& info) {
  const CublasLtApi& api = requireCublasLt(info.Env(), "cublasLtCreate");
  cublasLtHandle_t handle = nullptr;
  checkCublas(info.Env(), api, api.cublasLtCreate(&handle), "cublasLtCreate");
  return handleToBigInt(info.Env(), handle);
}

void CublasLtDestroy(const Napi::CallbackInfo& info) {
  const CublasLtApi& api = requireCublasLt(info.Env(), "cublasLtDestroy");
  checkCublas(info.Env(), api, api.cublasLtDestroy(argHandle<cublasLtHandle_t>(info, 0, "handle")), "cublasLtDestroy");
}

/** RAII preference descriptor. */
struct Preference {
  const CublasLtApi& api;
  cublasLtMatmulPreference_t value = nullptr;
  ~Preference() {
    if (value != nullptr) api.cublasLtMatmulPreferenceDestroy(value);
  }
};

// cublasLtHeuristic(handle, plan, maxWorkspaceBytes, requestedCount) → [{ algo, workspaceSize, wavesCount }]
Napi::Value CublasLtHeuristic(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const CublasLtApi& api = requireCublasLt(env, "cublasLtMatmulAlgoGetHeuristic");
  auto handle = argHandle<cublasLtHandle_t>(info, 0, "handle");
  Napi::Object plan = planArgument(info, 1);
  std::uint64_t maxWorkspace = argU64(info, 2, "maxWorkspaceBytes");
  std::int64_t requested = argInt(info, 3, "requestedCount");
  if (requested < 1 || requested > 64) throw Napi::RangeError::New(env, "requestedCount must be in [1, 64]");
  GemmDescriptors descriptors(env, api);
  descriptors.build(plan);
  Preference preference{api};
  checkCublas(env, api, api.cublasLtMatmulPreferenceCreate(&preference.value), "cublasLtMatmulPreferenceCreate");
  auto setPreference = [&](int attribute, const void* value, std::size_t bytes) {
    checkCublas(env, api, api.cublasLtMatmulPreferenceSetAttribute(preference.value, attribute, value, bytes),
                "cublasLtMatmulPreferenceSetAttribute");
  };
  setPreference(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &maxWorkspace, sizeof(maxWorkspace));
  const std::pair<int, const char*> alignments[] = {{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, "alignmentA"},
                                                    {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, "alignmentB"},
                                                    {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, "alignmentC"},
                                                    {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, "alignmentD"}};
  for (const auto& [attribute, field] : alignments) {
    std::uint32_t bytes = static_cast<std::uint32_t>(intField(env, plan, field));
    setPreference(attribute, &bytes, sizeof(bytes));
  }
  std::vector<cublasLtMatmulHeuristicResult_t> results(static_cast<std::size_t>(requested));
  int returned = 0;
  cublasStatus_t status = api.cublasLtMatmulAlgoGetHeuristic(handle, descriptors.operation(), descriptors.a(),
                                                            descriptors.b(), descriptors.c(), descriptors.d(),
                                                            preference.value, static_cast<int>(requested),
                                                            results.data(), &returned);
  Napi::Array out = Napi::Array::New(env);
  // NOT_SUPPORTED means "no algorithm for this configuration": an empty list, which the caller
  // reports with the configuration it asked for.
  if (status == CUBLAS_STATUS_NOT_SUPPORTED) return out;
  checkCublas(env, api, status, "cublasLtMatmulAlgoGetHeuristic");
  std::uint32_t next = 0;
  for (int i = 0; i < returned; ++i) {
    const cublasLtMatmulHeuristicResult_t& result = results[static_cast<std::size_t>(i)];
    if (result.state != CUBLAS_STATUS_SUCCESS) continue;
    Napi::Object entry = Napi::Object::New(env);
    auto algo = Napi::Uint8Array::New(env, sizeof(cublasLtMatmulAlgo_t));
    std::memcpy(algo.Data(), &result.algo, sizeof(cublasLtMatmulAlgo_t));
    entry.Set("algo", algo);
    entry.Set("workspaceSize", static_cast<double>(result.workspaceSize));
    entry.Set("wavesCount", result.wavesCount);
    out.Set(next++, entry);
  }
  return out;
}

// cublasLtMatmul(handle, plan, algo, workspace, workspaceBytes, stream); pointers and alpha/beta
// come from the plan (alpha/beta as the f32 scale type, host memory).
void CublasLtMatmul(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const CublasLtApi& api = requireCublasLt(env, "cublasLtMatmul");
  auto handle = argHandle<cublasLtHandle_t>(info, 0, "handle");
  Napi::Object plan = planArgument(info, 1);
  ByteRange algoBytes = argView(info, 2, "algo");
  if (algoBytes.length != sizeof(cublasLtMatmulAlgo_t)) {
    throw Napi::RangeError::New(env, "algo must be the " + std::to_string(sizeof(cublasLtMatmulAlgo_t)) +
                                         " bytes cublasLtHeuristic returned");
  }
  cublasLtMatmulAlgo_t algo{};
  std::memcpy(&algo, algoBytes.data, sizeof(algo));
  std::uint64_t workspace = argU64(info, 3, "workspace");
  std::uint64_t workspaceBytes = argU64(info, 4, "workspaceBytes");
  auto stream = argHandle<cudaStream_t>(info, 5, "stream");
  float alpha = static_cast<float>(numberField(env, plan, "alpha"));
  float beta = static_cast<float>(numberField(env, plan, "beta"));
  std::uint64_t a = pointerField(env, plan, "aPointer");
  std::uint64_t b = pointerField(env, plan, "bPointer");
  std::uint64_t c = pointerField(env, plan, "cPointer");
  std::uint64_t d = pointerField(env, plan, "dPointer");
  GemmDescriptors descriptors(env, api);
  descriptors.build(plan);
  checkCublas(env, api,
              api.cublasLtMatmul(handle, descriptors.operation(), &alpha, asPointer(a), descriptors.a(), asPointer(b),
                                 descriptors.b(), &beta, asPointer(c), descriptors.c(),
                                 const_cast<void*>(asPointer(d)), descriptors.d(), &algo,
                                 const_cast<void*>(asPointer(workspace)), workspaceBytes, stream),
              "cublasLtMatmul");
}

}  // namespace

void registerGemmBindings(Napi::Env env, Napi::Object exports) {
  exports.Set("cublasLtProbe", Napi::Function::New(env, CublasLtProbe, "cublasLtProbe"));
  exports.Set("cublasLtCreate", Napi::Function::New(env, CublasLtCreate, "cublasLtCreate"));
  exports.Set("cublasLtDestroy", Napi::Function::New(env, CublasLtDestroy, "cublasLtDestroy"));
  exports.Set("cublasLtHeuristic", Napi::Function::New(env, CublasLtHeuristic, "cublasLtHeuristic"));
  exports.Set("cublasLtMatmul", Napi::Function::New(env, CublasLtMatmul, "cublasLtMatmul"));
}

}  // namespace tsfuser
