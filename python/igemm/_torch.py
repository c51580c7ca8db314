"""torch path: CUDA tensors through a cached igemm plan, as the custom op igemm::conv2d.

Imported only when torch is (igemm/__init__.py loads it lazily), so the package and its numpy
path work without torch.
"""

import threading
from typing import List, Optional

import torch

from . import _args
from ._lib import DType, Plan, make_desc, make_epilogue

# While torch.compile traces, _args leaves the range checks to the op's implementation.
_args.is_tracing = getattr(getattr(torch, "compiler", None), "is_compiling", None)

if not hasattr(torch, "library") or not hasattr(torch.library, "custom_op"):
    raise ImportError("igemm's torch path needs torch >= 2.4 (torch.library.custom_op); "
                      "this is torch %s" % getattr(torch, "__version__", "?"))

_IN_DTYPES = {torch.float16: DType.F16, torch.bfloat16: DType.BF16}
_OUT_DTYPES = {torch.float16: DType.F16, torch.bfloat16: DType.BF16, torch.float32: DType.F32}
_IN_DTYPE_LIST = (torch.float16, torch.bfloat16)
_OUT_DTYPE_LIST = (torch.float16, torch.bfloat16, torch.float32)
_OUT_NAMES = {
    "fp16": torch.float16, "f16": torch.float16, "float16": torch.float16, "half": torch.float16,
    "bf16": torch.bfloat16, "bfloat16": torch.bfloat16,
    "fp32": torch.float32, "f32": torch.float32, "float32": torch.float32, "float": torch.float32,
}

# ---------------------------------------------------------------------------------------------
# plan cache: one plan per (device, geometry, dtypes, epilogue) -- alpha, beta and the
# activation parameter live in the plan, so they are part of the key.
_plans = {}
_plans_lock = threading.Lock()


def clear_plan_cache():
    """Destroys every cached plan (their device workspaces are freed)."""
    with _plans_lock:
        _plans.clear()


def plan_cache_size():
    return len(_plans)


def _get_plan(x, w, od, has_scale, has_bias, has_residual, stride, padding, dilation, groups,
              alpha, beta, activation, act_param):
    n, c, h, wd = (int(v) for v in x.shape)
    k, _, r, s = (int(v) for v in w.shape)
    dev = x.device.index if x.device.index is not None else torch.cuda.current_device()
    key = (dev, n, h, wd, c, k, r, s, int(groups), tuple(int(v) for v in padding),
           tuple(int(v) for v in stride), tuple(int(v) for v in dilation), x.dtype, od,
           float(alpha), float(beta), bool(has_scale), bool(has_bias), bool(has_residual),
           activation, float(act_param))
    plan = _plans.get(key)
    if plan is not None:
        return plan, dev
    with _plans_lock:
        plan = _plans.get(key)
        if plan is None:
            if x.dtype not in _IN_DTYPES:
                raise TypeError("x.dtype = %s: expected torch.float16 or torch.bfloat16" % x.dtype)
            if od not in _OUT_DTYPES:
                raise TypeError("out_dtype = %s: expected torch.float16, torch.bfloat16 or "
                                "torch.float32" % od)
            desc = make_desc(n, h, wd, c, k, r, s, int(groups), padding, stride, dilation,
                             _IN_DTYPES[x.dtype], _OUT_DTYPES[od])
            epi = make_epilogue(alpha, beta, has_scale, has_bias, has_residual,
                                _args.act_code(activation), act_param)
            with torch.cuda.device(dev):
                plan = Plan(desc, epi, device=dev, key=key)
            _plans[key] = plan
    return plan, dev


# ---------------------------------------------------------------------------------------------
# layout helpers


def _nhwc(t):
    """Dense channels_last (NHWC memory), 16-byte aligned; copies only when needed."""
    if not t.is_contiguous(memory_format=torch.channels_last):
        t = t.contiguous(memory_format=torch.channels_last)
    if t.data_ptr() % 16:
        t = t.clone(memory_format=torch.channels_last)
    return t


def _vec(t):
    if t.dtype != torch.float32:
        t = t.to(torch.float32)
    t = t.contiguous()
    if t.data_ptr() % 16:
        t = t.clone()
    return t


def _out_shape(x, w, stride, padding, dilation):
    n, _, h, wd = x.shape
    k, _, r, s = w.shape
    p = _args.out_size(h, padding[0], padding[1], dilation[0], r, stride[0])
    q = _args.out_size(wd, padding[2], padding[3], dilation[1], s, stride[1])
    return n, k, p, q


def _empty_out(x, w, stride, padding, dilation, od):
    n, k, p, q = _out_shape(x, w, stride, padding, dilation)
    # channels_last strides, written out so the fake (meta) tensor has exactly the real ones
    return x.new_empty_strided((n, k, p, q), (p * q * k, 1, q * k, k), dtype=od)


# ---------------------------------------------------------------------------------------------
# the custom op


def _conv2d_impl(x: torch.Tensor, w: torch.Tensor, bias: Optional[torch.Tensor],
              scale: Optional[torch.Tensor], residual: Optional[torch.Tensor], stride: List[int],
              padding: List[int], dilation: List[int], groups: int, alpha: float, beta: float,
              activation: str, act_param: float,
              out_dtype: Optional[torch.dtype]) -> torch.Tensor:
    """y = act(alpha * scale * conv2d(x, w) + bias + beta * residual), logical NCHW tensors with
    channels_last memory; padding is (top, bottom, left, right)."""
    od = x.dtype if out_dtype is None else out_dtype
    # igemm.conv2d checked all this; a direct torch.ops.igemm.conv2d call may not have, and
    # the library trusts the buffers to match the descriptor.
    if x.dtype not in _IN_DTYPES or od not in _OUT_DTYPES:
        raise TypeError("x.dtype = %s, out_dtype = %s: expected float16/bfloat16 input and "
                        "float16/bfloat16/float32 output" % (x.dtype, od))
    if w.dtype != x.dtype:
        raise TypeError("w.dtype = %s but x.dtype = %s: they must be equal" % (w.dtype, x.dtype))
    if x.dim() != 4 or w.dim() != 4 or w.shape[1] * groups != x.shape[1]:
        raise ValueError("x.shape = %s, w.shape = %s, groups = %d: expected (N, C, H, W) and "
                         "(K, C/groups, R, S)" % (tuple(x.shape), tuple(w.shape), groups))
    for name, t in (("w", w), ("bias", bias), ("scale", scale), ("residual", residual)):
        if t is not None and t.device != x.device:
            raise ValueError("%s.device = %s but x.device = %s" % (name, t.device, x.device))
    for name, t in (("bias", bias), ("scale", scale)):
        if t is not None and t.numel() != w.shape[0]:
            raise ValueError("%s has %d elements: expected K = %d" % (name, t.numel(), w.shape[0]))
    if min(stride) < 1 or min(dilation) < 1 or min(padding) < 0:
        _library_rejects(x, w, stride, padding, dilation, groups, od)
    y = _empty_out(x, w, stride, padding, dilation, od)
    if residual is not None and residual.shape != y.shape:
        raise ValueError("residual.shape = %s: expected the output shape %s"
                         % (tuple(residual.shape), tuple(y.shape)))
    if y.numel() == 0:
        return y
    x = _nhwc(x)
    w = _nhwc(w)
    scale = _vec(scale) if scale is not None else None
    bias = _vec(bias) if bias is not None else None
    if residual is not None:
        if residual.dtype != od:
            raise TypeError("residual.dtype = %s: must equal the output dtype %s"
                            % (residual.dtype, od))
        residual = _nhwc(residual)
    plan, dev = _get_plan(x, w, od, scale is not None, bias is not None, residual is not None,
                          stride, padding, dilation, groups, alpha, beta, activation, act_param)
    with torch.cuda.device(dev):
        stream = torch.cuda.current_stream(dev).cuda_stream
        plan.run(x.data_ptr(), w.data_ptr(),
                 scale.data_ptr() if scale is not None else None,
                 bias.data_ptr() if bias is not None else None,
                 residual.data_ptr() if residual is not None else None,
                 y.data_ptr(), stream)
    return y


# The op: what torch.compile, torch.export, fake tensors and every tracing mode see. The same
# function is called directly in plain eager mode (_direct_ok): the custom-op dispatch costs
# ~45 us of host time per call on a slow CPU (measured, docs/decisions.md: host-cost), more than
# everything else on the path.
conv2d_op = torch.library.custom_op("igemm::conv2d", mutates_args=(),
                                    device_types="cuda")(_conv2d_impl)

# The OpOverload is what torch.compile sees (and puts in the graph).
_OP = torch.ops.igemm.conv2d.default


@conv2d_op.register_fake
def _conv2d_fake(x, w, bias, scale, residual, stride, padding, dilation, groups, alpha, beta,
                 activation, act_param, out_dtype):
    od = x.dtype if out_dtype is None else out_dtype
    return _empty_out(x, w, stride, padding, dilation, od)


# ---------------------------------------------------------------------------------------------
# the Python-facing function (traceable by torch.compile: checks and normalisation only)


def is_tensor(x):
    return isinstance(x, torch.Tensor)


def _parse_out_dtype(out_dtype):
    if out_dtype is None:
        return None
    if isinstance(out_dtype, str):
        if out_dtype.lower() not in _OUT_NAMES:
            raise ValueError("out_dtype = %r: expected torch.float16, torch.bfloat16 or "
                             "torch.float32" % (out_dtype,))
        return _OUT_NAMES[out_dtype.lower()]
    if out_dtype not in _OUT_DTYPE_LIST:
        raise TypeError("out_dtype = %r: expected torch.float16, torch.bfloat16 or torch.float32"
                        % (out_dtype,))
    return out_dtype


def _check_vec(t, name, x, k):
    if t is None:
        return None
    if not isinstance(t, torch.Tensor):
        raise TypeError("%s is a %s: expected a torch.Tensor of %d floats on %s"
                        % (name, type(t).__name__, k, x.device))
    if t.device != x.device:
        raise ValueError("%s.device = %s but x.device = %s: move %s to %s"
                         % (name, t.device, x.device, name, x.device))
    if not t.is_floating_point():
        raise TypeError("%s.dtype = %s: expected a floating-point tensor (converted to float32)"
                        % (name, t.dtype))
    if t.dim() != 1 or t.shape[0] != k:
        raise ValueError("%s.shape = %s: expected (%d,) (one value per output channel)"
                         % (name, tuple(t.shape), k))
    if t.dtype != torch.float32:
        t = t.to(torch.float32)
    return t


def _library_rejects(x, w, stride, pads, dilation, groups, od):
    """Raises the library's IgemmError for a descriptor with a bad stride / dilation /
    padding (so the message names the field exactly as the C API does)."""
    import ctypes
    from ._lib import check, lib
    n, c, h, wd = (int(v) for v in x.shape)
    k, _, r, s = (int(v) for v in w.shape)
    desc = make_desc(n, h, wd, c, k, r, s, int(groups), pads, stride, dilation,
                     _IN_DTYPES[x.dtype], _OUT_DTYPES[x.dtype if od is None else od])
    check(lib().igemm_conv2d_validate(ctypes.byref(desc)), "igemm_conv2d_validate")
    raise ValueError("stride = %s, dilation = %s, padding = %s: stride and dilation must be "
                     ">= 1, padding >= 0" % (stride, dilation, pads))


def prepare(x, w, bias, stride, padding, dilation, groups, scale, residual, alpha, beta,
            activation, out_dtype):
    """Checks the arguments and returns the custom op's argument tuple."""
    if not isinstance(w, torch.Tensor):
        raise TypeError("w is a %s but x is a torch.Tensor: pass both as tensors"
                        % type(w).__name__)
    if x.dim() != 4:
        raise ValueError("x.dim() = %d (shape %s): expected 4-d (N, C, H, W)"
                         % (x.dim(), tuple(x.shape)))
    if w.dim() != 4:
        raise ValueError("w.dim() = %d (shape %s): expected 4-d (K, C/groups, R, S)"
                         % (w.dim(), tuple(w.shape)))
    if x.device.type != "cuda":
        raise ValueError("x.device = %s: igemm.conv2d runs on CUDA tensors (use numpy arrays "
                         "for the CPU reference)" % (x.device,))
    if w.device != x.device:
        raise ValueError("w.device = %s but x.device = %s: move w to %s"
                         % (w.device, x.device, x.device))
    if x.dtype not in _IN_DTYPE_LIST:
        raise TypeError("x.dtype = %s: expected torch.float16 or torch.bfloat16" % (x.dtype,))
    if w.dtype != x.dtype:
        raise TypeError("w.dtype = %s but x.dtype = %s: they must be equal" % (w.dtype, x.dtype))
    groups = _args._as_int(groups, "groups")
    if groups < 1:
        raise ValueError("groups = %d: must be >= 1" % groups)
    c = x.shape[1]
    k, cg, r, s = w.shape
    if cg * groups != c:
        raise ValueError("w.shape = %s with groups = %d needs x's C = %d, but x.shape = %s "
                         "(NCHW) has C = %d" % (tuple(w.shape), groups, cg * groups,
                                                tuple(x.shape), c))
    stride, dilation, pads, act_name, act_param, alpha, beta = _args.conv_options(
        stride, padding, dilation, activation, alpha, beta, r, s)
    od = _parse_out_dtype(out_dtype)
    bias = _check_vec(bias, "bias", x, k)
    scale = _check_vec(scale, "scale", x, k)
    if min(stride) < 1 or min(dilation) < 1 or min(pads) < 0:
        _library_rejects(x, w, stride, pads, dilation, groups, od)
    n, _, p, q = _out_shape(x, w, stride, pads, dilation)
    if p <= 0 or q <= 0:
        raise ValueError("output size P x Q = %s x %s <= 0: the dilated %sx%s filter "
                         "(dilation %s) does not fit the padded %sx%s input (padding %s)"
                         % (p, q, r, s, dilation, x.shape[2], x.shape[3], pads))
    if residual is not None:
        if not isinstance(residual, torch.Tensor):
            raise TypeError("residual is a %s: expected a torch.Tensor"
                            % type(residual).__name__)
        if residual.device != x.device:
            raise ValueError("residual.device = %s but x.device = %s"
                             % (residual.device, x.device))
        want = x.dtype if od is None else od
        if residual.dtype != want:
            raise TypeError("residual.dtype = %s: must equal the output dtype %s"
                            % (residual.dtype, want))
        if tuple(residual.shape) != (n, k, p, q):
            raise ValueError("residual.shape = %s: expected the output shape %s"
                             % (tuple(residual.shape), (n, k, p, q)))
    return (x, w, bias, scale, residual, list(stride), list(pads), list(dilation), groups,
            alpha, beta, act_name, act_param, od)


_C = torch._C
_dispatch_depth = getattr(_C, "_len_torch_dispatch_stack", None)
_function_mode_on = getattr(_C, "_is_torch_function_mode_enabled", None)
_tracing_state = getattr(_C, "_get_tracing_state", None)
_wrapped = getattr(getattr(_C, "_functorch", None), "is_functorch_wrapped_tensor", None)
_is_compiling = getattr(getattr(torch, "compiler", None), "is_compiling", None)
_DIRECT_CAPABLE = None not in (_dispatch_depth, _function_mode_on, _tracing_state, _wrapped,
                               _is_compiling)


def _plain(t):
    return t is None or (type(t) is torch.Tensor and not _wrapped(t)
                         and not (t.requires_grad and torch.is_grad_enabled()))


def _direct_ok(x, w, bias, scale, residual):
    """True when the op's implementation may be called directly: plain eager tensors (no
    subclass such as FakeTensor, no functorch wrapper, no gradient asked for), no
    torch.compile / torch.jit tracing, no dispatch or function mode. Otherwise the call goes
    through torch.ops.igemm.conv2d, so every tracer and mode sees the op."""
    return (_DIRECT_CAPABLE and not _is_compiling() and _plain(x) and _plain(w)
            and _plain(bias) and _plain(scale) and _plain(residual)
            and _dispatch_depth() == 0 and not _function_mode_on() and _tracing_state() is None)


def conv2d(x, w, bias=None, stride=1, padding=0, dilation=1, groups=1, scale=None,
           residual=None, alpha=1.0, beta=1.0, activation=None, out_dtype=None):
    args = prepare(x, w, bias, stride, padding, dilation, groups, scale, residual, alpha, beta,
                   activation, out_dtype)
    if _direct_ok(args[0], args[1], args[2], args[3], args[4]):
        return _conv2d_impl(*args)
    return _OP(*args)


def get_plan(x, w, bias=None, stride=1, padding=0, dilation=1, groups=1, scale=None,
             residual=None, alpha=1.0, beta=1.0, activation=None, out_dtype=None):
    """The cached Plan conv2d() would run for these arguments (created if needed)."""
    (x, w, bias, scale, residual, stride, pads, dilation, groups, alpha, beta, act_name,
     act_param, od) = prepare(x, w, bias, stride, padding, dilation, groups, scale, residual,
                              alpha, beta, activation, out_dtype)
    od = x.dtype if od is None else od
    plan, _ = _get_plan(x, w, od, scale is not None, bias is not None, residual is not None,
                        stride, pads, dilation, groups, alpha, beta, act_name, act_param)
    return plan
