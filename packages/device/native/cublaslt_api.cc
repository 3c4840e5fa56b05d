// Run-time loading of cuBLASLt (see cublaslt_api.h). Candidates, first that resolves every
// symbol wins: $TSFUSER_CUBLASLT_PATH; libcublasLt.so.13 / .so.12 on the loader path; the CUDA
// toolkit's lib64 and targets/x86_64-linux/lib under /usr/local/cuda and /usr/local/cuda-*;
// the nvidia-cublas Python wheel (site-packages/nvidia/cublas/lib, nvidia/cu13/lib) under
// $VIRTUAL_ENV, $CONDA_PREFIX, /usr/local/lib and /usr/lib python3.* and ~/.local. The reason
// string lists every candidate tried and why it failed, so a missing library is one readable
// message, never a crash.
#include "cublaslt_api.h"

#include <dlfcn.h>
#include <glob.h>

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

void appendGlob(const std::string& pattern, std::vector<std::string>& out) {
  glob_t matches{};
  if (glob(pattern.c_str(), 0, nullptr, &matches) == 0) {
    for (std::size_t i = 0; i < matches.gl_pathc; ++i) out.emplace_back(matches.gl_pathv[i]);
  }
  globfree(&matches);
}

std::vector<std::string> candidateLibraries() {
  std::vector<std::string> candidates;
  if (const char* explicitPath = std::getenv("TSFUSER_CUBLASLT_PATH");
      explicitPath != nullptr && *explicitPath != '\0') {
    candidates.emplace_back(explicitPath);
  }
  const char* sonames[] = {"libcublasLt.so.13", "libcublasLt.so.12"};
  for (const char* soname : sonames) candidates.emplace_back(soname);
  const char* toolkitDirs[] = {"/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib",
                               "/usr/local/cuda-*/lib64", "/usr/local/cuda-*/targets/x86_64-linux/lib"};
  for (const char* dir : toolkitDirs) {
    for (const char* soname : sonames) appendGlob(std::string(dir) + "/" + soname, candidates);
  }
  std::vector<std::string> pythonRoots;
  for (const char* variable : {"VIRTUAL_ENV", "CONDA_PREFIX"}) {
    if (const char* root = std::getenv(variable); root != nullptr && *root != '\0') pythonRoots.emplace_back(root);
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    pythonRoots.emplace_back(std::string(home) + "/.local");
  }
  pythonRoots.emplace_back("/usr/local");
  pythonRoots.emplace_back("/usr");
  for (const std::string& root : pythonRoots) {
    for (const char* packages : {"site-packages", "dist-packages"}) {
      for (const char* wheelDir : {"nvidia/cublas/lib", "nvidia/cu13/lib"}) {
        for (const char* soname : sonames) {
          appendGlob(root + "/lib/python3*/" + packages + "/" + wheelDir + "/" + soname, candidates);
        }
      }
    }
  }
  return candidates;
}

}  // namespace

bool CublasLtApi::tryOpen(const std::string& name, std::string& failures) {
  void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    failures += "\n  " + name + ": " + (why != nullptr ? why : "dlopen failed");
    return false;
  }
  bool complete = resolve(handle, "cublasLtGetStatusName", cublasLtGetStatusName);
  complete = resolve(handle, "cublasLtGetStatusString", cublasLtGetStatusString) && complete;
  complete = resolve(handle, "cublasLtGetVersion", cublasLtGetVersion) && complete;
#define TSFUSER_RESOLVE(fn, params) complete = resolve(handle, #fn, fn) && complete;
  TSFUSER_CUBLASLT_FUNCTIONS(TSFUSER_RESOLVE)
#undef TSFUSER_RESOLVE
  if (!complete) {
    failures += "\n  " + name + ": missing cuBLASLt symbols (not a libcublasLt of CUDA 12 or later)";
    dlclose(handle);
    return false;
  }
  handle_ = handle;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(cublasLtCreate), &info) != 0 && info.dli_fname != nullptr) {
    libraryPath = info.dli_fname;
  } else {
    libraryPath = name;
  }
  return true;
}

void CublasLtApi::load() {
  if (attempted_) return;
  attempted_ = true;
  std::string failures;
  for (const std::string& candidate : candidateLibraries()) {
    if (tryOpen(candidate, failures)) {
      version = cublasLtGetVersion();
      loaded = true;
      return;
    }
  }
  unavailableReason =
      "libcublasLt not found (set TSFUSER_CUBLASLT_PATH to libcublasLt.so, or install the CUDA toolkit's "
      "cuBLAS or the nvidia-cublas wheel); tried:" +
      failures;
}

std::string describeCublasStatus(const CublasLtApi& api, cublasStatus_t status) {
  const char* name = api.cublasLtGetStatusName != nullptr ? api.cublasLtGetStatusName(status) : nullptr;
  const char* text = api.cublasLtGetStatusString != nullptr ? api.cublasLtGetStatusString(status) : nullptr;
  std::string out = std::string(name != nullptr ? name : "CUBLAS_STATUS_UNKNOWN") + " (" + std::to_string(status) + ")";
  if (text != nullptr && *text != '\0') out += ": " + std::string(text);
  return out;
}

}  // namespace tsfuser
