"""Every public name of torch.cuda (its __all__) is either in torch.tpu, or
listed here with the reason it is not: CUDA-specific, or not built yet (the
gaps that are still open, counted in docs/coverage.md's spirit: a new torch
name or a removed tpu one fails this test)."""

import torch

import torch_tpu  # noqa: F401

_LEGACY_TYPES = ("the legacy typed-tensor and typed-storage classes (torch.cuda.FloatTensor, ...): "
                 "deprecated in PyTorch; use torch.tensor(..., device='tpu')")

CUDA_ONLY = {
    **{name: _LEGACY_TYPES for name in (
        "BFloat16Storage", "BFloat16Tensor", "BoolStorage", "BoolTensor", "ByteStorage", "ByteTensor",
        "CharStorage", "CharTensor", "ComplexDoubleStorage", "ComplexFloatStorage", "DoubleStorage",
        "DoubleTensor", "FloatStorage", "FloatTensor", "HalfStorage", "HalfTensor", "IntStorage", "IntTensor",
        "LongStorage", "LongTensor", "ShortStorage", "ShortTensor")},
    "CUDAGraph": "CUDA's name; torch.tpu.TPUGraph is the same class for tpu",
    "CudaError": "wraps a cudaError_t; tpu runtime errors are RuntimeError / torch.OutOfMemoryError",
    "DeferredCudaCallError": "CUDA's lazy-init error; tpu initializes at import",
    "cudaStatus": "CUDA runtime status codes",
    "check_error": "checks a cudaError_t",
    "cudart": "the CUDA runtime library handle",
    "nccl": "NCCL bindings; tpu collectives go through torch.distributed",
    "nvtx": "NVIDIA's range annotations; torch.profiler.record_function works everywhere",
    "jiterator": "NVRTC-compiled elementwise kernels",
    "tunable": "TunableOp for cuBLAS/hipBLASLt GEMM selection",
    "GreenContext": "CUDA green contexts (SM partitioning)",
    "get_arch_list": "the CUDA architectures torch was built for",
    "get_gencode_flags": "nvcc -gencode flags",
    "has_magma": "whether torch was built with MAGMA",
    "has_half": "always True on CUDA; a constant of the CUDA module",
    "current_blas_handle": "a cuBLAS handle",
    "current_solver_handle": "a cuSOLVER handle",
    "clock_rate": "the GPU clock, read through NVML",
    "power_draw": "NVML power reading",
    "temperature": "NVML temperature reading",
    "list_gpu_processes": "NVML process listing",
    "ipc_collect": "CUDA IPC handles (the tpu runtime has no inter-process memory)",
    "sparse": "cuSPARSE-specific helpers",
    "profiler": "CUDA's nvprof/Nsight start/stop",
    "CUDAPluggableAllocator": "loads a cudaMalloc-style allocator from a .so",
    "change_current_allocator": "swaps in a CUDAPluggableAllocator",
    "caching_allocator_enable": "turns CUDA's caching allocator off for debugging",
    "caching_allocator_disabled": "the same switch's query",
    "get_allocator_backend": "names CUDA's native or cudaMallocAsync allocator",
}

NOT_YET = {
}


def test_every_torch_cuda_name_is_in_torch_tpu_or_listed_with_its_reason():
    cuda = set(torch.cuda.__all__)
    missing = {n for n in cuda if not hasattr(torch.tpu, n)}
    unlisted = missing - set(CUDA_ONLY) - set(NOT_YET)
    assert not unlisted, f"torch.cuda names neither in torch.tpu nor listed here: {sorted(unlisted)}"
    stale = {n for n in set(CUDA_ONLY) | set(NOT_YET) if n not in missing}
    assert not stale, f"listed as missing but torch.tpu has them (or torch.cuda dropped them): {sorted(stale)}"
    assert not set(CUDA_ONLY) & set(NOT_YET)
    assert all(reason for reason in {**CUDA_ONLY, **NOT_YET}.values())
