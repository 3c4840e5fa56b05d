// Run-time loading of libcuda.so.1 (see driver_api.h).
#include "driver_api.h"

#include <dlfcn.h>

namespace tsfuser {

namespace {

template <typename Fn>
bool resolve(void* handle, const char* symbol, Fn& out) {
  void* address = dlsym(handle, symbol);
  out = reinterpret_cast<Fn>(address);
  return address != nullptr;
}

}  // namespace

void DriverApi::load() {
  if (attempted_) return;
  attempted_ = true;

  handle_ = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    const char* why = dlerror();
    unavailableReason = std::string("libcuda.so.1 not found: ") + (why != nullptr ? why : "dlopen failed");
    return;
  }

#define TSFUSER_RESOLVE(name, symbol, params)                                    \
  if (!resolve(handle_, symbol, name)) {                                         \
    unavailableReason = std::string("libcuda.so.1 lacks the symbol ") + symbol;  \
    return;                                                                      \
  }
  TSFUSER_DRIVER_FUNCTIONS(TSFUSER_RESOLVE)
#undef TSFUSER_RESOLVE
  if (!resolve(handle_, "cuEventElapsedTime_v2", cuEventElapsedTime) &&
      !resolve(handle_, "cuEventElapsedTime", cuEventElapsedTime)) {
    unavailableReason = "libcuda.so.1 lacks the symbol cuEventElapsedTime";
    return;
  }

  resolve(handle_, "cuFuncGetParamInfo", cuFuncGetParamInfo);
  resolve(handle_, "cuOccupancyMaxActiveBlocksPerMultiprocessor", cuOccupancyMaxActiveBlocksPerMultiprocessor);
  resolve(handle_, "cuStreamBeginCapture_v2", cuStreamBeginCapture);
  resolve(handle_, "cuStreamEndCapture", cuStreamEndCapture);
  resolve(handle_, "cuGraphInstantiateWithFlags", cuGraphInstantiateWithFlags);
  resolve(handle_, "cuGraphLaunch", cuGraphLaunch);
  resolve(handle_, "cuGraphExecDestroy", cuGraphExecDestroy);
  resolve(handle_, "cuGraphDestroy", cuGraphDestroy);

  CUresult status = cuInit(0);
  if (status != CUDA_SUCCESS) {
    unavailableReason = "cuInit failed: " + describeDriverError(*this, status);
    return;
  }
  cuDriverGetVersion(&driverVersion);
  status = cuDeviceGetCount(&deviceCount);
  if (status != CUDA_SUCCESS) {
    unavailableReason = "cuDeviceGetCount failed: " + describeDriverError(*this, status);
    return;
  }
  if (deviceCount == 0) {
    unavailableReason = "libcuda.so.1 loaded but no CUDA device is visible";
    return;
  }
  loaded = true;
}

std::string describeDriverError(const DriverApi& api, CUresult code) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (api.cuGetErrorName != nullptr) api.cuGetErrorName(code, &name);
  if (api.cuGetErrorString != nullptr) api.cuGetErrorString(code, &text);
  std::string out = name != nullptr ? name : "CUDA_ERROR_UNKNOWN_CODE";
  out += " (" + std::to_string(code) + "): ";
  out += text != nullptr ? text : "unrecognized error code";
  return out;
}

}  // namespace tsfuser
