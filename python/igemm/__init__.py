"""igemm: Conv2D forward on NVIDIA tensor cores (implicit GEMM) with a fused epilogue.

    y = act(alpha * scale[k] * conv2d(x, w) + bias[k] + beta * residual)

`igemm.conv2d` takes either

* torch CUDA tensors -- x (N, C, H, W) and w (K, C/groups, R, S), float16 or bfloat16, in
  channels_last memory (others are copied to it), like torch.nn.functional.conv2d; the result
  is an (N, K, P, Q) channels_last tensor. It runs as the custom op ``torch.ops.igemm.conv2d``
  on the current CUDA stream and works inside ``torch.compile(fullgraph=True)``; or
* numpy arrays -- x NHWC (N, H, W, C) and w KRSC (K, R, S, C/groups) -- computed by the
  library's CPU reference (no GPU needed); the result is an NHWC array.

The library (libigemm.so) is found through $IGEMM_LIBRARY, the package directory, the source
tree's build/ directory, or the system's library path. Neither torch nor numpy is needed to
import this package.
"""

import sys as _sys

from ._lib import (Activation, DType, IgemmError, LibraryNotFoundError, Path,  # noqa: F401
                   Status, library_path)
from . import _lib

__version__ = "0.1.0"

__all__ = [
    "conv2d", "describe", "plan_info", "IgemmError", "LibraryNotFoundError", "Status", "DType",
    "Activation", "Path", "library_path", "library_version", "device_count",
    "clear_plan_cache", "plan_cache_size", "optimize", "avg_pool2d", "adaptive_avg_pool2d",
    "__version__",
]

_torch_backend = None  # igemm._torch once torch is in use


def _load_torch_backend():
    global _torch_backend
    if _torch_backend is None:
        from . import _torch as backend
        from . import _pool  # registers torch.ops.igemm.max_pool2d
        from . import _linear  # registers torch.ops.igemm.linear
        from . import _matmul  # registers torch.ops.igemm.matmul
        backend.pool = _pool
        backend.linear = _linear
        backend.matmul = _matmul
        _torch_backend = backend
    return _torch_backend


def _looks_like_torch(x):
    return type(x).__module__.split(".")[0] == "torch"


def conv2d(x, w, bias=None, stride=1, padding=0, dilation=1, groups=1, *, scale=None,
           residual=None, alpha=1.0, beta=1.0, activation=None, out_dtype=None, in_dtype=None):
    """Conv2d forward with a fused epilogue:

        y = act(alpha * scale[k] * conv2d(x, w) + bias[k] + beta * residual)

    Arguments as torch.nn.functional.conv2d, plus:
      padding     int, (pad_h, pad_w), (top, bottom, left, right), 'valid' or 'same'
                  ('same' needs stride 1; an odd total pads one more at the bottom/right).
      scale       per-output-channel multiplier, length K (converted to float32).
      bias        length K (converted to float32).
      residual    added as beta * residual; the output's shape, layout and dtype.
      alpha, beta floats.
      activation  None, 'relu', 'relu6', 'leaky_relu' (slope 0.01) or ('leaky_relu', slope),
                  'gelu' (erf), 'gelu_tanh', 'silu', 'sigmoid', 'tanh', 'hardswish',
                  'hardsigmoid'.
      out_dtype   output dtype (default: the input dtype); float16, bfloat16 or float32.

    torch CUDA tensors: x (N, C, H, W), w (K, C/groups, R, S) of float16 or bfloat16 in
    channels_last memory (tensors in another layout cost one copy each call); returns an
    (N, K, P, Q) channels_last tensor on x's device, computed on the current stream.

    numpy arrays: x NHWC (N, H, W, C), w KRSC (K, R, S, C/groups); computed on the CPU by
    igemm_conv2d_reference (slow; a test oracle). float16 arrays take the fp16 path; float32 /
    float64 arrays are rounded to bfloat16 (or pass in_dtype='fp16' / 'bf16'). A bfloat16
    result is returned as float32 holding bf16-rounded values. Returns an NHWC array.

    Raises IgemmError (with .status and the library's message) when the library rejects the
    problem, ValueError / TypeError for malformed arguments.
    """
    tb = _torch_backend
    if tb is not None and type(x) is tb.Tensor and in_dtype is None:  # the common case, first
        return tb.conv2d(x, w, bias, stride, padding, dilation, groups, scale, residual,
                         alpha, beta, activation, out_dtype)
    if tb is None and _looks_like_torch(x):
        tb = _load_torch_backend()
    if tb is not None and tb.is_tensor(x):
        if in_dtype is not None:
            raise TypeError("in_dtype = %r: only the numpy path takes in_dtype (torch tensors "
                            "carry their dtype)" % (in_dtype,))
        return tb.conv2d(x, w, bias, stride, padding, dilation, groups, scale, residual,
                         alpha, beta, activation, out_dtype)
    np = _sys.modules.get("numpy")
    if np is not None and isinstance(x, np.ndarray):
        from . import _numpy
        return _numpy.conv2d(x, w, bias, stride, padding, dilation, groups, scale=scale,
                             residual=residual, alpha=alpha, beta=beta, activation=activation,
                             out_dtype=out_dtype, in_dtype=in_dtype)
    raise TypeError("x is a %s: expected a torch.Tensor (CUDA) or a numpy.ndarray (NHWC)"
                    % type(x).__name__)


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    """Max pooling with torch.nn.functional.max_pool2d's arguments (no return_indices) on a
    CUDA tensor (N, C, H, W) of float16 or bfloat16, channels_last memory (another layout costs a
    copy); returns a channels_last tensor. NaN propagates; padding never wins. As the op
    torch.ops.igemm.max_pool2d it works under torch.compile and CUDA-graph capture; inference
    only. Raises ValueError / TypeError naming the argument, IgemmError for what the library
    refuses."""
    global _pool_fn
    if _pool_fn is None:
        _load_torch_backend()
        from ._pool import max_pool2d as fn
        _pool_fn = fn
    return _pool_fn(x, kernel_size, stride, padding, dilation, ceil_mode)


_pool_fn = None


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """Average pooling with torch.nn.functional.avg_pool2d's arguments on a CUDA tensor
    (N, C, H, W) of float16 or bfloat16 (channels_last memory; returns channels_last): the
    window's taps summed in fp32, divided as PyTorch divides, rounded once. ceil_mode only where
    it adds no window past the input, no divisor_override (ValueError otherwise). As the op
    torch.ops.igemm.avg_pool2d it works under torch.compile and CUDA-graph capture; inference
    only."""
    _load_torch_backend()
    from ._pool import avg_pool2d as fn
    return fn(x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def adaptive_avg_pool2d(x, output_size):
    """torch.nn.functional.adaptive_avg_pool2d for output_size 1 or (1, 1) (the global average
    of a classifier head) on a CUDA float16/bfloat16 tensor; ValueError for other sizes."""
    _load_torch_backend()
    from ._pool import adaptive_avg_pool2d as fn
    return fn(x, output_size)


def linear(x, weight, bias=None, activation=None, *, scale=None, residual=None, alpha=1.0,
           beta=1.0, out_dtype=None):
    """y = act(alpha * scale[n] * (x @ weight^T) + bias[n] + beta * residual), like
    F.linear with igemm's fused epilogue: x (..., K) and weight (N, K) CUDA tensors of float16 or
    bfloat16 (the same), bias / scale length N (converted to float32), residual of the output's
    shape and dtype; returns (..., N) in out_dtype (default: x's). Runs a cached GEMM plan
    (igemm_gemm_plan_create) as the op torch.ops.igemm.linear (torch.compile, CUDA graphs);
    inference only. EXPERIMENTAL (issue 27). Raises ValueError / TypeError naming the argument,
    IgemmError for what the library refuses."""
    _load_torch_backend()
    return _torch_backend.linear.linear(x, weight, bias, activation, scale, residual, alpha, beta,
                                        out_dtype)


def matmul(a, b, *, out_dtype=None):
    """d = a @ b with torch.matmul's semantics for a (..., M, K) and b (..., K, N) CUDA tensors of
    float16 or bfloat16 (the same; batch dimensions broadcast); returns (..., M, N) in out_dtype
    (default: a's; float32 keeps the fp32 accumulation). The operands are read in place where the
    GEMM descriptor describes them (b stored K x N, or a transposed N x K matrix such as
    weight.t(): the fast layout), else copied to contiguous tensors. Runs a cached GEMM plan
    (igemm_gemm_plan_create) as the op torch.ops.igemm.matmul (torch.compile, CUDA graphs);
    inference only. EXPERIMENTAL (issue 27). Raises ValueError / TypeError naming the argument,
    IgemmError for what the library refuses."""
    _load_torch_backend()
    return _torch_backend.matmul.matmul(a, b, out_dtype)


def plan_info(x, w, bias=None, stride=1, padding=0, dilation=1, groups=1, *, scale=None,
              residual=None, alpha=1.0, beta=1.0, activation=None, out_dtype=None):
    """What igemm.conv2d runs for these torch CUDA tensors and arguments, as a dict:
    path (a Path: GENERAL, SM90 or DIRECT), workspace_bytes, and description (the plan's
    igemm_plan_describe text: kernel, tile, and why this path). Creates the cached plan."""
    if not _looks_like_torch(x):
        raise TypeError("x is a %s: plan_info() takes torch CUDA tensors" % type(x).__name__)
    plan = _load_torch_backend().get_plan(x, w, bias, stride, padding, dilation, groups, scale,
                                          residual, alpha, beta, activation, out_dtype)
    return {"path": plan.path, "workspace_bytes": plan.workspace_bytes,
            "description": plan.describe()}


def describe(x, w, bias=None, stride=1, padding=0, dilation=1, groups=1, *, scale=None,
             residual=None, alpha=1.0, beta=1.0, activation=None, out_dtype=None):
    """The plan description (igemm_plan_describe) for these torch CUDA tensors and arguments:
    kernel path, tile, and why this path was chosen."""
    return plan_info(x, w, bias, stride, padding, dilation, groups, scale=scale,
                     residual=residual, alpha=alpha, beta=beta, activation=activation,
                     out_dtype=out_dtype)["description"]


def optimize(model, dtype=None, report=False, grouped="fast"):
    """An inference copy of a torch nn.Module (eval mode) whose Conv2d layers run on igemm:
    BatchNorm2d folded into the conv's scale/bias once, the following activation (ReLU, ReLU6,
    LeakyReLU, GELU, SiLU, Sigmoid, Tanh) and residual add fused into its epilogue; anything
    else stays in torch. dtype: torch.bfloat16 (default unless the model is float16) or
    torch.float16; the copy is converted to it and to channels_last. Inference only.
    grouped: "fast" (default) runs the depthwise convs and the grouped convs of narrow groups
    (c/g and k/g multiples of 8 with k/g <= 32, or 4 -> 4) on igemm's depthwise and grouped
    families and keeps other grouped convs in torch (BatchNorm folded into their weights);
    "depthwise" moves only the depthwise ones; True moves every grouped conv (the others then run
    on igemm's general path: slow); False keeps them all in torch (docs/decisions.md
    "grouped-tiled").

    Returns the module, or (module, OptimizeReport) with report=True. See igemm._optimize."""
    from ._optimize import optimize as _optimize
    return _optimize(model, dtype=dtype, report=report, grouped=grouped)


def library_version():
    """The loaded libigemm's version string ("MAJOR.MINOR.PATCH")."""
    return _lib.lib().igemm_version_string().decode()


def device_count():
    """Number of CUDA devices libigemm can use (0 without a GPU or a CUDA build)."""
    return int(_lib.lib().igemm_device_count())


def clear_plan_cache():
    """Destroys the cached plans of the torch path (frees their device workspaces)."""
    if _torch_backend is not None:
        _torch_backend.clear_plan_cache()
        _torch_backend.linear.clear_cache()
        _torch_backend.matmul.clear_cache()


def plan_cache_size():
    """Number of cached plans of the torch path."""
    return _torch_backend.plan_cache_size() if _torch_backend is not None else 0


# When torch is already imported, register torch.ops.igemm.conv2d now, so that a first call
# made while torch.compile traces finds it in place.
if "torch" in _sys.modules:
    try:
        _load_torch_backend()
    except Exception:  # e.g. torch < 2.4: the first torch call raises it again
        pass
