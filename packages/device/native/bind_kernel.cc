// Bindings for NVRTC compilation, modules, functions and kernel launch.
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "addon_state.h"

namespace tsfuser {

namespace {

constexpr int kFuncAttributeMaxDynamicSharedBytes = 8;

Napi::Value NvrtcVersion(const Napi::CallbackInfo& info) {
  const NvrtcApi& api = requireNvrtc(info.Env(), "nvrtcVersion");
  Napi::Object out = Napi::Object::New(info.Env());
  out.Set("major", api.major);
  out.Set("minor", api.minor);
  out.Set("path", api.libraryPath);
  return out;
}

std::vector<std::string> stringArray(const Napi::CallbackInfo& info, std::size_t index, const char* name) {
  std::vector<std::string> out;
  if (info[index].IsUndefined() || info[index].IsNull()) return out;
  if (!info[index].IsArray()) {
    throw Napi::TypeError::New(info.Env(), std::string(name) + " must be an array of strings");
  }
  auto array = info[index].As<Napi::Array>();
  for (std::uint32_t i = 0; i < array.Length(); ++i) {
    Napi::Value item = array.Get(i);
    if (!item.IsString()) throw Napi::TypeError::New(info.Env(), std::string(name) + " must contain only strings");
    out.push_back(item.As<Napi::String>().Utf8Value());
  }
  return out;
}

std::vector<const char*> pointers(const std::vector<std::string>& strings) {
  std::vector<const char*> out;
  out.reserve(strings.size());
  for (const std::string& s : strings) out.push_back(s.c_str());
  return out;
}

/** Owns an nvrtcProgram so that every exit path destroys it. */
class ProgramGuard {
 public:
  explicit ProgramGuard(const NvrtcApi& api) : api_(api) {}
  ~ProgramGuard() {
    if (program != nullptr) api_.nvrtcDestroyProgram(&program);
  }
  ProgramGuard(const ProgramGuard&) = delete;
  ProgramGuard& operator=(const ProgramGuard&) = delete;
  nvrtcProgram program = nullptr;

 private:
  const NvrtcApi& api_;
};

// nvrtcCompile(source, name, options[], headerNames[], headerSources[], wantPtx)
//   → { status, statusText, log, cubin: Buffer | null, ptx: string | null }
// A compilation error is a normal result (status != 0, log set); only API misuse throws.
Napi::Value NvrtcCompile(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string source = argString(info, 0, "source");
  std::string name = argString(info, 1, "name");
  std::vector<std::string> options = stringArray(info, 2, "options");
  std::vector<std::string> headerNames = stringArray(info, 3, "headerNames");
  std::vector<std::string> headerSources = stringArray(info, 4, "headerSources");
  bool wantPtx = info[5].IsBoolean() && info[5].As<Napi::Boolean>().Value();
  if (headerNames.size() != headerSources.size()) {
    throw Napi::RangeError::New(env, "nvrtcCompile: headerNames and headerSources differ in length");
  }

  const NvrtcApi& api = requireNvrtc(env, "nvrtcCompileProgram");
  ProgramGuard guard(api);
  std::vector<const char*> headerNamePtrs = pointers(headerNames);
  std::vector<const char*> headerSourcePtrs = pointers(headerSources);
  checkNvrtc(env,
             api.nvrtcCreateProgram(&guard.program, source.c_str(), name.c_str(), static_cast<int>(headerNames.size()),
                                    headerSourcePtrs.data(), headerNamePtrs.data()),
             "nvrtcCreateProgram");

  std::vector<const char*> optionPtrs = pointers(options);
  nvrtcResult status =
      api.nvrtcCompileProgram(guard.program, static_cast<int>(optionPtrs.size()), optionPtrs.data());
  if (status != NVRTC_SUCCESS && status != NVRTC_ERROR_COMPILATION) {
    checkNvrtc(env, status, "nvrtcCompileProgram");
  }

  std::size_t logSize = 0;
  checkNvrtc(env, api.nvrtcGetProgramLogSize(guard.program, &logSize), "nvrtcGetProgramLogSize");
  std::string log(logSize, '\0');
  if (logSize > 0) checkNvrtc(env, api.nvrtcGetProgramLog(guard.program, log.data()), "nvrtcGetProgramLog");
  while (!log.empty() && log.back() == '\0') log.pop_back();

  Napi::Object out = Napi::Object::New(env);
  out.Set("status", status);
  out.Set("statusText", describeNvrtcError(api, status));
  out.Set("log", log);
  out.Set("cubin", env.Null());
  out.Set("ptx", env.Null());
  if (status != NVRTC_SUCCESS) return out;

  std::size_t cubinSize = 0;
  checkNvrtc(env, api.nvrtcGetCUBINSize(guard.program, &cubinSize), "nvrtcGetCUBINSize");
  if (cubinSize > 0) {
    std::vector<char> cubin(cubinSize);
    checkNvrtc(env, api.nvrtcGetCUBIN(guard.program, cubin.data()), "nvrtcGetCUBIN");
    out.Set("cubin", Napi::Buffer<std::uint8_t>::Copy(env, reinterpret_cast<std::uint8_t*>(cubin.data()), cubinSize));
  }
  if (wantPtx || cubinSize == 0) {
    std::size_t ptxSize = 0;
    checkNvrtc(env, api.nvrtcGetPTXSize(guard.program, &ptxSize), "nvrtcGetPTXSize");
    std::string ptx(ptxSize, '\0');
    if (ptxSize > 0) checkNvrtc(env, api.nvrtcGetPTX(guard.program, ptx.data()), "nvrtcGetPTX");
    while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();
    out.Set("ptx", ptx);
  }
  return out;
}

// moduleLoadData(image: cubin bytes, or PTX text NUL-terminated) → module handle
Napi::Value ModuleLoadData(const Napi::CallbackInfo& info) {
  const DriverApi& api = requireDriver(info.Env(), "cuModuleLoadData");
  ByteRange image = argView(info, 0, "image");
  if (image.length == 0) throw Napi::RangeError::New(info.Env(), "moduleLoadData: empty image");
  // cuModuleLoadData reads until the image's own end; copy so a PTX image is NUL-terminated.
  std::vector<std::uint8_t> copy(image.data, image.data + image.length);
  copy.push_back(0);
  CUmodule module = nullptr;
  checkDriver(info.Env(), api.cuModuleLoadData(&module, copy.data()), "cuModuleLoadData");
  return handleToBigInt(info.Env(), module);
}

void ModuleUnload(const Napi::CallbackInfo& info) {
  const DriverApi& api = requireDriver(info.Env(), "cuModuleUnload");
  checkDriver(info.Env(), api.cuModuleUnload(argHandle<CUmodule>(info, 0, "module")), "cuModuleUnload");
  // Function handles of the unloaded module may be reused by a later load.
  state(info.Env()).parameterLayouts.clear();
}

Napi::Value ModuleGetFunction(const Napi::CallbackInfo& info) {
  const DriverApi& api = requireDriver(info.Env(), "cuModuleGetFunction");
  std::string name = argString(info, 1, "name");
  CUfunction function = nullptr;
  CUresult status = api.cuModuleGetFunction(&function, argHandle<CUmodule>(info, 0, "module"), name.c_str());
  checkDriver(info.Env(), status, ("cuModuleGetFunction(" + name + ")").c_str());
  return handleToBigInt(info.Env(), function);
}

Napi::Value FuncGetAttribute(const Napi::CallbackInfo& info) {
  const DriverApi& api = requireDriver(info.Env(), "cuFuncGetAttribute");
  int value = 0;
  checkDriver(info.Env(),
              api.cuFuncGetAttribute(&value, static_cast<int>(argInt(info, 1, "attribute")),
                                     argHandle<CUfunction>(info, 0, "function")),
              "cuFuncGetAttribute");
  return Napi::Number::New(info.Env(), value);
}

void FuncSetAttribute(const Napi::CallbackInfo& info) {
  const DriverApi& api = requireDriver(info.Env(), "cuFuncSetAttribute");
  int attribute = static_cast<int>(argInt(info, 1, "attribute"));
  const char* call = attribute == kFuncAttributeMaxDynamicSharedBytes
                         ? "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)"
                         : "cuFuncSetAttribute";
  checkDriver(info.Env(),
              api.cuFuncSetAttribute(argHandle<CUfunction>(info, 0, "function"), attribute,
                                     static_cast<int>(argInt(info, 2, "value"))),
              call);
}

const std::vector<std::pair<std::size_t, std::size_t>>* parameterLayout(Napi::Env env, const DriverApi& api,
                                                                        CUfunction function) {
  if (api.cuFuncGetParamInfo == nullptr) return nullptr;
  auto& layouts = state(env).parameterLayouts;
  auto found = layouts.find(function);
  if (found != layouts.end()) return &found->second;
  std::vector<std::pair<std::size_t, std::size_t>> layout;
  for (std::size_t index = 0;; ++index) {
    std::size_t offset = 0;
    std::size_t size = 0;
    if (api.cuFuncGetParamInfo(function, index, &offset, &size) != CUDA_SUCCESS) break;
    layout.emplace_back(offset, size);
  }
  return &layouts.emplace(function, std::move(layout)).first->second;
}

// funcParamInfo(function) → [{offset, size}, …] or null when the driver lacks cuFuncGetParamInfo.
Napi::Value FuncParamInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const DriverApi& api = requireDriver(env, "cuFuncGetParamInfo");
  const auto* layout = parameterLayout(env, api, argHandle<CUfunction>(info, 0, "function"));
  if (layout == nullptr) return env.Null();
  Napi::Array out = Napi::Array::New(env);
  std::uint32_t index = 0;
  for (const auto& [offset, size] : *layout) {
    Napi::Object entry = Napi::Object::New(env);
    entry.Set("offset", static_cast<double>(offset));
    entry.Set("size", static_cast<double>(size));
    out.Set(index++, entry);
  }
  return out;
}

// occupancy(function, blockSize, dynamicSharedBytes) → blocks of the function one SM holds at
// once, or null when the driver lacks cuOccupancyMaxActiveBlocksPerMultiprocessor.
Napi::Value Occupancy(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const DriverApi& api = requireDriver(env, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  auto function = argHandle<CUfunction>(info, 0, "function");
  const unsigned int blockSize = argU32(info, 1, "blockSize");
  const unsigned int sharedBytes = argU32(info, 2, "dynamicSharedBytes");
  if (api.cuOccupancyMaxActiveBlocksPerMultiprocessor == nullptr) return env.Null();
  int blocks = 0;
  checkDriver(env, api.cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, function, static_cast<int>(blockSize), sharedBytes),
              "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  return Napi::Number::New(env, blocks);
}

// launchKernel(function, gx, gy, gz, bx, by, bz, sharedBytes, stream, argumentBuffer)
// The buffer holds every parameter at its ABI offset. Where the driver reports the kernel's
// parameter layout (cuFuncGetParamInfo, CUDA 12.4+), the buffer is checked against it and passed
// as kernelParams pointers into it; otherwise it goes through CU_LAUNCH_PARAM_BUFFER_POINTER/SIZE.
void LaunchKernel(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto function = argHandle<CUfunction>(info, 0, "function");
  unsigned int grid[3] = {argU32(info, 1, "gridX"), argU32(info, 2, "gridY"), argU32(info, 3, "gridZ")};
  unsigned int block[3] = {argU32(info, 4, "blockX"), argU32(info, 5, "blockY"), argU32(info, 6, "blockZ")};
  unsigned int sharedBytes = argU32(info, 7, "sharedBytes");
  auto stream = argHandle<CUstream>(info, 8, "stream");
  ByteRange arguments = argView(info, 9, "argumentBuffer");
  const DriverApi& api = requireDriver(env, "cuLaunchKernel");
  if (function == nullptr) throwCudaError(env, "cuLaunchKernel", 400, "CUDA_ERROR_INVALID_HANDLE",
                                          "cuLaunchKernel failed: null function handle");

  // 16-byte aligned private copy: the view may sit at any offset in its ArrayBuffer.
  std::vector<std::uint64_t> aligned((arguments.length + 15) / 16 * 2 + 2);
  auto* bytes = reinterpret_cast<std::uint8_t*>(aligned.data());
  std::copy(arguments.data, arguments.data + arguments.length, bytes);
  std::size_t size = arguments.length;

  CUresult status = CUDA_SUCCESS;
  if (const auto* layout = parameterLayout(env, api, function)) {
    std::size_t needed = layout->empty() ? 0 : layout->back().first + layout->back().second;
    if (size < needed || size > (needed + 7) / 8 * 8) {
      throwCudaError(env, "cuLaunchKernel", 1, "CUDA_ERROR_INVALID_VALUE",
                     "cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE (1): argument buffer has " +
                         std::to_string(size) + " bytes but the kernel's " + std::to_string(layout->size()) +
                         " parameters span " + std::to_string(needed));
    }
    std::vector<void*> parameters;
    parameters.reserve(layout->size());
    for (const auto& [offset, paramSize] : *layout) parameters.push_back(bytes + offset);
    status = api.cuLaunchKernel(function, grid[0], grid[1], grid[2], block[0], block[1], block[2], sharedBytes, stream,
                                parameters.empty() ? nullptr : parameters.data(), nullptr);
  } else {
    void* extra[] = {reinterpret_cast<void*>(CU_LAUNCH_PARAM_BUFFER_POINTER), aligned.data(),
                     reinterpret_cast<void*>(CU_LAUNCH_PARAM_BUFFER_SIZE), &size,
                     reinterpret_cast<void*>(CU_LAUNCH_PARAM_END)};
    status = api.cuLaunchKernel(function, grid[0], grid[1], grid[2], block[0], block[1], block[2], sharedBytes,
                                stream, nullptr, size > 0 ? extra : nullptr);
  }
  checkDriver(env, status, "cuLaunchKernel");
}

// prepareLaunch(function, gx, gy, gz, bx, by, bz, sharedBytes, stream, argumentBuffer) → id
// Records a launch whose configuration and argument size never change (a cached plan's kernel
// step), checked as launchKernel checks it; launchPrepared(id, argumentBuffer) then launches it
// with that buffer's current bytes. releaseLaunch(id) forgets it (the JS side does at module unload).
Napi::Value PrepareLaunch(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto launch = std::make_unique<PreparedLaunch>();
  launch->function = argHandle<CUfunction>(info, 0, "function");
  for (int d = 0; d < 3; ++d) launch->grid[d] = argU32(info, 1 + d, "grid");
  for (int d = 0; d < 3; ++d) launch->block[d] = argU32(info, 4 + d, "block");
  launch->sharedBytes = argU32(info, 7, "sharedBytes");
  launch->stream = argHandle<CUstream>(info, 8, "stream");
  ByteRange arguments = argView(info, 9, "argumentBuffer");
  const DriverApi& api = requireDriver(env, "cuLaunchKernel");
  if (launch->function == nullptr) throwCudaError(env, "cuLaunchKernel", 400, "CUDA_ERROR_INVALID_HANDLE",
                                                  "cuLaunchKernel failed: null function handle");
  launch->size = arguments.length;
  launch->storage.assign((arguments.length + 15) / 16 * 2 + 2, 0);
  auto* bytes = reinterpret_cast<std::uint8_t*>(launch->storage.data());
  if (const auto* layout = parameterLayout(env, api, launch->function)) {
    std::size_t needed = layout->empty() ? 0 : layout->back().first + layout->back().second;
    if (launch->size < needed || launch->size > (needed + 7) / 8 * 8) {
      throwCudaError(env, "cuLaunchKernel", 1, "CUDA_ERROR_INVALID_VALUE",
                     "cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE (1): argument buffer has " +
                         std::to_string(launch->size) + " bytes but the kernel's " + std::to_string(layout->size()) +
                         " parameters span " + std::to_string(needed));
    }
    launch->useParameters = true;
    launch->parameters.reserve(layout->size());
    for (const auto& [offset, paramSize] : *layout) launch->parameters.push_back(bytes + offset);
  } else {
    launch->extraSize = launch->size;
    launch->extra[0] = reinterpret_cast<void*>(CU_LAUNCH_PARAM_BUFFER_POINTER);
    launch->extra[1] = launch->storage.data();
    launch->extra[2] = reinterpret_cast<void*>(CU_LAUNCH_PARAM_BUFFER_SIZE);
    launch->extra[3] = &launch->extraSize;
    launch->extra[4] = reinterpret_cast<void*>(CU_LAUNCH_PARAM_END);
  }
  auto& launches = state(env).preparedLaunches;
  std::size_t id = 0;
  while (id < launches.size() && launches[id] != nullptr) ++id;
  if (id == launches.size()) launches.push_back(nullptr);
  launches[id] = std::move(launch);
  return Napi::Number::New(env, static_cast<double>(id));
}

// launchPrepared(id, argumentBuffer): the recorded launch with the buffer's bytes (its size
// must be the recorded one). Two arguments read, one memcpy, no allocation.
void LaunchPrepared(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto& launches = state(env).preparedLaunches;
  const std::uint32_t id = argU32(info, 0, "launch");
  if (id >= launches.size() || launches[id] == nullptr) {
    throw Napi::RangeError::New(env, "launchPrepared: no prepared launch " + std::to_string(id));
  }
  PreparedLaunch& launch = *launches[id];
  napi_typedarray_type type;
  std::size_t length = 0;
  void* data = nullptr;
  napi_value buffer = nullptr;
  std::size_t byteOffset = 0;
  if (napi_get_typedarray_info(env, info[1], &type, &length, &data, &buffer, &byteOffset) != napi_ok || type != napi_uint8_array) {
    throw Napi::TypeError::New(env, "argumentBuffer must be a Uint8Array");
  }
  if (length != launch.size) {
    throw Napi::RangeError::New(env, "launchPrepared: an argument buffer of " + std::to_string(length) + " bytes for a launch prepared with " +
                                         std::to_string(launch.size));
  }
  if (length > 0) std::memcpy(launch.storage.data(), data, length);
  const DriverApi& api = requireDriver(env, "cuLaunchKernel");
  CUresult status = api.cuLaunchKernel(launch.function, launch.grid[0], launch.grid[1], launch.grid[2], launch.block[0], launch.block[1],
                                       launch.block[2], launch.sharedBytes, launch.stream,
                                       launch.useParameters && !launch.parameters.empty() ? launch.parameters.data() : nullptr,
                                       launch.useParameters || launch.size == 0 ? nullptr : launch.extra);
  checkDriver(env, status, "cuLaunchKernel");
}

void ReleaseLaunch(const Napi::CallbackInfo& info) {
  auto& launches = state(info.Env()).preparedLaunches;
  const std::uint32_t id = argU32(info, 0, "launch");
  if (id < launches.size()) launches[id].reset();
}

}  // namespace

void registerKernelBindings(Napi::Env env, Napi::Object exports) {
  exports.Set("nvrtcVersion", Napi::Function::New(env, NvrtcVersion, "nvrtcVersion"));
  exports.Set("nvrtcCompile", Napi::Function::New(env, NvrtcCompile, "nvrtcCompile"));
  exports.Set("moduleLoadData", Napi::Function::New(env, ModuleLoadData, "moduleLoadData"));
  exports.Set("moduleUnload", Napi::Function::New(env, ModuleUnload, "moduleUnload"));
  exports.Set("moduleGetFunction", Napi::Function::New(env, ModuleGetFunction, "moduleGetFunction"));
  exports.Set("funcGetAttribute", Napi::Function::New(env, FuncGetAttribute, "funcGetAttribute"));
  exports.Set("funcSetAttribute", Napi::Function::New(env, FuncSetAttribute, "funcSetAttribute"));
  exports.Set("funcParamInfo", Napi::Function::New(env, FuncParamInfo, "funcParamInfo"));
  exports.Set("launchKernel", Napi::Function::New(env, LaunchKernel, "launchKernel"));
  exports.Set("occupancy", Napi::Function::New(env, Occupancy, "occupancy"));
  exports.Set("prepareLaunch", Napi::Function::New(env, PrepareLaunch, "prepareLaunch"));
  exports.Set("launchPrepared", Napi::Function::New(env, LaunchPrepared, "launchPrepared"));
  exports.Set("releaseLaunch", Napi::Function::New(env, ReleaseLaunch, "releaseLaunch"));
}

}  // namespace tsfuser
