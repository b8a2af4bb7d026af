// Kernel instruction-set variants. Private to the kernel library.
//
// Every kernel file is compiled for the baseline ISA (x86-64-v3: AVX2, FMA,
// F16C). The files that gain from wider vectors are compiled again for
// avx512 (CMake's TPU_KERNEL_AVX512_SOURCES) and GEMM also for avx512_bf16
// (TPU_KERNEL_AVX512_BF16_SOURCES), each time with TORCH_TPU_ISA naming the
// variant. Such a file
// and the private headers it includes put their code in
//   namespace torch_tpu::kernels { inline namespace TORCH_TPU_ISA { ... } }
// so the variants never share a symbol (the linker would otherwise keep one
// copy of an inline function, possibly with instructions the CPU lacks), and
// exports one entry per variant, name_<isa>, outside that namespace. A
// baseline-only dispatch file then picks the entry for runtime::cpu_isa(),
// like ATen's DispatchStub picks a CPU_CAPABILITY kernel.
//
// tests/test_isa_variants.py checks the build: the baseline objects hold no
// AVX-512 instruction, and in the extension no shared function outside an
// avx512 variant does.
#pragma once

#include "runtime/runtime.h"

#ifndef TORCH_TPU_ISA
#define TORCH_TPU_ISA avx2
#endif

#define TORCH_TPU_ISA_CAT_(a, b) a##_##b
#define TORCH_TPU_ISA_CAT(a, b) TORCH_TPU_ISA_CAT_(a, b)
// The exported entry of this file's variant: name_avx2, name_avx512, ...
#define TORCH_TPU_ISA_ENTRY(name) TORCH_TPU_ISA_CAT(name, TORCH_TPU_ISA)

// In a dispatch file: declares name_avx2, name_avx512 and name_avx512_bf16,
// and defines `ret name params` calling the one for runtime::cpu_isa(). For
// the files of CMake's TPU_KERNEL_AVX512_BF16_SOURCES.
#define TORCH_TPU_ISA_DISPATCH(ret, name, params, args)            \
  ret name##_avx2 params;                                          \
  ret name##_avx512 params;                                        \
  ret name##_avx512_bf16 params;                                   \
  ret name params {                                                \
    switch (::torch_tpu::runtime::cpu_isa()) {                     \
      case ::torch_tpu::runtime::CpuIsa::kAvx512Bf16:              \
        return name##_avx512_bf16 args;                            \
      case ::torch_tpu::runtime::CpuIsa::kAvx512:                  \
        return name##_avx512 args;                                 \
      case ::torch_tpu::runtime::CpuIsa::kAvx2:                    \
        break;                                                     \
    }                                                              \
    return name##_avx2 args;                                       \
  }

// The same for the files of TPU_KERNEL_AVX512_SOURCES only (no BF16
// variant): an avx512_bf16 CPU runs the avx512 one.
#define TORCH_TPU_ISA_DISPATCH_AVX512(ret, name, params, args)     \
  ret name##_avx2 params;                                          \
  ret name##_avx512 params;                                        \
  ret name params {                                                \
    if (::torch_tpu::runtime::cpu_isa() != ::torch_tpu::runtime::CpuIsa::kAvx2) { \
      return name##_avx512 args;                                   \
    }                                                              \
    return name##_avx2 args;                                       \
  }
