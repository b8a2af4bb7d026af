// Host CPU feature detection for the kernel ISA choice (see runtime.h,
// "instruction sets"). This file is compiled for generic x86-64 like the rest
// of the runtime, so the check itself runs on any CPU.
#include <cpuid.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>

#include "runtime/runtime.h"

namespace torch_tpu::runtime {
namespace {

uint64_t xgetbv0() {
  uint32_t lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

CpuFeatures detect() {
  CpuFeatures f;
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return f;
  const bool osxsave = (c >> 27) & 1;
  const uint64_t xcr0 = osxsave ? xgetbv0() : 0;
  const bool os_avx = (xcr0 & 0x6) == 0x6;                // XMM and YMM state
  const bool os_avx512 = os_avx && (xcr0 & 0xE0) == 0xE0;  // opmask, ZMM_Hi256, Hi16_ZMM
  const bool os_amx = (xcr0 & 0x60000) == 0x60000;         // XTILECFG, XTILEDATA
  f.fma = os_avx && ((c >> 12) & 1);
  f.f16c = os_avx && ((c >> 29) & 1);
  if (__get_cpuid_max(0, nullptr) < 7) return f;
  __cpuid_count(7, 0, a, b, c, d);
  f.avx2 = os_avx && ((b >> 5) & 1);
  f.bmi2 = (b >> 8) & 1;
  f.avx512f = os_avx512 && ((b >> 16) & 1);
  f.avx512dq = os_avx512 && ((b >> 17) & 1);
  f.avx512cd = os_avx512 && ((b >> 28) & 1);
  f.avx512bw = os_avx512 && ((b >> 30) & 1);
  f.avx512vl = os_avx512 && ((b >> 31) & 1);
  f.avx512_vnni = os_avx512 && ((c >> 11) & 1);
  f.amx_bf16 = os_amx && ((d >> 22) & 1);
  f.amx_tile = os_amx && ((d >> 24) & 1);
  unsigned a1 = 0, b1 = 0, c1 = 0, d1 = 0;
  __cpuid_count(7, 1, a1, b1, c1, d1);
  f.avx512_bf16 = os_avx512 && ((a1 >> 5) & 1);
  return f;
}

bool has_baseline(const CpuFeatures& f) { return f.avx2 && f.fma && f.f16c && f.bmi2; }

bool has_avx512(const CpuFeatures& f) {
  // x86-64-v4, what the AVX-512 variants are compiled for.
  return has_baseline(f) && f.avx512f && f.avx512bw && f.avx512dq && f.avx512vl && f.avx512cd;
}

struct Selection {
  CpuIsa isa = CpuIsa::kAvx2;
  std::string error;
};

Selection select() {
  Selection s;
  const CpuFeatures& f = cpu_features();
  if (!has_baseline(f)) {
    s.error = "torch_tpu's device kernels need an x86-64 CPU with AVX2, FMA, F16C and BMI2 "
              "(x86-64-v3); this CPU (or its OS) lacks one of them";
    return s;
  }
  s.isa = best_cpu_isa();
  const char* env = std::getenv("TORCH_TPU_CPU_CAPABILITY");
  if (env == nullptr || *env == '\0') return s;
  const CpuIsa all[] = {CpuIsa::kAvx2, CpuIsa::kAvx512, CpuIsa::kAvx512Bf16};
  const CpuIsa* asked = std::find_if(std::begin(all), std::end(all), [&](CpuIsa isa) {
    return std::strcmp(env, cpu_isa_name(isa)) == 0;
  });
  if (asked == std::end(all)) {
    s.error = std::string("TORCH_TPU_CPU_CAPABILITY='") + env +
              "' is not a kernel ISA: use avx2, avx512 or avx512_bf16 (or unset it)";
    return s;
  }
  if (static_cast<int>(*asked) > static_cast<int>(s.isa)) {
    s.error = std::string("TORCH_TPU_CPU_CAPABILITY=") + env + " but this CPU supports at most " +
              cpu_isa_name(s.isa) + ": unset it or name a lower ISA";
    return s;
  }
  s.isa = *asked;
  return s;
}

const Selection& selection() {
  static const Selection s = select();
  return s;
}

}  // namespace

const CpuFeatures& cpu_features() {
  static const CpuFeatures f = detect();
  return f;
}

CpuIsa best_cpu_isa() {
  const CpuFeatures& f = cpu_features();
  if (!has_avx512(f)) return CpuIsa::kAvx2;
  return f.avx512_bf16 ? CpuIsa::kAvx512Bf16 : CpuIsa::kAvx512;
}

CpuIsa cpu_isa() { return selection().isa; }

std::string cpu_isa_check() { return selection().error; }

const char* cpu_isa_name(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::kAvx2: return "avx2";
    case CpuIsa::kAvx512: return "avx512";
    case CpuIsa::kAvx512Bf16: return "avx512_bf16";
  }
  return "unknown";
}

}  // namespace torch_tpu::runtime
