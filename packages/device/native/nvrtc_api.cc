// Run-time loading of NVRTC (see nvrtc_api.h).
#include "nvrtc_api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <vector>

namespace tsfuser {

namespace {

template <typename Fn>
bool resolve(void* handle, const char* symbol, Fn& out) {
  void* address = dlsym(handle, symbol);
  out = reinterpret_cast<Fn>(address);
  return address != nullptr;
}

}  // namespace

bool NvrtcApi::tryOpen(const std::string& name, std::string& failures) {
  void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    failures += "\n  " + name + ": " + (why != nullptr ? why : "dlopen failed");
    return false;
  }
  bool complete = resolve(handle, "nvrtcGetErrorString", nvrtcGetErrorString);
#define TSFUSER_RESOLVE(fn, params) complete = resolve(handle, #fn, fn) && complete;
  TSFUSER_NVRTC_FUNCTIONS(TSFUSER_RESOLVE)
#undef TSFUSER_RESOLVE
  if (!complete) {
    failures += "\n  " + name + ": missing NVRTC symbols (nvrtcGetCUBIN needs CUDA 11.1+)";
    dlclose(handle);
    return false;
  }
  handle_ = handle;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(nvrtcVersion), &info) != 0 && info.dli_fname != nullptr) {
    libraryPath = info.dli_fname;
  } else {
    libraryPath = name;
  }
  return true;
}

void NvrtcApi::load() {
  if (attempted_) return;
  attempted_ = true;

  std::vector<std::string> candidates;
  if (const char* explicitPath = std::getenv("TSFUSER_NVRTC_PATH");
      explicitPath != nullptr && *explicitPath != '\0') {
    candidates.emplace_back(explicitPath);
  }
  for (const char* soname : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so"}) {
    candidates.emplace_back(soname);
  }

  std::string failures;
  for (const std::string& candidate : candidates) {
    if (tryOpen(candidate, failures)) {
      nvrtcVersion(&major, &minor);
      loaded = true;
      return;
    }
  }
  unavailableReason = "NVRTC not found (set TSFUSER_NVRTC_PATH to libnvrtc.so):" + failures;
}

std::string describeNvrtcError(const NvrtcApi& api, nvrtcResult code) {
  const char* text = api.nvrtcGetErrorString != nullptr ? api.nvrtcGetErrorString(code) : nullptr;
  return std::string(text != nullptr ? text : "NVRTC_ERROR_UNKNOWN") + " (" + std::to_string(code) + ")";
}

}  // namespace tsfuser
