// Per-addon-instance state and the helpers every binding uses: argument readers that throw
// TypeError on misuse, and the conversion of CUDA/NVRTC failures into the JS CudaError class
// (registered by the TypeScript wrapper through setErrorClass).
#pragma once

#include <napi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cublaslt_api.h"
#include "driver_api.h"
#include "nvrtc_api.h"

namespace tsfuser {

/**
 * A kernel launch whose configuration is fixed (a cached plan's kernel step), recorded once by
 * prepareLaunch: per launch only the argument bytes are copied into `storage` (16-byte
 * aligned) and cuLaunchKernel called with the parameter pointers computed here.
 */
struct PreparedLaunch {
  CUfunction function = nullptr;
  unsigned int grid[3] = {1, 1, 1};
  unsigned int block[3] = {1, 1, 1};
  unsigned int sharedBytes = 0;
  CUstream stream = nullptr;
  /** Bytes of the argument buffer every launch passes. */
  std::size_t size = 0;
  std::vector<std::uint64_t> storage;
  /** kernelParams pointers into storage (the driver reported the layout), else empty and `extra` used. */
  std::vector<void*> parameters;
  bool useParameters = false;
  std::size_t extraSize = 0;
  void* extra[5] = {nullptr, nullptr, nullptr, nullptr, nullptr};
};

struct AddonState {
  DriverApi cuda;
  NvrtcApi nvrtc;
  CublasLtApi cublasLt;
  Napi::FunctionReference cudaErrorClass;
  /** (offset, size) of each parameter per function, from cuFuncGetParamInfo; cleared on module unload. */
  std::unordered_map<CUfunction, std::vector<std::pair<std::size_t, std::size_t>>> parameterLayouts;
  /** By id (an index; a released slot is null and reused by the next prepareLaunch). */
  std::vector<std::unique_ptr<PreparedLaunch>> preparedLaunches;
};

AddonState& state(Napi::Env env);

/** Loads the driver if needed; throws CudaError(call, code -1) when it cannot be used. */
const DriverApi& requireDriver(Napi::Env env, const char* call);
/** Loads NVRTC if needed; throws CudaError(call, code -1) when it cannot be used. */
const NvrtcApi& requireNvrtc(Napi::Env env, const char* call);

/** Throws the registered CudaError (or a plain Error) with call name, numeric code, error name. */
[[noreturn]] void throwCudaError(Napi::Env env, const std::string& call, int code,
                                 const std::string& errorName, const std::string& message);

/** Throws CudaError for a failed driver call; no-op on CUDA_SUCCESS. */
void checkDriver(Napi::Env env, CUresult status, const char* call);
/** Throws CudaError for a failed NVRTC call; no-op on NVRTC_SUCCESS. */
void checkNvrtc(Napi::Env env, nvrtcResult status, const char* call);

// Argument readers: index into info, name for the TypeError message.
std::uint64_t argU64(const Napi::CallbackInfo& info, std::size_t index, const char* name);
std::int64_t argInt(const Napi::CallbackInfo& info, std::size_t index, const char* name);
std::uint32_t argU32(const Napi::CallbackInfo& info, std::size_t index, const char* name);
std::string argString(const Napi::CallbackInfo& info, std::size_t index, const char* name);

/** A byte range inside an ArrayBufferView argument, bounds-checked against the view. */
struct ByteRange {
  std::uint8_t* data;
  std::size_t length;
};
ByteRange argBytes(const Napi::CallbackInfo& info, std::size_t index, const char* name,
                   std::size_t byteOffset, std::size_t byteCount);
/** The whole view. */
ByteRange argView(const Napi::CallbackInfo& info, std::size_t index, const char* name);

Napi::BigInt toBigInt(Napi::Env env, std::uint64_t value);

template <typename Handle>
Handle argHandle(const Napi::CallbackInfo& info, std::size_t index, const char* name) {
  return reinterpret_cast<Handle>(static_cast<std::uintptr_t>(argU64(info, index, name)));
}

template <typename Handle>
Napi::BigInt handleToBigInt(Napi::Env env, Handle handle) {
  return toBigInt(env, static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(handle)));
}

void registerDeviceBindings(Napi::Env env, Napi::Object exports);
void registerKernelBindings(Napi::Env env, Napi::Object exports);
void registerGemmBindings(Napi::Env env, Napi::Object exports);
void registerGraphBindings(Napi::Env env, Napi::Object exports);

}  // namespace tsfuser
