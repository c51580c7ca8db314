"""torch path of igemm.max_pool2d and igemm.avg_pool2d / adaptive_avg_pool2d (output 1): CUDA
tensors in channels_last memory through igemm_maxpool2d / igemm_avgpool2d, as the ops
igemm::max_pool2d and igemm::avg_pool2d (schema, CUDA kernel, fake kernel), with the same
host-cost fast path as conv2d (_torch: a signature of the raw arguments -> a prepared call)."""

import ctypes
from typing import List

import torch

from . import _args
from . import _torch as _t
from ._lib import DType, check, lib, make_pool_desc

_DTYPES = {torch.float16: DType.F16, torch.bfloat16: DType.BF16}


def _pair(v, what):
    return _args.pair(v, what)


def normalise(x, kernel_size, stride, padding, dilation, ceil_mode):
    """Checks the arguments -> (kernel, stride, pads (top, bottom, left, right), dilation);
    ceil_mode is folded into extra bottom / right padding (padding never wins a max)."""
    r, s = _pair(kernel_size, "kernel_size")
    stride = (r, s) if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) \
        else _pair(stride, "stride")
    ph, pw = _pair(padding, "padding")
    dil = _pair(dilation, "dilation")
    if not isinstance(ceil_mode, bool):
        raise TypeError("ceil_mode = %r: expected a bool" % (ceil_mode,))
    if min(r, s) < 1 or min(stride) < 1 or min(dil) < 1 or min(ph, pw) < 0:
        raise ValueError("kernel_size = %s, stride = %s, dilation = %s, padding = %s: kernel, stride "
                         "and dilation must be >= 1, padding >= 0" % ((r, s), stride, dil, (ph, pw)))
    pads = [ph, ph, pw, pw]
    if ceil_mode:  # PyTorch's rule: round up, but the last window must start inside the input or the left padding
        for i, (size, k, st, d, p) in enumerate(((x.shape[2], r, stride[0], dil[0], ph),
                                                (x.shape[3], s, stride[1], dil[1], pw))):
            span = d * (k - 1) + 1
            out = -(-(size + 2 * p - span) // st) + 1
            if (out - 1) * st >= size + p:
                out -= 1
            pads[2 * i + 1] = max(p, (out - 1) * st + span - size - p)
    return [r, s], list(stride), pads, list(dil)


def _out_hw(x, kernel, stride, pads, dil):
    p = _args.out_size(x.shape[2], pads[0], pads[1], dil[0], kernel[0], stride[0])
    q = _args.out_size(x.shape[3], pads[2], pads[3], dil[1], kernel[1], stride[1])
    return p, q


class _PoolCall(object):
    """A prepared max or average pool: the descriptor (by reference), the output geometry and,
    for an average, count_include_pad (avg: None for a max pool)."""

    __slots__ = ("desc", "ref", "fn", "avg", "shape", "strides", "dtype", "device", "dev")

    def __init__(self, desc, shape, strides, dtype, device, dev, avg=None):
        self.desc = desc
        self.ref = ctypes.byref(desc)
        self.avg = avg
        self.fn = lib().igemm_maxpool2d if avg is None else lib().igemm_avgpool2d
        self.shape, self.strides, self.dtype, self.device, self.dev = shape, strides, dtype, \
            device, dev

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def launch(self, x, gate=True):
        if gate and not _t._direct_ok(x, None, None, None, None):  # the conv path's gate
            return None
        if not x.is_contiguous(memory_format=_t._CL) or _t._cur_device() != self.dev:
            return None
        y = torch.empty_strided(self.shape, self.strides, dtype=self.dtype, device=self.device)
        if self.avg is None:
            st = self.fn(self.ref, x.data_ptr(), y.data_ptr(), _t._raw_stream(self.dev))
        else:
            st = self.fn(self.ref, self.avg, x.data_ptr(), y.data_ptr(), _t._raw_stream(self.dev))
        if st:
            check(st, "igemm_maxpool2d" if self.avg is None else "igemm_avgpool2d")
        return y


def _run(x, kernel, stride, pads, dil, avg=None):
    """Checks the normalised arguments and runs -> (y, _PoolCall). avg: None (max pool) or
    count_include_pad (0 / 1) of an average pool."""
    what = "igemm.max_pool2d" if avg is None else "igemm.avg_pool2d"
    if x.dtype not in _DTYPES:
        raise TypeError("x.dtype = %s: %s takes torch.float16 or torch.bfloat16" % (x.dtype, what))
    if x.dim() != 4:
        raise ValueError("x.dim() = %d (shape %s): expected 4-d (N, C, H, W)"
                         % (x.dim(), tuple(x.shape)))
    n, c, h, w = (int(v) for v in x.shape)
    desc = make_pool_desc(n, h, w, c, kernel[0], kernel[1], pads, stride, dil, _DTYPES[x.dtype])
    check(lib().igemm_pool2d_validate(ctypes.byref(desc)), "igemm_pool2d_validate")
    p, q = _out_hw(x, kernel, stride, pads, dil)
    y = x.new_empty_strided((n, c, p, q), (p * q * c, 1, q * c, c))
    dev = x.get_device()
    call = _PoolCall(desc, (n, c, p, q), y.stride(), x.dtype, x.device, dev, avg)
    if not x.is_contiguous(memory_format=_t._CL):
        x = x.contiguous(memory_format=_t._CL)
    with torch.cuda.device(dev):
        stream = torch.cuda.current_stream(dev).cuda_stream
        if avg is None:
            check(lib().igemm_maxpool2d(ctypes.byref(desc), x.data_ptr(), y.data_ptr(), stream),
                  "igemm_maxpool2d")
        else:
            check(lib().igemm_avgpool2d(ctypes.byref(desc), avg, x.data_ptr(), y.data_ptr(), stream),
                  "igemm_avgpool2d")
    return y, call


def _pool_impl(x: torch.Tensor, kernel: List[int], stride: List[int], padding: List[int],
               dilation: List[int]) -> torch.Tensor:
    if x.requires_grad and _t._grad_enabled():
        raise RuntimeError("igemm::max_pool2d is inference-only (it has no backward): call it "
                           "under torch.no_grad() (x requires grad)")
    key = None
    if _t._FAST_CAPABLE and type(x) is _t._Tensor:
        key = (3, x.shape, x.dtype, x.get_device(), tuple(kernel), tuple(stride), tuple(padding),
               tuple(dilation))
        c = _t._calls.get(key)
        if c is not None:
            y = c.launch(x, gate=False)
            if y is not None:
                return y
    y, call = _run(x, kernel, stride, padding, dilation)
    if key is not None:
        _t._remember(key, call)
    return y


_SCHEMA = "max_pool2d(Tensor x, int[] kernel, int[] stride, int[] padding, int[] dilation) -> Tensor"
_t._LIB.define(_SCHEMA)
_t._LIB.impl("max_pool2d", _pool_impl, "CUDA")
_OP = torch.ops.igemm.max_pool2d.default


def _empty_out(x, kernel, stride, padding, dilation):
    """The pool's output for x: N x C x P x Q, channels_last (the fake kernels' result)."""
    n, c = x.shape[0], x.shape[1]
    p, q = _out_hw(x, kernel, stride, padding, dilation)
    return x.new_empty_strided((n, c, p, q), (p * q * c, 1, q * c, c))


@torch.library.register_fake("igemm::max_pool2d", lib=_t._LIB)
def _pool_fake(x, kernel, stride, padding, dilation):
    return _empty_out(x, kernel, stride, padding, dilation)


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    key = None
    if _t._FAST_CAPABLE and type(x) is _t._Tensor:
        try:
            if type(ceil_mode) is not bool:
                raise _t._Miss
            key = (2, x.shape, x.dtype, x.get_device(), _t._int_opt(kernel_size),
                   None if stride is None else _t._int_opt(stride), _t._int_opt(padding),
                   _t._int_opt(dilation), ceil_mode)
        except _t._Miss:
            key = None
        if key is not None:
            c = _t._calls.get(key)
            if c is not None:
                y = c.launch(x)
                if y is not None:
                    return y
    _check_x(x, "igemm.max_pool2d")
    kernel, stride_n, pads, dil = normalise(x, kernel_size, stride, padding, dilation, ceil_mode)
    if _t._direct_ok(x, x, None, None, None):
        y, call = _run(x, kernel, stride_n, pads, dil)
        if key is not None:
            _t._remember(key, call)
        return y
    return _OP(x, kernel, stride_n, pads, dil)


# ------------------------------------------------------------------ average pooling

def _avg_impl(x: torch.Tensor, kernel: List[int], stride: List[int], padding: List[int],
              count_include_pad: bool) -> torch.Tensor:
    if x.requires_grad and _t._grad_enabled():
        raise RuntimeError("igemm::avg_pool2d is inference-only (it has no backward): call it "
                           "under torch.no_grad() (x requires grad)")
    cip = 1 if count_include_pad else 0
    key = None
    if _t._FAST_CAPABLE and type(x) is _t._Tensor:
        key = (5, x.shape, x.dtype, x.get_device(), tuple(kernel), tuple(stride), tuple(padding), cip)
        c = _t._calls.get(key)
        if c is not None:
            y = c.launch(x, gate=False)
            if y is not None:
                return y
    y, call = _run(x, kernel, stride, padding, [1, 1], cip)
    if key is not None:
        _t._remember(key, call)
    return y


_AVG_SCHEMA = ("avg_pool2d(Tensor x, int[] kernel, int[] stride, int[] padding, "
               "bool count_include_pad) -> Tensor")
_t._LIB.define(_AVG_SCHEMA)
_t._LIB.impl("avg_pool2d", _avg_impl, "CUDA")
_AVG_OP = torch.ops.igemm.avg_pool2d.default


@torch.library.register_fake("igemm::avg_pool2d", lib=_t._LIB)
def _avg_fake(x, kernel, stride, padding, count_include_pad):
    return _empty_out(x, kernel, stride, padding, [1, 1])


def _check_x(x, what):
    if not isinstance(x, torch.Tensor):
        raise TypeError("x is a %s: expected a torch.Tensor" % type(x).__name__)
    if x.dim() != 4:
        raise ValueError("x.dim() = %d (shape %s): expected 4-d (N, C, H, W)"
                         % (x.dim(), tuple(x.shape)))
    if x.device.type != "cuda":
        raise ValueError("x.device = %s: %s runs on CUDA tensors" % (x.device, what))


def _avg_run(x, kernel, stride, pads, cip):
    if _t._direct_ok(x, x, None, None, None):
        return _avg_impl(x, kernel, stride, pads, bool(cip))
    return _AVG_OP(x, kernel, stride, pads, bool(cip))


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """F.avg_pool2d on CUDA float16/bfloat16 tensors (fp32 sums, one rounding). ceil_mode is
    taken where it adds no window; divisor_override is not (ValueError: use F.avg_pool2d)."""
    _check_x(x, "igemm.avg_pool2d")
    if divisor_override is not None:
        raise ValueError("divisor_override = %r: igemm.avg_pool2d does not take it (F.avg_pool2d "
                         "does)" % (divisor_override,))
    if not isinstance(count_include_pad, bool):
        raise TypeError("count_include_pad = %r: expected a bool" % (count_include_pad,))
    kernel, stride_n, pads, _ = normalise(x, kernel_size, stride, padding, 1, ceil_mode)
    if ceil_mode and (pads[1] != pads[0] or pads[3] != pads[2]):
        raise ValueError("ceil_mode = True adds a window past the input here; igemm.avg_pool2d "
                         "does not take it (F.avg_pool2d does)")
    return _avg_run(x, kernel, stride_n, pads, 1 if count_include_pad else 0)


def adaptive_avg_pool2d(x, output_size):
    """F.adaptive_avg_pool2d for output_size 1 (or (1, 1)): the mean over each image, as the
    global average pool of a classifier head."""
    if output_size not in (1, (1, 1), [1, 1]):
        raise ValueError("output_size = %r: igemm.adaptive_avg_pool2d takes 1 or (1, 1) (a global "
                         "average); F.adaptive_avg_pool2d takes the rest" % (output_size,))
    _check_x(x, "igemm.adaptive_avg_pool2d")
    h, w = int(x.shape[2]), int(x.shape[3])
    return _avg_run(x, [h, w], [1, 1], [0, 0, 0, 0], 1)

