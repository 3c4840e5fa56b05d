// Helpers shared by the bindings (see addon_state.h).
#include "addon_state.h"

#include <cmath>
#include <limits>

namespace tsfuser {

AddonState& state(Napi::Env env) { return *env.GetInstanceData<AddonState>(); }

const DriverApi& requireDriver(Napi::Env env, const char* call) {
  AddonState& s = state(env);
  s.cuda.load();
  if (!s.cuda.loaded) {
    throwCudaError(env, call, -1, "CUDA_DRIVER_UNAVAILABLE",
                   std::string(call) + ": CUDA driver unavailable: " + s.cuda.unavailableReason);
  }
  return s.cuda;
}

const NvrtcApi& requireNvrtc(Napi::Env env, const char* call) {
  AddonState& s = state(env);
  s.nvrtc.load();
  if (!s.nvrtc.loaded) {
    throwCudaError(env, call, -1, "NVRTC_UNAVAILABLE",
                   std::string(call) + ": " + s.nvrtc.unavailableReason);
  }
  return s.nvrtc;
}

void throwCudaError(Napi::Env env, const std::string& call, int code, const std::string& errorName,
                    const std::string& message) {
  AddonState& s = state(env);
  Napi::Object error;
  if (!s.cudaErrorClass.IsEmpty()) {
    error = s.cudaErrorClass.New({Napi::String::New(env, message), Napi::String::New(env, call),
                                  Napi::Number::New(env, code), Napi::String::New(env, errorName)});
  } else {
    error = Napi::Error::New(env, message).Value();
    error.Set("call", call);
    error.Set("code", code);
    error.Set("errorName", errorName);
  }
  throw Napi::Error(env, error);
}

void checkDriver(Napi::Env env, CUresult status, const char* call) {
  if (status == CUDA_SUCCESS) return;
  const DriverApi& api = state(env).cuda;
  const char* name = nullptr;
  if (api.cuGetErrorName != nullptr) api.cuGetErrorName(status, &name);
  throwCudaError(env, call, status, name != nullptr ? name : "CUDA_ERROR_UNKNOWN_CODE",
                 std::string(call) + " failed: " + describeDriverError(api, status));
}

void checkNvrtc(Napi::Env env, nvrtcResult status, const char* call) {
  if (status == NVRTC_SUCCESS) return;
  const NvrtcApi& api = state(env).nvrtc;
  const char* name = api.nvrtcGetErrorString != nullptr ? api.nvrtcGetErrorString(status) : nullptr;
  throwCudaError(env, call, status, name != nullptr ? name : "NVRTC_ERROR_UNKNOWN",
                 std::string(call) + " failed: " + describeNvrtcError(api, status));
}

namespace {

[[noreturn]] void typeError(Napi::Env env, std::size_t index, const char* name, const char* expected) {
  throw Napi::TypeError::New(env, "argument " + std::to_string(index) + " (" + name + ") must be " + expected);
}

}  // namespace

std::uint64_t argU64(const Napi::CallbackInfo& info, std::size_t index, const char* name) {
  Napi::Value value = info[index];
  if (value.IsBigInt()) {
    bool lossless = false;
    std::uint64_t out = value.As<Napi::BigInt>().Uint64Value(&lossless);
    if (!lossless) typeError(info.Env(), index, name, "a bigint in [0, 2^64)");
    return out;
  }
  if (value.IsNumber()) {
    double d = value.As<Napi::Number>().DoubleValue();
    if (d >= 0 && d <= 9007199254740991.0 && std::floor(d) == d) return static_cast<std::uint64_t>(d);
  }
  typeError(info.Env(), index, name, "a non-negative integer (bigint or number)");
}

std::int64_t argInt(const Napi::CallbackInfo& info, std::size_t index, const char* name) {
  Napi::Value value = info[index];
  if (value.IsNumber()) {
    double d = value.As<Napi::Number>().DoubleValue();
    if (std::fabs(d) <= 9007199254740991.0 && std::floor(d) == d) return static_cast<std::int64_t>(d);
  }
  typeError(info.Env(), index, name, "an integer number");
}

std::uint32_t argU32(const Napi::CallbackInfo& info, std::size_t index, const char* name) {
  std::int64_t v = argInt(info, index, name);
  if (v < 0 || v > static_cast<std::int64_t>(std::numeric_limits<std::uint32_t>::max())) {
    typeError(info.Env(), index, name, "an integer in [0, 2^32)");
  }
  return static_cast<std::uint32_t>(v);
}

std::string argString(const Napi::CallbackInfo& info, std::size_t index, const char* name) {
  Napi::Value value = info[index];
  if (!value.IsString()) typeError(info.Env(), index, name, "a string");
  return value.As<Napi::String>().Utf8Value();
}

ByteRange argView(const Napi::CallbackInfo& info, std::size_t index, const char* name) {
  Napi::Value value = info[index];
  if (value.IsTypedArray()) {
    auto view = value.As<Napi::TypedArray>();
    auto* base = static_cast<std::uint8_t*>(view.ArrayBuffer().Data());
    return {base + view.ByteOffset(), view.ByteLength()};
  }
  if (value.IsDataView()) {
    auto view = value.As<Napi::DataView>();
    auto* base = static_cast<std::uint8_t*>(view.ArrayBuffer().Data());
    return {base + view.ByteOffset(), view.ByteLength()};
  }
  if (value.IsArrayBuffer()) {
    auto buffer = value.As<Napi::ArrayBuffer>();
    return {static_cast<std::uint8_t*>(buffer.Data()), buffer.ByteLength()};
  }
  typeError(info.Env(), index, name, "a TypedArray, DataView or ArrayBuffer");
}

ByteRange argBytes(const Napi::CallbackInfo& info, std::size_t index, const char* name,
                   std::size_t byteOffset, std::size_t byteCount) {
  ByteRange whole = argView(info, index, name);
  if (byteOffset > whole.length || byteCount > whole.length - byteOffset) {
    throw Napi::RangeError::New(info.Env(), std::string(name) + ": byte range [" + std::to_string(byteOffset) +
                                                 ", " + std::to_string(byteOffset + byteCount) +
                                                 ") exceeds the view's " + std::to_string(whole.length) +
                                                 " bytes");
  }
  return {whole.data + byteOffset, byteCount};
}

Napi::BigInt toBigInt(Napi::Env env, std::uint64_t value) { return Napi::BigInt::New(env, value); }

}  // namespace tsfuser
