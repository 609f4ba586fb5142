// OpenBLAS through dlopen (host_blas.hpp): the library CMake found
// (TESSEL_OPENBLAS_LIBRARY), else the loader's libopenblas.so.0.
#include "host_blas.hpp"

#include <dlfcn.h>

#include <mutex>
#include <stdexcept>
#include <string>

#include "bench.hpp"
#include "sim/matmul_kernel.hpp"

namespace tessel::bench::host_blas {

namespace {

// cblas.h's values for the arguments used here.
constexpr int kRowMajor = 101, kNoTrans = 111;

using SgemmFn = void (*)(int order, int trans_a, int trans_b, int m, int n, int k, float alpha, const float* a, int lda,
                         const float* b, int ldb, float beta, float* c, int ldc);
using SetThreadsFn = void (*)(int threads);
using TextFn = const char* (*)();

struct Library {
  SgemmFn sgemm = nullptr;
  SetThreadsFn set_threads = nullptr;
  TextFn config = nullptr, corename = nullptr; // optional: OpenBLAS's own
};

void* open_library(std::string& tried) {
  for (const char* path : {TESSEL_OPENBLAS_LIBRARY, "libopenblas.so.0"}) {
    if (void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL)) return handle;
    const char* why = dlerror();
    tried += std::string(tried.empty() ? "" : "; ") + path + ": " + (why ? why : "not found");
  }
  return nullptr;
}

const Library& library() {
  static Library lib;
  static std::once_flag once;
  std::call_once(once, [] {
    std::string tried;
    void* handle = open_library(tried);
    if (!handle)
      throw std::runtime_error("the BLAS reference of this benchmark needs OpenBLAS (Debian's libopenblas-dev): " +
                               tried);
    Library l;
    l.sgemm = reinterpret_cast<SgemmFn>(dlsym(handle, "cblas_sgemm"));
    l.set_threads = reinterpret_cast<SetThreadsFn>(dlsym(handle, "openblas_set_num_threads"));
    l.config = reinterpret_cast<TextFn>(dlsym(handle, "openblas_get_config"));
    l.corename = reinterpret_cast<TextFn>(dlsym(handle, "openblas_get_corename"));
    if (!l.sgemm || !l.set_threads)
      throw std::runtime_error("the loaded OpenBLAS lacks cblas_sgemm or openblas_set_num_threads");
    lib = l; // kept open for the process
  });
  return lib;
}

} // namespace

void sgemm(uint32_t n, const float* a, const float* b, float* c) {
  const int m = int(n);
  library().sgemm(kRowMajor, kNoTrans, kNoTrans, m, m, m, 1.0f, a, m, b, m, 0.0f, c, m);
}

void set_threads(int threads) { library().set_threads(threads); }

void note_reference() {
  const Library& l = library();
  const char* config = l.config ? l.config() : nullptr;
  const char* core = l.corename ? l.corename() : nullptr;
  note(std::string("sgemm: ") + (config ? config : "OpenBLAS, build unknown") + "; its " + (core ? core : "unknown") +
       " kernel; the simulator's matmul kernel: " + sim::matmul_kernel_name(sim::matmul_host_kernel()));
}

} // namespace tessel::bench::host_blas
