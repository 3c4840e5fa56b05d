// Bindings for availability, devices, primary contexts, streams, memory and events.
// Handles (contexts, streams, events) and device pointers cross into JS as bigint.
#include "addon_state.h"

namespace tsfuser {

namespace {

Napi::Value Probe(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  AddonState& s = state(env);
  s.cuda.load();
  s.nvrtc.load();
  Napi::Object out = Napi::Object::New(env);
  out.Set("driverLoaded", s.cuda.loaded);
  out.Set("driverReason", s.cuda.unavailableReason);
  out.Set("driverVersion", s.cuda.driverVersion);
  out.Set("deviceCount", s.cuda.deviceCount);
  out.Set("nvrtcLoaded", s.nvrtc.loaded);
  out.Set("nvrtcReason", s.nvrtc.unavailableReason);
  out.Set("nvrtcPath", s.nvrtc.libraryPath);
  out.Set("nvrtcMajor", s.nvrtc.major);
  out.Set("nvrtcMinor", s.nvrtc.minor);
  return out;
}

Napi::Value DeviceGet(const Napi::CallbackInfo& info) {
  const DriverApi& api = requireDriver(info.Env(), "cuDeviceGet");
  CUdevice device = 0;
  checkDriver(info.Env(), api.cuDeviceGet(&device, static_cast<int>(argInt(info, 0, "ordinal"))), "cuDeviceGet");
  return Napi::Number::New(info.Env(), device);
}

Napi::Value DeviceName(const Napi::CallbackInfo& info) {
  const DriverApi& api = requireDriver(info.Env(), "cuDeviceGetName");
  char name[256] = {};
  checkDriver(info.Env(), api.cuDeviceGetName(name, sizeof(name) - 1, static_cast<CUdevice>(argInt(info, 0, "device"))),
              "cuDeviceGetName");
  return Napi::String::New(info.Env(), name);
}

Napi::Value DeviceAttribute(const Napi::CallbackInfo& info) {
  const DriverApi& api = requireDriver(info.Env(), "cuDeviceGetAttribute");
  int value = 0;
  checkDriver(info.Env(),
              api.cuDeviceGetAttribute(&value, static_cast<int>(argInt(info, 1, "attribute")),
                                       static_cast<CUdevice>(argInt(info, 0, "device"))),
              "cuDeviceGetAttribute");
  return Napi::Number::New(info.Env(), value);
}

Napi::Value DeviceTotalMem(const Napi::CallbackInfo& info) {
  const DriverApi& api = requireDriver(info.Env(), "cuDeviceTotalMem");
  std::size_t bytes = 0;
  checkDriver(info.Env(), api.cuDeviceTotalMem(&bytes, static_cast<CUdevice>(argInt(info, 0, "device"))),
              "cuDeviceTotalMem");
  return Napi::Number::New(info.Env(), static_cast<double>(bytes));
}

Napi::Value PrimaryContextRetain(const Napi::CallbackInfo& info) {
  const DriverApi& api = requireDriver(info.Env(), "cuDevicePrimaryCtxRetain");
  CUcontext context = nullptr;
  checkDriver(info.Env(), api.cuDevicePrimaryCtxRetain(&context, static_cast<CUdevice>(argInt(info, 0, "device"))),
              "cuDevicePrimaryCtxRetain");
  checkDriver(info.Env(), api.cuCtxSetCurrent(context), "cuCtxSetCurrent");
  return handleToBigInt(info.Env(), context);
}

void PrimaryContextRelease(const Napi::CallbackInfo& info) {
  const DriverApi& api = requireDriver(info.Env(), "cuDevicePrimaryCtxRelease");
  checkDriver(info.Env(), api.cuDevicePrimaryCtxRelease(static_cast<CUdevice>(argInt(info, 0, "device"))),
              "cuDevicePrimaryCtxRelease");
}

void ContextSetCurrent(const Napi::CallbackInfo& info) {
  const DriverApi& api = requireDriver(info.Env(), "cuCtxSetCurrent");
  checkDriver(info.Env(), api.cuCtxSetCurrent(argHandle<CUcontext>(info, 0, "context")), "cuCtxSetCurrent");
}

void ContextSynchronize(const Napi::CallbackInfo& info) {
  const DriverApi& api = requireDriver(info.Env(), "cuCtxSynchronize");
  checkDriver(info.Env(), api.cuCtxSynchronize(), "cuCtxSynchronize");
}

Napi::Value StreamCreate(const Napi::CallbackInfo& info) {
  const DriverApi& api = requireDriver(info.Env(), "cuStreamCreate");
  CUstream stream = nullptr;
  checkDriver(info.Env(), api.cuStreamCreate(&stream, argU32(info, 0, "flags")), "cuStreamCreate");
  return handleToBigInt(info.Env(), stream);
}

void StreamDestroy(const Napi::CallbackInfo& info) {
  const DriverApi& api = requireDriver(info.Env(), "cuStreamDestroy");
  checkDriver(info.Env(), api.cuStreamDestroy(argHandle<CUstream>(info, 0, "stream")), "cuStreamDestroy");
}

void StreamSynchronize(const Napi::CallbackInfo& info) {
  const DriverApi& api = requireDriver(info.Env(), "cuStreamSynchronize");
  checkDriver(info.Env(), api.cuStreamSynchronize(argHandle<CUstream>(info, 0, "stream")), "cuStreamSynchronize");
}

// streamWaitEvent(stream, event): later work on `stream` waits for the event's recorded work.
void StreamWaitEvent(const Napi::CallbackInfo& info) {
  const DriverApi& api = requireDriver(info.Env(), "cuStreamWaitEvent");
  checkDriver(info.Env(),
              api.cuStreamWaitEvent(argHandle<CUstream>(info, 0, "stream"), argHandle<CUevent>(info, 1, "event"), 0),
              "cuStreamWaitEvent");
}

Napi::Value MemGetInfo(const Napi::CallbackInfo& info) {
  const DriverApi& api = requireDriver(info.Env(), "cuMemGetInfo");
  std::size_t freeBytes = 0;
  std::size_t totalBytes = 0;
  checkDriver(info.Env(), api.cuMemGetInfo(&freeBytes, &totalBytes), "cuMemGetInfo");
  Napi::Object out = Napi::Object::New(info.Env());
  out.Set("free", static_cast<double>(freeBytes));
  out.Set("total", static_cast<double>(totalBytes));
  return out;
}

Napi::Value MemAlloc(const Napi::CallbackInfo& info) {
  std::uint64_t bytes = argU64(info, 0, "bytes");
  const DriverApi& api = requireDriver(info.Env(), "cuMemAlloc");
  CUdeviceptr pointer = 0;
  checkDriver(info.Env(), api.cuMemAlloc(&pointer, bytes), "cuMemAlloc");
  return toBigInt(info.Env(), pointer);
}

void MemFree(const Napi::CallbackInfo& info) {
  const DriverApi& api = requireDriver(info.Env(), "cuMemFree");
  checkDriver(info.Env(), api.cuMemFree(argU64(info, 0, "pointer")), "cuMemFree");
}

// memcpyHtoD(dst, srcView, srcByteOffset, byteCount)
void MemcpyHtoD(const Napi::CallbackInfo& info) {
  std::uint64_t dst = argU64(info, 0, "destination");
  ByteRange src = argBytes(info, 1, "source", argU64(info, 2, "sourceByteOffset"), argU64(info, 3, "byteCount"));
  const DriverApi& api = requireDriver(info.Env(), "cuMemcpyHtoD");
  if (src.length == 0) return;
  checkDriver(info.Env(), api.cuMemcpyHtoD(dst, src.data, src.length), "cuMemcpyHtoD");
}

// memcpyDtoH(dstView, dstByteOffset, src, byteCount)
void MemcpyDtoH(const Napi::CallbackInfo& info) {
  ByteRange dst =
      argBytes(info, 0, "destination", argU64(info, 1, "destinationByteOffset"), argU64(info, 3, "byteCount"));
  std::uint64_t src = argU64(info, 2, "source");
  const DriverApi& api = requireDriver(info.Env(), "cuMemcpyDtoH");
  if (dst.length == 0) return;
  checkDriver(info.Env(), api.cuMemcpyDtoH(dst.data, src, dst.length), "cuMemcpyDtoH");
}

// memcpyDtoD(dst, src, byteCount)
void MemcpyDtoD(const Napi::CallbackInfo& info) {
  const DriverApi& api = requireDriver(info.Env(), "cuMemcpyDtoD");
  std::uint64_t bytes = argU64(info, 2, "byteCount");
  if (bytes == 0) return;
  checkDriver(info.Env(), api.cuMemcpyDtoD(argU64(info, 0, "destination"), argU64(info, 1, "source"), bytes),
              "cuMemcpyDtoD");
}

// memsetD8(pointer, value, byteCount)
void MemsetD8(const Napi::CallbackInfo& info) {
  const DriverApi& api = requireDriver(info.Env(), "cuMemsetD8");
  std::uint32_t value = argU32(info, 1, "value");
  if (value > 255) throw Napi::RangeError::New(info.Env(), "memsetD8: value must be a byte (0..255)");
  std::uint64_t bytes = argU64(info, 2, "byteCount");
  if (bytes == 0) return;
  checkDriver(info.Env(), api.cuMemsetD8(argU64(info, 0, "pointer"), static_cast<unsigned char>(value), bytes),
              "cuMemsetD8");
}

Napi::Value EventCreate(const Napi::CallbackInfo& info) {
  const DriverApi& api = requireDriver(info.Env(), "cuEventCreate");
  CUevent event = nullptr;
  checkDriver(info.Env(), api.cuEventCreate(&event, argU32(info, 0, "flags")), "cuEventCreate");
  return handleToBigInt(info.Env(), event);
}

void EventDestroy(const Napi::CallbackInfo& info) {
  const DriverApi& api = requireDriver(info.Env(), "cuEventDestroy");
  checkDriver(info.Env(), api.cuEventDestroy(argHandle<CUevent>(info, 0, "event")), "cuEventDestroy");
}

void EventRecord(const Napi::CallbackInfo& info) {
  const DriverApi& api = requireDriver(info.Env(), "cuEventRecord");
  checkDriver(info.Env(),
              api.cuEventRecord(argHandle<CUevent>(info, 0, "event"), argHandle<CUstream>(info, 1, "stream")),
              "cuEventRecord");
}

void EventSynchronize(const Napi::CallbackInfo& info) {
  const DriverApi& api = requireDriver(info.Env(), "cuEventSynchronize");
  checkDriver(info.Env(), api.cuEventSynchronize(argHandle<CUevent>(info, 0, "event")), "cuEventSynchronize");
}

Napi::Value EventElapsedTime(const Napi::CallbackInfo& info) {
  const DriverApi& api = requireDriver(info.Env(), "cuEventElapsedTime");
  float milliseconds = 0;
  checkDriver(info.Env(),
              api.cuEventElapsedTime(&milliseconds, argHandle<CUevent>(info, 0, "start"),
                                     argHandle<CUevent>(info, 1, "end")),
              "cuEventElapsedTime");
  return Napi::Number::New(info.Env(), milliseconds);
}

}  // namespace

void registerDeviceBindings(Napi::Env env, Napi::Object exports) {
  exports.Set("probe", Napi::Function::New(env, Probe, "probe"));
  exports.Set("deviceGet", Napi::Function::New(env, DeviceGet, "deviceGet"));
  exports.Set("deviceName", Napi::Function::New(env, DeviceName, "deviceName"));
  exports.Set("deviceAttribute", Napi::Function::New(env, DeviceAttribute, "deviceAttribute"));
  exports.Set("deviceTotalMem", Napi::Function::New(env, DeviceTotalMem, "deviceTotalMem"));
  exports.Set("primaryContextRetain", Napi::Function::New(env, PrimaryContextRetain, "primaryContextRetain"));
  exports.Set("primaryContextRelease", Napi::Function::New(env, PrimaryContextRelease, "primaryContextRelease"));
  exports.Set("contextSetCurrent", Napi::Function::New(env, ContextSetCurrent, "contextSetCurrent"));
  exports.Set("contextSynchronize", Napi::Function::New(env, ContextSynchronize, "contextSynchronize"));
  exports.Set("streamCreate", Napi::Function::New(env, StreamCreate, "streamCreate"));
  exports.Set("streamDestroy", Napi::Function::New(env, StreamDestroy, "streamDestroy"));
  exports.Set("streamWaitEvent", Napi::Function::New(env, StreamWaitEvent, "streamWaitEvent"));
  exports.Set("streamSynchronize", Napi::Function::New(env, StreamSynchronize, "streamSynchronize"));
  exports.Set("memGetInfo", Napi::Function::New(env, MemGetInfo, "memGetInfo"));
  exports.Set("memAlloc", Napi::Function::New(env, MemAlloc, "memAlloc"));
  exports.Set("memFree", Napi::Function::New(env, MemFree, "memFree"));
  exports.Set("memcpyHtoD", Napi::Function::New(env, MemcpyHtoD, "memcpyHtoD"));
  exports.Set("memcpyDtoH", Napi::Function::New(env, MemcpyDtoH, "memcpyDtoH"));
  exports.Set("memcpyDtoD", Napi::Function::New(env, MemcpyDtoD, "memcpyDtoD"));
  exports.Set("memsetD8", Napi::Function::New(env, MemsetD8, "memsetD8"));
  exports.Set("eventCreate", Napi::Function::New(env, EventCreate, "eventCreate"));
  exports.Set("eventDestroy", Napi::Function::New(env, EventDestroy, "eventDestroy"));
  exports.Set("eventRecord", Napi::Function::New(env, EventRecord, "eventRecord"));
  exports.Set("eventSynchronize", Napi::Function::New(env, EventSynchronize, "eventSynchronize"));
  exports.Set("eventElapsedTime", Napi::Function::New(env, EventElapsedTime, "eventElapsedTime"));
}

}  // namespace tsfuser
