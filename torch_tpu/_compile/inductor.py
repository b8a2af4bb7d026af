"""Inductor's backend for "tpu": CppScheduling generates the kernels (the
device is a CPU underneath), and the wrapper codegen below turns each kernel
call into a launch on the current tpu stream instead of a call on the host
thread. Buffers are allocated with empty_strided_tpu (the tpu caching
allocator) and extern kernels (mm, convolution, SDPA, the tpu::
custom ops) run the tpu aten ops, so everything a compiled graph does is
ordered on the stream like eager tpu work.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib

import torch
from torch._inductor import config
from torch._inductor.codegen import common
from torch._inductor.codegen.common import DeviceOpOverrides
from torch._inductor.codegen.cpp import CppScheduling
from torch._inductor.codegen.wrapper import PythonWrapperCodegen, SubgraphPythonWrapperCodegen
from torch._inductor.virtualized import V

from . import cpp_choices

_PYBINDING = "async_compile.cpp_pybinding("
# Marks the sources TpuScheduling generates: a graph that also computes on
# the CPU (after x.cpu()) gets CPU kernels from CppScheduling in the same
# wrapper, and those must stay host calls. The mark also keeps Inductor from
# reusing one kernel for both devices (it dedups kernels by source).
_TPU_MARK = "// torch_tpu: a tpu device kernel, launched on the current stream\n"


# --------------------------------------------------------------- kernels --

def _trampoline(arg_types) -> str:
    """`tpu_entry(const uint64_t* a)`: one 8-byte slot per argument, filled by
    torch_tpu._C._launch_compiled (pointers, int64 values, double bits)."""
    args = []
    for i, t in enumerate(arg_types):
        base = t.replace("const ", "").strip()
        if base.endswith("*"):
            args.append(f"reinterpret_cast<{base}>(static_cast<uintptr_t>(a[{i}]))")
        elif base in ("float", "double"):
            args.append(f"static_cast<{base}>(tpu_slot_double(a[{i}]))")
        else:  # int64_t, uintptr_t, bool and the other integers
            args.append(f"static_cast<{base}>(static_cast<int64_t>(a[{i}]))")
    # The kernel runs on the device's stream worker. Its OpenMP regions run
    # with a team of one there: a second OpenMP team beside the device's own
    # core pool and the host thread oversubscribed the cores (GPT example's
    # compiled step, 2 cores: 4.1-4.5 ms with the default team, 2.9 ms with
    # one; the ResNet step was unchanged within noise).
    return (
        "\n#include <cstring>\n"
        "#ifdef _OPENMP\n#include <omp.h>\n#endif\n"
        "static inline double tpu_slot_double(uint64_t bits) {\n"
        "  double d; std::memcpy(&d, &bits, sizeof d); return d;\n}\n"
        'extern "C" void tpu_entry(const uint64_t* a) {\n'
        "#ifdef _OPENMP\n"
        "  if (omp_get_max_threads() != 1) omp_set_num_threads(1);\n"
        "#endif\n"
        f"  kernel({', '.join(args)});\n}}\n")


class TpuKernel:
    """A compiled Inductor C++ kernel; calling it enqueues it on the current
    tpu stream and returns at once."""

    def __init__(self, name: str, arg_types, lib):
        import torch_tpu

        self.name = name
        self.arg_types = list(arg_types)
        self._lib = lib  # kept: it owns the code
        self._entry = ctypes.cast(lib.tpu_entry, ctypes.c_void_p).value
        self._name_ptr = torch_tpu._C._intern_kernel_name(name)
        self._launch = torch_tpu._C._launch_compiled

    def __call__(self, *args):
        self._launch(self._entry, self._name_ptr, *args)

    def __repr__(self):
        return f"TpuKernel({self.name})"


_code_cache = None


def _tpu_code_cache():
    """CppCodeCache with the compile CPU's kernels get
    (CppPythonBindingsCodeCache's flags: no libtorch, a shared library) and
    its precompiled cpp_prefix.h. Plain CppCodeCache precompiles no header,
    so every tpu kernel parsed the whole of ATen's vectorisation headers
    again: 1.9-2.2 s per kernel against CPU's 0.6-0.8 s, 25 s against 10 s
    for the GPT example's first compile (AMD EPYC, 2 cores)."""
    global _code_cache
    if _code_cache is None:
        from torch._inductor import codecache

        class TpuKernelCodeCache(codecache.CppCodeCache):
            cache: dict = {}
            cpp_compile_command_flags = dict(codecache.CppPythonBindingsCodeCache.cpp_compile_command_flags)

            @classmethod
            def _get_uncompiled_header(cls, device: str):
                return codecache.CppPythonBindingsCodeCache._get_uncompiled_header(device)

        _code_cache = TpuKernelCodeCache
    return _code_cache


def tpu_cpp_kernel(async_compile, name: str, arg_types, source: str):
    """What the wrapper calls instead of async_compile.cpp_pybinding: the same
    compile (in Inductor's worker pool when it has one), our trampoline
    instead of a Python binding."""
    from torch._inductor.async_compile import LambdaFuture, get_compile_threads

    cache = _tpu_code_cache()
    source = source + _trampoline(arg_types)
    if get_compile_threads() <= 1:
        return TpuKernel(name, arg_types, cache.load(source))
    get_lib = cache.load_async(source, submit_fn=async_compile.submit)
    return LambdaFuture(lambda: TpuKernel(name, arg_types, get_lib()))


def get_raw_stream(device_index: int) -> int:
    return torch.tpu.current_stream(device_index).stream_id


# ---------------------------------------------------------- wrapper code --

class _TpuKernelCalls:
    """What differs from the CPU wrapper: kernels are defined through
    tpu_cpp_kernel and called as launches (a plain call of a TpuKernel)."""

    def define_kernel(self, kernel_name, kernel_body, metadata=None, gpu=True,
                      cpp_definition=None):
        if not gpu and kernel_body.startswith(_PYBINDING) and _TPU_MARK in kernel_body:
            kernel_body = (f"tpu_cpp_kernel(async_compile, {kernel_name!r}, "
                           + kernel_body[len(_PYBINDING):])
        super().define_kernel(kernel_name, kernel_body, metadata, gpu, cpp_definition)

    def make_allocation(self, name, device, dtype, shape, stride, allocation_shape=None,
                        is_pinned=False):
        if device.type != "tpu" or torch._inductor.config.test_configs.track_memory_lifecycle:
            return super().make_allocation(name, device, dtype, shape, stride, allocation_shape,
                                           is_pinned)
        # empty_strided_tpu, as CUDA's wrapper calls empty_strided_cuda: the
        # caching allocator without torch.empty_strided's parsing and
        # dispatch (4.7 -> 2.1 us a buffer, AMD EPYC). Inductor writes device
        # guards only for GPU types, so the index is named: a graph on tpu:1
        # allocates there whatever the current device is.
        shape_code = self.codegen_python_shape_tuple(shape)
        allocation = shape_code if allocation_shape is None else self.codegen_python_shape_tuple(allocation_shape)
        stride_code = self.codegen_python_shape_tuple(stride)
        index = -1 if device.index is None else device.index
        line = f"{name} = empty_strided_tpu({allocation}, {stride_code}, {dtype}, {index})"
        if allocation != shape_code:
            line += f".as_strided({shape_code}, {stride_code})"
        return line

    def generate_extern_kernel_out(self, node) -> None:
        # torch 2.13 lowers a functional custom op through its out overload
        # with its keyword-only arguments both among the constant (positional)
        # arguments and as keywords: `tpu::bias_gelu.out(x, b, 'tanh',
        # approximate='tanh', out=buf)` raises. Keep the positional ones only.
        op = getattr(node, "op_overload", None)
        if isinstance(op, torch._ops.OpOverload) and node.kwargs and op.namespace == "tpu":
            arguments = [a for a in op._schema.arguments if not a.kwarg_only]
            positional = sum(1 for a in arguments if not isinstance(a.type, torch.TensorType))
            if len(node.constant_args) > positional:
                node.constant_args = tuple(node.constant_args[:positional])
        super().generate_extern_kernel_out(node)

    def _generate_kernel_call_helper(self, kernel_name, call_args, *, device=None,
                                     triton=True, **kwargs):
        device = device or V.graph.get_current_device_or_throw()
        if not triton and device.type == "tpu":
            self.writeline(self.wrap_kernel_call(kernel_name, call_args))
            return
        super()._generate_kernel_call_helper(kernel_name, call_args, device=device,
                                             triton=triton, **kwargs)


class TpuWrapperCodegen(_TpuKernelCalls, PythonWrapperCodegen):
    @staticmethod
    def create(is_subgraph, subgraph_name, parent_wrapper, partition_signatures=None):
        from . import dynamo

        dynamo.arm_check()
        if is_subgraph:
            return TpuSubgraphWrapperCodegen(subgraph_name, parent_wrapper, partition_signatures)
        return TpuWrapperCodegen()

    def write_header(self) -> None:
        super().write_header()
        self.imports.writeline("from torch_tpu._compile.inductor import tpu_cpp_kernel")
        self.imports.writeline("from torch_tpu._C import _empty_strided_tpu as empty_strided_tpu")


class TpuSubgraphWrapperCodegen(_TpuKernelCalls, SubgraphPythonWrapperCodegen):
    pass


class TpuScheduling(CppScheduling):
    """CppScheduling, with its kernel sources marked as tpu kernels."""

    def define_kernel(self, src_code, nodes, kernel_args=None):
        return super().define_kernel(_TPU_MARK + src_code, nodes, kernel_args)


class TpuDeviceOpOverrides(DeviceOpOverrides):
    def import_get_raw_stream_as(self, name: str) -> str:
        return f"from torch_tpu._compile.inductor import get_raw_stream as {name}"

    def set_device(self, device_idx: int) -> str:
        return f"torch.tpu.set_device({device_idx})"

    def synchronize(self) -> str:
        return "torch.tpu.synchronize()"

    def device_guard(self, device_idx: int) -> str:
        return f"torch.tpu.device({device_idx})"

    def cpp_kernel_type(self) -> str:
        return "void*"


# --------------------------------------------------- device's own kernels --

# Ops whose Inductor code is slower than the device's own kernel: on tpu they
# stay one extern call (CPU and other devices keep Inductor's code).
# max_pool2d_with_indices: Inductor emits a masked gather per tap and lane;
# the small ResNet example's stem (16 x 16 x 16 x 16, 3x3 stride 2) took
# 0.5 ms in that kernel on one core, against 0.11 ms for the device's
# max_pool2d_with_indices.
# gelu and gelu_backward: Inductor's decomposition evaluates tanh (or erf)
# through ATen's Sleef-based vector functions on one core; the device's
# kernel takes 52 us for the GPT example's 65,536 values against Inductor's
# 147 us, and its training step went from 1.11x to 0.99x eager (AMD EPYC,
# 2 cores, benchmarks/bench_compile.py).
# embedding_dense_backward: Inductor's decomposition zero-fills the weight
# gradient and scatters every row with atomic adds on one core (84 us for
# the GPT example's 256 tokens, fused with a layer norm), the device's
# kernel 2.6 us; the step went from 0.98x to 0.96-0.97x eager.
# max_pool2d_with_indices_backward: Inductor scatters each gradient to its
# window's maximum with 8-lane atomic adds on one core; fused with the
# ResNet example's stem batch-norm backward, that kernel took 328 us, where
# the device's max-pool backward takes 45.
_DEVICE_KERNEL_OPS = ("max_pool2d_with_indices", "max_pool2d_with_indices_backward", "gelu",
                      "gelu_backward", "embedding_dense_backward")


def _prefer_device_kernels() -> None:
    from torch._inductor import decomposition, lowering

    for name in _DEVICE_KERNEL_OPS:
        op = getattr(torch.ops.aten, name).default
        decomp = decomposition.decompositions.get(op)
        if decomp is not None and not getattr(decomp, "_tpu_keeps_op", False):
            def keep_on_tpu(x, *args, _decomp=decomp, **kwargs):
                if x.device.type == "tpu":
                    return NotImplemented
                return _decomp(x, *args, **kwargs)
            keep_on_tpu._tpu_keeps_op = True
            decomposition.decompositions[op] = keep_on_tpu
        lower = lowering.lowerings.get(op)
        if lower is not None and not getattr(lower, "_tpu_keeps_op", False):
            fallback = lowering.fallback_handler(op, add_to_fallback_set=False)

            def extern_on_tpu(x, *args, _lower=lower, _fallback=fallback, **kwargs):
                device = x.get_device()
                if device is not None and device.type == "tpu":
                    return _fallback(x, *args, **kwargs)
                return _lower(x, *args, **kwargs)
            extern_on_tpu._tpu_keeps_op = True
            lowering.lowerings[op] = extern_on_tpu
        elif lower is None:
            # Decomposed everywhere else: only tpu graphs still hold the op.
            lowering.lowerings[op] = lowering.fallback_handler(op, add_to_fallback_set=False)


# ---------------------------------------------------------- registration --

def cache_key_files() -> tuple:
    """What a cached graph of an older torch_tpu may differ by: this
    package's compile glue (kernel launches, custom-op lowerings) and the
    native library, whose operators decide how graphs are traced (the
    scaled_dot_product_attention backend choice, for one)."""
    import os

    from .. import _C

    here = os.path.dirname(os.path.abspath(__file__))
    glue = tuple(os.path.join(here, f) for f in sorted(os.listdir(here)) if f.endswith(".py"))
    return glue + (os.path.abspath(_C.__file__),)


@functools.cache
def _files_hash(paths: tuple) -> str:
    # Once per process: the native library is tens of megabytes.
    digest = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as f:
            digest.update(f.read())
    return digest.hexdigest()


def _traced_choices() -> str:
    # Global switches the device's operators read while a graph is traced,
    # which torch's cache keys leave out: the attention backends enabled
    # (torch.nn.attention.sdpa_kernel) decide between one fused call and
    # the math graph.
    math = torch.backends.cuda.math_sdp_enabled()
    fused = torch._C._get_overrideable_sdp_enabled()
    return f"-sdpa-math{int(math)}-fused{int(fused)}"


class _CacheKey:
    """Inductor's device pass for tpu, there for its uuid(), which enters the
    FX graph and AOTAutograd cache keys (graphs cached by another torch_tpu
    build must not be reused). The pass itself changes nothing."""

    def __call__(self, gm) -> None:
        pass

    def uuid(self):
        from . import dynamo

        dynamo.arm_check()  # called for every Inductor compile, cache hit or not
        return _files_hash(cache_key_files()) + _traced_choices()



def register() -> None:
    # The kernels are C++ for the host CPU: backend-dependent codegen must
    # take the "cpp" branches, not Pallas's (torch's default for "tpu").
    config.tpu_backend = "cpp"
    # The scheduler's pointwise-to-reduction reindexing skips only
    # device.type == "cpu" nodes and crashes on CppScheduling's loop groups
    # for any other device (training graphs); it never runs for CPU anyway.
    config.loop_reindexing_after_fusion = False
    from torch._inductor.custom_graph_pass import CustomGraphModulePass

    cache_key = type("TpuCacheKey", (_CacheKey, CustomGraphModulePass), {})()
    common.register_backend_for_device("tpu", TpuScheduling, TpuWrapperCodegen,
                                       device_custom_pass=cache_key)
    # torch registers CpuDeviceOpOverrides for "tpu" on first use, without
    # checking for an existing entry: let it run first, then replace it.
    common._initialize_device_op_overrides()
    common.register_device_op_overrides("tpu", TpuDeviceOpOverrides())
    _prefer_device_kernels()
    cpp_choices.apply()


def registration_problems():
    problems = []
    scheduling = common.get_scheduling_for_device("tpu")
    if scheduling is not TpuScheduling:
        problems.append(f"Inductor's scheduling for 'tpu' is {getattr(scheduling, '__name__', scheduling)}")
    wrapper = common.get_wrapper_codegen_for_device("tpu")
    if wrapper is not TpuWrapperCodegen:
        problems.append(f"Inductor's wrapper codegen for 'tpu' is {getattr(wrapper, '__name__', wrapper)}")
    overrides = common.device_op_overrides_dict.get("tpu")
    if common._device_op_overrides_initialized and not isinstance(overrides, TpuDeviceOpOverrides):
        problems.append(f"Inductor's device op overrides for 'tpu' are {type(overrides).__name__}")
    if config.tpu_backend != "cpp":
        problems.append(f"torch._inductor.config.tpu_backend is {config.tpu_backend!r}, not 'cpp'")
    return problems
