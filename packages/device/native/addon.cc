// Module entry of tsfuser_runtime.node. Loading the addon never touches CUDA: libcuda, NVRTC
// and cuBLASLt are opened on first use (probe or any call), so the addon loads on any machine.
#include "addon_state.h"

namespace tsfuser {

namespace {

// setErrorClass(CudaError): constructor called as new CudaError(message, call, code, errorName).
void SetErrorClass(const Napi::CallbackInfo& info) {
  if (!info[0].IsFunction()) throw Napi::TypeError::New(info.Env(), "setErrorClass expects a constructor");
  state(info.Env()).cudaErrorClass = Napi::Persistent(info[0].As<Napi::Function>());
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  env.SetInstanceData<AddonState>(new AddonState());
  exports.Set("setErrorClass", Napi::Function::New(env, SetErrorClass, "setErrorClass"));
  // Bumped whenever the exported functions change (2: streamWaitEvent, 3: cuBLASLt, 4: CUDA graphs); addon.ts checks it.
  exports.Set("abiVersion", Napi::Number::New(env, 4));
  registerDeviceBindings(env, exports);
  registerKernelBindings(env, exports);
  registerGemmBindings(env, exports);
  registerGraphBindings(env, exports);
  return exports;
}

}  // namespace

}  // namespace tsfuser

static Napi::Object InitTsfuserRuntime(Napi::Env env, Napi::Object exports) { return tsfuser::Init(env, exports); }

NODE_API_MODULE(tsfuser_runtime, InitTsfuserRuntime)
