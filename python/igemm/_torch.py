"""torch path: CUDA tensors through a cached igemm plan, as the custom op igemm::conv2d.

Imported only when torch is (igemm/__init__.py loads it lazily), so the package and its numpy
path work without torch.
"""

import ctypes
import os
import threading
from typing import List, Optional

import torch

from . import _args
from ._lib import DType, Plan, check, lib, make_desc, make_epilogue

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
        _calls.clear()
        if _CPP_OP:  # (its entries hold the handles of the plans freed next)
            torch.ops.igemm._cpp_clear_calls()
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
# prepared calls: the host-cost fast path (docs/decisions.md: host-cost)
#
# A call whose signature was seen before (the same shapes, dtypes, devices and options) skips the
# argument normalisation and the plan key: one dict lookup on a tuple of the raw arguments finds a
# _Call holding the plan and the output geometry, and _Call.launch checks only what the signature
# does not fix -- the tensors' layouts and alignment, gradients, the current device, tracers and
# modes -- returning None when anything is off, so that the full path runs and decides. A
# signature is only stored after the full path accepted the same arguments.

_Tensor = Tensor = torch.Tensor
_CL = torch.channels_last
_F32 = torch.float32
_C = torch._C
_grad_enabled = _C.is_grad_enabled
_dispatch_depth = getattr(_C, "_len_torch_dispatch_stack", None)
_function_mode_on = getattr(_C, "_is_torch_function_mode_enabled", None)
_tracing_state = getattr(_C, "_get_tracing_state", None)
_wrapped = getattr(getattr(_C, "_functorch", None), "is_functorch_wrapped_tensor", None)
_is_compiling = getattr(getattr(torch, "compiler", None), "is_compiling", None)
_DIRECT_CAPABLE = None not in (_dispatch_depth, _function_mode_on, _tracing_state, _wrapped,
                               _is_compiling)
_cur_device = getattr(_C, "_cuda_getDevice", None)
_raw_stream = getattr(_C, "_cuda_getCurrentRawStream", None)
_FAST_CAPABLE = _DIRECT_CAPABLE and None not in (_cur_device, _raw_stream)

_calls = {}
_CALLS_MAX = 4096  # signatures kept; the table is emptied when full (plans stay in _plans)


class _Miss(Exception):
    """An argument the signature cannot represent exactly: take the full path."""


def _int_opt(v):
    """stride / padding / dilation as a signature element: ints, int tuples and strings only
    (a float or a bool, which the full path rejects, must not match a cached int)."""
    t = type(v)
    if t is int or t is str:
        return v
    if t is tuple or t is list:
        for e in v:
            if type(e) is not int:
                raise _Miss
        return tuple(v)
    raise _Miss


def _float_opt(v):
    t = type(v)
    if t is float or t is int:
        return v
    raise _Miss


def _tensor_sig(t):
    """An optional tensor operand as a signature element: (dtype, device index, shape)."""
    if t is None:
        return None
    if type(t) is not _Tensor:
        raise _Miss
    return (t.dtype, t.get_device(), t.shape)


def _vec_ptr(t):
    """The pointer of a float32 vector the library can read in place, else -1."""
    if (t.dtype is not _F32 or not t.is_contiguous() or _wrapped(t)
            or (t.requires_grad and _grad_enabled())):
        return -1
    p = t.data_ptr()
    return -1 if p & 15 else p


class _Call(object):
    """A prepared call: the plan, the output's shape, strides, dtype and device."""

    __slots__ = ("plan", "run", "handle", "shape", "strides", "od", "device", "dev")

    def __init__(self, plan, shape, strides, od, device, dev):
        self.plan = plan  # keeps the handle alive; None for an empty output
        self.run = lib().igemm_plan_run if plan is not None else None
        self.handle = plan._handle if plan is not None else None
        self.shape, self.strides, self.od, self.device, self.dev = shape, strides, od, device, dev

    def __copy__(self):
        return self  # immutable; a copy must not duplicate the plan handle

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        raise TypeError("a prepared igemm call holds a device plan and cannot be pickled")

    def launch(self, x, w, bias, scale, residual, gate=True, _is_compiling=_is_compiling,
               _dispatch_depth=_dispatch_depth, _function_mode_on=_function_mode_on,
               _tracing_state=_tracing_state, _wrapped=_wrapped, _grad_enabled=_grad_enabled,
               _CL=_CL, _cur_device=_cur_device, _raw_stream=_raw_stream,
               _empty_strided=torch.empty_strided):
        """y, or None when this call must take the full path. gate: also check for tracers,
        modes and gradients (False inside the op, which runs below them). (The defaults bind
        module globals as locals: this is the per-call path.)"""
        if gate and (_is_compiling() or _dispatch_depth() or _function_mode_on()
                     or _tracing_state() is not None or _wrapped(x) or _wrapped(w)
                     or (_grad_enabled() and (x.requires_grad or w.requires_grad))):
            return None
        if not (x.is_contiguous(memory_format=_CL) and w.is_contiguous(memory_format=_CL)):
            return None
        xp, wp = x.data_ptr(), w.data_ptr()
        if (xp | wp) & 15 or _cur_device() != self.dev:
            return None
        sp = bp = rp = None
        if scale is not None:
            sp = _vec_ptr(scale)
            if sp < 0:
                return None
        if bias is not None:
            bp = _vec_ptr(bias)
            if bp < 0:
                return None
        if residual is not None:
            if (not residual.is_contiguous(memory_format=_CL) or _wrapped(residual)
                    or (residual.requires_grad and _grad_enabled())):
                return None
            rp = residual.data_ptr()
            if rp & 15:
                return None
        y = _empty_strided(self.shape, self.strides, dtype=self.od, device=self.device)
        if self.plan is None:
            return y
        st = self.run(self.handle, xp, wp, sp, bp, rp, y.data_ptr(), _raw_stream(self.dev))
        if st:
            check(st, "igemm_plan_run")
        return y


def _remember(key, call):
    if len(_calls) >= _CALLS_MAX:
        _calls.clear()
    _calls[key] = call


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


def _any_grad(x, w, bias, scale, residual):
    return _grad_enabled() and (x.requires_grad or w.requires_grad or any(
        t is not None and t.requires_grad for t in (bias, scale, residual)))


_NO_BACKWARD = ("igemm::conv2d is inference-only (it has no backward): call it under "
                "torch.no_grad() or torch.inference_mode(), or on tensors that do not require "
                "grad (%s requires grad)")


def _conv2d_impl(x: torch.Tensor, w: torch.Tensor, bias: Optional[torch.Tensor],
                 scale: Optional[torch.Tensor], residual: Optional[torch.Tensor],
                 stride: List[int], padding: List[int], dilation: List[int], groups: int,
                 alpha: float, beta: float, activation: str, act_param: float,
                 out_dtype: Optional[torch.dtype]) -> torch.Tensor:
    """y = act(alpha * scale * conv2d(x, w) + bias + beta * residual), logical NCHW tensors with
    channels_last memory; padding is (top, bottom, left, right). The op's implementation: a
    prepared call when this signature was seen, else _conv2d_run."""
    if _any_grad(x, w, bias, scale, residual):
        raise RuntimeError(_NO_BACKWARD % ", ".join(
            n for n, t in (("x", x), ("w", w), ("bias", bias), ("scale", scale),
                           ("residual", residual)) if t is not None and t.requires_grad))
    key = None
    if _FAST_CAPABLE and type(x) is _Tensor and type(w) is _Tensor:
        try:
            key = (1, x.shape, w.shape, x.dtype, w.dtype, x.get_device(), w.get_device(),
                   tuple(stride), tuple(padding), tuple(dilation), groups, _tensor_sig(bias),
                   _tensor_sig(scale), _tensor_sig(residual), alpha, beta, activation, act_param,
                   out_dtype)
        except (_Miss, TypeError):
            key = None
        if key is not None:
            c = _calls.get(key)
            if c is not None:
                y = c.launch(x, w, bias, scale, residual, gate=False)
                if y is not None:
                    if _CPP_OP:  # (the C++ table missed it: emptied when full) back into it
                        _cpp_register(x, w, bias, scale, residual, stride, padding, dilation, groups,
                                      alpha, beta, activation, act_param, out_dtype, c)
                    return y
    y, call = _conv2d_run(x, w, bias, scale, residual, stride, padding, dilation, groups, alpha,
                          beta, activation, act_param, out_dtype)
    if key is not None:
        _remember(key, call)
        if _CPP_OP and call is not None and type(stride) is not str and type(padding) is not str:
            _cpp_register(x, w, bias, scale, residual, stride, padding, dilation, groups, alpha, beta,
                          activation, act_param, out_dtype, call)
    return y


def _cpp_register(x, w, bias, scale, residual, stride, padding, dilation, groups, alpha, beta,
                  activation, act_param, out_dtype, call):
    """Puts this signature into the C++ kernel's table (csrc/conv2d_op.cpp): the next call with it
    runs there without Python. The entry holds the plan's handle, which _plans keeps alive until
    clear_plan_cache (which empties the table first)."""
    handle = 0 if call.plan is None else int(call.handle)
    torch.ops.igemm._cpp_register_call(x, w, bias, scale, residual, stride, padding, dilation, groups,
                                       alpha, beta, activation, act_param, out_dtype, handle,
                                       list(call.shape), list(call.strides), call.od,
                                       -1 if call.dev is None else int(call.dev))


def _conv2d_run(x, w, bias, scale, residual, stride, padding, dilation, groups, alpha, beta,
                activation, act_param, out_dtype):
    """Checks the normalised arguments, finds the plan and runs it -> (y, _Call)."""
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
    if residual is not None and residual.dtype != od:
        raise TypeError("residual.dtype = %s: must equal the output dtype %s"
                        % (residual.dtype, od))
    if y.numel() == 0:
        return y, _Call(None, tuple(y.shape), y.stride(), od, y.device, y.get_device())
    x = _nhwc(x)
    w = _nhwc(w)
    scale = _vec(scale) if scale is not None else None
    bias = _vec(bias) if bias is not None else None
    if residual is not None:
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
    return y, _Call(plan, tuple(y.shape), y.stride(), od, y.device, dev)


# The op: what torch.compile, torch.export, fake tensors and every tracing mode see. Defined with
# torch.library.Library (schema, CUDA kernel, fake kernel) rather than torch.library.custom_op:
# custom_op adds a Python autograd layer to every call (~17 us of host time on a 2-core CPU probe,
# docs/decisions.md: host-cost), and this op has no backward anyway -- the implementation refuses
# inputs that require grad. Plain eager calls of igemm.conv2d skip the dispatcher too (_direct_ok).
_SCHEMA = ("conv2d(Tensor x, Tensor w, Tensor? bias, Tensor? scale, Tensor? residual, "
           "int[] stride, int[] padding, int[] dilation, int groups, float alpha, float beta, "
           "str activation, float act_param, ScalarType? out_dtype) -> Tensor")
_LIB = torch.library.Library("igemm", "DEF")
_LIB.define(_SCHEMA)


def _load_cpp_op():
    """The C++ kernel of the op (csrc/conv2d_op.cpp, `make torchop`: igemm_torch_op.so beside
    libigemm), when it was built and loads: True. It calls the Python kernel, as igemm::conv2d_py,
    for what its table does not hold."""
    from ._lib import library_path
    try:
        path = os.path.join(os.path.dirname(os.path.abspath(library_path())), "igemm_torch_op.so")
        if not os.path.isfile(path):
            return False
        torch.ops.load_library(path)
        torch.ops.igemm._cpp_set_run(ctypes.cast(lib().igemm_plan_run, ctypes.c_void_p).value)
        return True
    except Exception:  # a build for another torch, a missing symbol: the Python kernel
        return False


_CPP_OP = _load_cpp_op()
if _CPP_OP:
    _LIB.define(_SCHEMA.replace("conv2d(", "conv2d_py(", 1))
    _LIB.impl("conv2d_py", _conv2d_impl, "CUDA")
else:
    _LIB.impl("conv2d", _conv2d_impl, "CUDA")

# The OpOverload is what torch.compile sees (and puts in the graph).
_OP = torch.ops.igemm.conv2d.default


@torch.library.register_fake("igemm::conv2d", lib=_LIB)
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


def _plain(t):
    return t is None or (type(t) is _Tensor and not _wrapped(t)
                         and not (t.requires_grad and _grad_enabled()))


def _direct_ok(x, w, bias, scale, residual):
    """True when the op's implementation may be called directly: plain eager tensors (no
    subclass such as FakeTensor, no functorch wrapper, no gradient asked for), no
    torch.compile / torch.jit tracing, no dispatch or function mode. Otherwise the call goes
    through torch.ops.igemm.conv2d, so every tracer and mode sees the op."""
    return (_DIRECT_CAPABLE and not _is_compiling() and _plain(x) and _plain(w)
            and _plain(bias) and _plain(scale) and _plain(residual)
            and _dispatch_depth() == 0 and not _function_mode_on() and _tracing_state() is None)


def _act_opt(v):
    if v is None or type(v) is str:
        return v
    if type(v) is tuple and len(v) == 2 and type(v[0]) is str and type(v[1]) in (float, int):
        return v
    raise _Miss


def _dtype_opt(v):
    if v is None or type(v) is str or type(v) is torch.dtype:
        return v
    raise _Miss


def conv2d(x, w, bias=None, stride=1, padding=0, dilation=1, groups=1, scale=None,
           residual=None, alpha=1.0, beta=1.0, activation=None, out_dtype=None):
    key = None
    if _FAST_CAPABLE and type(x) is _Tensor and type(w) is _Tensor:
        try:
            # (the common cases inline: an int option, an absent operand, a float)
            key = (0, x.shape, w.shape, x.dtype, w.dtype, x.get_device(), w.get_device(),
                   stride if type(stride) is int else _int_opt(stride),
                   padding if type(padding) is int else _int_opt(padding),
                   dilation if type(dilation) is int else _int_opt(dilation),
                   groups if type(groups) is int else _int_opt(groups),
                   None if bias is None else _tensor_sig(bias),
                   None if scale is None else _tensor_sig(scale),
                   None if residual is None else _tensor_sig(residual),
                   alpha if type(alpha) is float else _float_opt(alpha),
                   beta if type(beta) is float else _float_opt(beta),
                   activation if activation is None else _act_opt(activation),
                   out_dtype if out_dtype is None else _dtype_opt(out_dtype))
        except _Miss:
            key = None
        if key is not None:
            c = _calls.get(key)
            if c is not None:
                y = c.launch(x, w, bias, scale, residual)
                if y is not None:
                    return y
    y, call = conv2d_full(x, w, bias, stride, padding, dilation, groups, scale, residual,
                          alpha, beta, activation, out_dtype)
    if key is not None and call is not None:
        _remember(key, call)
    return y


def conv2d_full(x, w, bias=None, stride=1, padding=0, dilation=1, groups=1, scale=None,
                residual=None, alpha=1.0, beta=1.0, activation=None, out_dtype=None):
    """conv2d without the signature lookup -> (y, the _Call that can repeat it, or None when
    the call went through torch.ops.igemm.conv2d: a tracer, a mode, gradients)."""
    args = prepare(x, w, bias, stride, padding, dilation, groups, scale, residual, alpha, beta,
                   activation, out_dtype)
    if _direct_ok(args[0], args[1], args[2], args[3], args[4]):
        return _conv2d_run(*args)
    return _OP(*args), None


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
