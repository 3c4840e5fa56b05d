// Bindings for CUDA graphs made by stream capture: begin/end a capture on a stream, instantiate
// the captured graph, launch the executable graph on a stream, destroy both. The entry points
// are optional in DriverApi (resolved when libcuda has them); each binding names the missing
// symbol in a CudaError instead of crashing. Handles cross into JS as bigint.
// Invariant: a binding either returns a live handle or throws; nothing is left half-made (a
// failed instantiation destroys nothing the caller still owns: the graph stays the caller's).
#include "addon_state.h"

namespace tsfuser {

namespace {

template <typename Fn>
const DriverApi& requireGraphEntry(Napi::Env env, const char* call, Fn DriverApi::*entry) {
  const DriverApi& api = requireDriver(env, call);
  if (api.*entry == nullptr) {
    throwCudaError(env, call, -1, "CUDA_ERROR_NOT_SUPPORTED",
                   std::string("libcuda.so.1 lacks ") + call + " (CUDA graphs need a driver of CUDA 11.4 or later)");
  }
  return api;
}

// streamBeginCapture(stream, mode): later work enqueued on `stream` is recorded, not run.
void StreamBeginCapture(const Napi::CallbackInfo& info) {
  const DriverApi& api = requireGraphEntry(info.Env(), "cuStreamBeginCapture", &DriverApi::cuStreamBeginCapture);
  std::uint32_t mode = argU32(info, 1, "mode");
  if (mode > 2) throw Napi::RangeError::New(info.Env(), "streamBeginCapture: mode must be 0 (global), 1 (thread-local) or 2 (relaxed)");
  checkDriver(info.Env(), api.cuStreamBeginCapture(argHandle<CUstream>(info, 0, "stream"), static_cast<CUstreamCaptureMode>(mode)),
              "cuStreamBeginCapture");
}

// streamEndCapture(stream) -> graph handle.
Napi::Value StreamEndCapture(const Napi::CallbackInfo& info) {
  const DriverApi& api = requireGraphEntry(info.Env(), "cuStreamEndCapture", &DriverApi::cuStreamEndCapture);
  CUgraph graph = nullptr;
  checkDriver(info.Env(), api.cuStreamEndCapture(argHandle<CUstream>(info, 0, "stream"), &graph), "cuStreamEndCapture");
  return handleToBigInt(info.Env(), graph);
}

// graphInstantiate(graph) -> executable graph handle.
Napi::Value GraphInstantiate(const Napi::CallbackInfo& info) {
  const DriverApi& api = requireGraphEntry(info.Env(), "cuGraphInstantiateWithFlags", &DriverApi::cuGraphInstantiateWithFlags);
  CUgraphExec exec = nullptr;
  checkDriver(info.Env(), api.cuGraphInstantiateWithFlags(&exec, argHandle<CUgraph>(info, 0, "graph"), 0), "cuGraphInstantiateWithFlags");
  return handleToBigInt(info.Env(), exec);
}

// graphLaunch(exec, stream): enqueues the whole graph on `stream`.
void GraphLaunch(const Napi::CallbackInfo& info) {
  const DriverApi& api = requireGraphEntry(info.Env(), "cuGraphLaunch", &DriverApi::cuGraphLaunch);
  checkDriver(info.Env(), api.cuGraphLaunch(argHandle<CUgraphExec>(info, 0, "exec"), argHandle<CUstream>(info, 1, "stream")), "cuGraphLaunch");
}

void GraphExecDestroy(const Napi::CallbackInfo& info) {
  const DriverApi& api = requireGraphEntry(info.Env(), "cuGraphExecDestroy", &DriverApi::cuGraphExecDestroy);
  checkDriver(info.Env(), api.cuGraphExecDestroy(argHandle<CUgraphExec>(info, 0, "exec")), "cuGraphExecDestroy");
}

void GraphDestroy(const Napi::CallbackInfo& info) {
  const DriverApi& api = requireGraphEntry(info.Env(), "cuGraphDestroy", &DriverApi::cuGraphDestroy);
  checkDriver(info.Env(), api.cuGraphDestroy(argHandle<CUgraph>(info, 0, "graph")), "cuGraphDestroy");
}

}  // namespace

void registerGraphBindings(Napi::Env env, Napi::Object exports) {
  exports.Set("streamBeginCapture", Napi::Function::New(env, StreamBeginCapture, "streamBeginCapture"));
  exports.Set("streamEndCapture", Napi::Function::New(env, StreamEndCapture, "streamEndCapture"));
  exports.Set("graphInstantiate", Napi::Function::New(env, GraphInstantiate, "graphInstantiate"));
  exports.Set("graphLaunch", Napi::Function::New(env, GraphLaunch, "graphLaunch"));
  exports.Set("graphExecDestroy", Napi::Function::New(env, GraphExecDestroy, "graphExecDestroy"));
  exports.Set("graphDestroy", Napi::Function::New(env, GraphDestroy, "graphDestroy"));
}

}  // namespace tsfuser
