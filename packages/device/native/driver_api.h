// The slice of the CUDA driver API that tsfuser uses, declared here so that no CUDA header is
// needed to build. Types and enum values mirror cuda.h (CUDA 12/13); entry points are resolved
// with dlopen/dlsym from libcuda.so.1 at run time, using the versioned symbol names that
// cuda.h's macros select (cuMemAlloc → cuMemAlloc_v2, …).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace tsfuser {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;
using CUevent = struct CUevent_st*;
using CUgraph = struct CUgraph_st*;
using CUgraphExec = struct CUgraphExec_st*;

// CUstreamCaptureMode (cuda.h): GLOBAL 0, THREAD_LOCAL 1, RELAXED 2.
using CUstreamCaptureMode = int;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr std::uintptr_t CU_LAUNCH_PARAM_END = 0x00;
constexpr std::uintptr_t CU_LAUNCH_PARAM_BUFFER_POINTER = 0x01;
constexpr std::uintptr_t CU_LAUNCH_PARAM_BUFFER_SIZE = 0x02;

// X(return-less name, symbol, parameter list)
#define TSFUSER_DRIVER_FUNCTIONS(X)                                                              \
  X(cuGetErrorString, "cuGetErrorString", (CUresult, const char**))                              \
  X(cuGetErrorName, "cuGetErrorName", (CUresult, const char**))                                  \
  X(cuInit, "cuInit", (unsigned int))                                                            \
  X(cuDriverGetVersion, "cuDriverGetVersion", (int*))                                            \
  X(cuDeviceGetCount, "cuDeviceGetCount", (int*))                                                \
  X(cuDeviceGet, "cuDeviceGet", (CUdevice*, int))                                                \
  X(cuDeviceGetName, "cuDeviceGetName", (char*, int, CUdevice))                                  \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute", (int*, int, CUdevice))                         \
  X(cuDeviceTotalMem, "cuDeviceTotalMem_v2", (std::size_t*, CUdevice))                           \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", (CUcontext*, CUdevice))                \
  X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", (CUdevice))                       \
  X(cuCtxSetCurrent, "cuCtxSetCurrent", (CUcontext))                                             \
  X(cuCtxSynchronize, "cuCtxSynchronize", ())                                                    \
  X(cuStreamCreate, "cuStreamCreate", (CUstream*, unsigned int))                                 \
  X(cuStreamDestroy, "cuStreamDestroy_v2", (CUstream))                                           \
  X(cuStreamSynchronize, "cuStreamSynchronize", (CUstream))                                      \
  X(cuStreamWaitEvent, "cuStreamWaitEvent", (CUstream, CUevent, unsigned int))                   \
  X(cuMemGetInfo, "cuMemGetInfo_v2", (std::size_t*, std::size_t*))                               \
  X(cuMemAlloc, "cuMemAlloc_v2", (CUdeviceptr*, std::size_t))                                    \
  X(cuMemFree, "cuMemFree_v2", (CUdeviceptr))                                                    \
  X(cuMemcpyHtoD, "cuMemcpyHtoD_v2", (CUdeviceptr, const void*, std::size_t))                    \
  X(cuMemcpyDtoH, "cuMemcpyDtoH_v2", (void*, CUdeviceptr, std::size_t))                          \
  X(cuMemcpyDtoD, "cuMemcpyDtoD_v2", (CUdeviceptr, CUdeviceptr, std::size_t))                    \
  X(cuMemsetD8, "cuMemsetD8_v2", (CUdeviceptr, unsigned char, std::size_t))                      \
  X(cuModuleLoadData, "cuModuleLoadData", (CUmodule*, const void*))                              \
  X(cuModuleUnload, "cuModuleUnload", (CUmodule))                                                \
  X(cuModuleGetFunction, "cuModuleGetFunction", (CUfunction*, CUmodule, const char*))            \
  X(cuFuncGetAttribute, "cuFuncGetAttribute", (int*, int, CUfunction))                           \
  X(cuFuncSetAttribute, "cuFuncSetAttribute", (CUfunction, int, int))                            \
  X(cuLaunchKernel, "cuLaunchKernel",                                                            \
    (CUfunction, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int,           \
     unsigned int, unsigned int, CUstream, void**, void**))                                      \
  X(cuEventCreate, "cuEventCreate", (CUevent*, unsigned int))                                    \
  X(cuEventDestroy, "cuEventDestroy_v2", (CUevent))                                              \
  X(cuEventRecord, "cuEventRecord", (CUevent, CUstream))                                         \
  X(cuEventSynchronize, "cuEventSynchronize", (CUevent))

/** Function pointers into libcuda.so.1; all null until load() succeeds. */
struct DriverApi {
#define TSFUSER_DECLARE(name, symbol, params) CUresult(*name) params = nullptr;
  TSFUSER_DRIVER_FUNCTIONS(TSFUSER_DECLARE)
#undef TSFUSER_DECLARE
  // cuEventElapsedTime_v2 (CUDA 12.8+) when present, else the original symbol.
  CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent) = nullptr;
  // Optional (CUDA 12.4+): offset and size of a kernel parameter; null when absent.
  CUresult (*cuFuncGetParamInfo)(CUfunction, std::size_t, std::size_t*, std::size_t*) = nullptr;
  // Optional: how many blocks of a function fit one SM at once (grid-synchronizing kernels
  // must all be resident); null when absent.
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int*, CUfunction, int, std::size_t) = nullptr;
  // Optional: CUDA graphs by stream capture (bind_graph.cc); null when the driver lacks them.
  // cuda.h maps cuStreamBeginCapture to the _v2 symbol (the one that takes a capture mode) and
  // cuGraphInstantiate to cuGraphInstantiateWithFlags (CUDA 12+).
  CUresult (*cuStreamBeginCapture)(CUstream, CUstreamCaptureMode) = nullptr;
  CUresult (*cuStreamEndCapture)(CUstream, CUgraph*) = nullptr;
  CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec*, CUgraph, unsigned long long) = nullptr;
  CUresult (*cuGraphLaunch)(CUgraphExec, CUstream) = nullptr;
  CUresult (*cuGraphExecDestroy)(CUgraphExec) = nullptr;
  CUresult (*cuGraphDestroy)(CUgraph) = nullptr;

  bool loaded = false;
  /** Why the driver cannot be used; empty when it can. */
  std::string unavailableReason;
  int deviceCount = 0;
  int driverVersion = 0;

  /** Opens libcuda.so.1, resolves every symbol and calls cuInit(0). Idempotent. */
  void load();

 private:
  bool attempted_ = false;
  void* handle_ = nullptr;
};

/** "CUDA_ERROR_X (n): text", using cuGetErrorName/String when the driver is loaded. */
std::string describeDriverError(const DriverApi& api, CUresult code);

}  // namespace tsfuser
