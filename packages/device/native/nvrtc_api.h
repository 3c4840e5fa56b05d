// The slice of NVRTC that tsfuser uses, declared here (no nvrtc.h needed) and resolved at run
// time from $TSFUSER_NVRTC_PATH, then libnvrtc.so.13, .so.12, .so.11.2 and libnvrtc.so.
#pragma once

#include <cstddef>
#include <string>

namespace tsfuser {

using nvrtcResult = int;
using nvrtcProgram = struct _nvrtcProgram*;

constexpr nvrtcResult NVRTC_SUCCESS = 0;
constexpr nvrtcResult NVRTC_ERROR_COMPILATION = 6;

#define TSFUSER_NVRTC_FUNCTIONS(X)                                                          \
  X(nvrtcVersion, (int*, int*))                                                             \
  X(nvrtcCreateProgram,                                                                     \
    (nvrtcProgram*, const char*, const char*, int, const char* const*, const char* const*)) \
  X(nvrtcDestroyProgram, (nvrtcProgram*))                                                   \
  X(nvrtcCompileProgram, (nvrtcProgram, int, const char* const*))                           \
  X(nvrtcGetProgramLogSize, (nvrtcProgram, std::size_t*))                                   \
  X(nvrtcGetProgramLog, (nvrtcProgram, char*))                                              \
  X(nvrtcGetCUBINSize, (nvrtcProgram, std::size_t*))                                        \
  X(nvrtcGetCUBIN, (nvrtcProgram, char*))                                                   \
  X(nvrtcGetPTXSize, (nvrtcProgram, std::size_t*))                                          \
  X(nvrtcGetPTX, (nvrtcProgram, char*))

struct NvrtcApi {
#define TSFUSER_DECLARE(name, params) nvrtcResult(*name) params = nullptr;
  TSFUSER_NVRTC_FUNCTIONS(TSFUSER_DECLARE)
#undef TSFUSER_DECLARE
  const char* (*nvrtcGetErrorString)(nvrtcResult) = nullptr;

  bool loaded = false;
  std::string unavailableReason;
  /** The file the library was loaded from (dladdr), for diagnostics. */
  std::string libraryPath;
  int major = 0;
  int minor = 0;

  /** Tries the candidate libraries in order. Idempotent. */
  void load();

 private:
  bool attempted_ = false;
  void* handle_ = nullptr;
  bool tryOpen(const std::string& name, std::string& failures);
};

std::string describeNvrtcError(const NvrtcApi& api, nvrtcResult code);

}  // namespace tsfuser
