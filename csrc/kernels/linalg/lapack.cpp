// Run-time loading of the device's LAPACK (see lapack.h for why dlopen).
#include "kernels/linalg/lapack.h"

#include <dlfcn.h>

#include <array>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace torch_tpu::kernels::lapack {
namespace {

struct Library {
  std::mutex mu;
  std::string path, prefix;
  void* handle = nullptr;
  std::unordered_map<std::string, void*> symbols;
};

Library& library() {
  static Library* lib = new Library();  // leaked: device threads may use it at exit
  return *lib;
}

char type_letter(DType t) {
  switch (t) {
    case DType::kFloat32: return 's';
    case DType::kFloat64: return 'd';
    case DType::kComplex64: return 'c';
    case DType::kComplex128: return 'z';
    default: throw std::runtime_error(std::string("LAPACK has no routines for ") + dtype_name(t));
  }
}

void open_locked(Library& lib) {
  if (lib.handle) return;
  if (lib.path.empty()) throw std::runtime_error("the device LAPACK library was not set (torch_tpu sets it at import)");
  lib.handle = dlopen(lib.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib.handle) throw std::runtime_error("cannot open the device LAPACK library " + lib.path + ": " + dlerror());
  // The device spreads batches over its own cores; the library's own thread
  // pool would oversubscribe them.
  using SetThreads = void (*)(int);
  if (auto set = reinterpret_cast<SetThreads>(dlsym(lib.handle, (lib.prefix + "openblas_set_num_threads").c_str())))
    set(1);
}

}  // namespace

void set_library(const std::string& path, const std::string& prefix) {
  Library& lib = library();
  std::lock_guard<std::mutex> guard(lib.mu);
  if (lib.handle && path != lib.path) throw std::runtime_error("the device LAPACK library is already open: " + lib.path);
  lib.path = path;
  lib.prefix = prefix;
}

std::string library_path() {
  Library& lib = library();
  std::lock_guard<std::mutex> guard(lib.mu);
  return lib.path;
}

void* entry(DType dtype, const char* name) {
  const std::string symbol = std::string(1, type_letter(dtype)) + name + "_";
  Library& lib = library();
  std::lock_guard<std::mutex> guard(lib.mu);
  auto it = lib.symbols.find(symbol);
  if (it != lib.symbols.end()) return it->second;
  open_locked(lib);
  void* fn = dlsym(lib.handle, (lib.prefix + symbol).c_str());
  if (!fn) throw std::runtime_error("the device LAPACK library has no " + lib.prefix + symbol);
  lib.symbols.emplace(symbol, fn);
  return fn;
}

}  // namespace torch_tpu::kernels::lapack
