"""numpy path: NHWC / KRSC host arrays through igemm_conv2d_reference (CPU, no GPU needed)."""

import ctypes

import numpy as np

from . import _args
from ._lib import DType, check, lib, make_desc, make_epilogue, output_dims

_IN_NAMES = {
    "fp16": DType.F16, "f16": DType.F16, "float16": DType.F16, "half": DType.F16,
    "bf16": DType.BF16, "bfloat16": DType.BF16,
}
_OUT_NAMES = dict(_IN_NAMES, fp32=DType.F32, f32=DType.F32, float32=DType.F32,
                  float=DType.F32)


def _is_bf16_dtype(dt):
    # ml_dtypes.bfloat16 and friends: a 2-byte numpy extension dtype named "bfloat16"
    return dt.itemsize == 2 and dt.name == "bfloat16"


def float_to_bf16_bits(a):
    """float array -> uint16 array of bf16 bits, rounded to nearest even (NaN stays NaN)."""
    f = np.ascontiguousarray(a, dtype=np.float32)
    u = f.view(np.uint32).astype(np.uint64)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(f)
    if nan.any():
        # keep the sign, force a quiet-NaN payload so truncation cannot yield infinity
        rounded[nan] = ((u[nan] >> 16).astype(np.uint16) | np.uint16(0x0040))
    return rounded


def bf16_bits_to_float(bits):
    """uint16 array of bf16 bits -> float32 array (exact)."""
    b = np.ascontiguousarray(bits, dtype=np.uint16)
    return (b.astype(np.uint32) << 16).view(np.float32)


def _dtype_name(arg):
    """Normalise a dtype-ish argument (str, numpy dtype / type) to a lowercase name."""
    if isinstance(arg, str):
        return arg.lower()
    try:
        dt = np.dtype(arg)
    except TypeError:
        return str(arg).replace("torch.", "").lower()
    if _is_bf16_dtype(dt):
        return "bfloat16"
    return dt.name


def _input_kind(arr, name, in_dtype):
    """-> DType the array is taken as (F16 or BF16), checking arr's dtype can be converted."""
    dt = arr.dtype
    if in_dtype is not None:
        key = _dtype_name(in_dtype)
        if key not in _IN_NAMES:
            raise ValueError("in_dtype = %r: expected 'fp16' or 'bf16'" % (in_dtype,))
        kind = _IN_NAMES[key]
        if dt.kind != "f" and not _is_bf16_dtype(dt):
            if not (dt == np.uint16 and kind == DType.BF16):
                raise TypeError("%s.dtype = %s: expected a floating-point array (or uint16 "
                                "bf16 bits with in_dtype='bf16')" % (name, dt))
        return kind
    if _is_bf16_dtype(dt):
        return DType.BF16
    if dt == np.float16:
        return DType.F16
    if dt in (np.float32, np.float64):
        return DType.BF16
    raise TypeError("%s.dtype = %s: expected float16 (fp16 path), float32/float64 (rounded "
                    "to bf16) or bfloat16; pass in_dtype= to choose" % (name, dt))


def _to_kind(arr, kind):
    """Array -> C-contiguous array holding `kind` elements (float16 or uint16 bf16 bits)."""
    dt = arr.dtype
    if kind == DType.F16:
        return np.ascontiguousarray(arr, dtype=np.float16)
    if kind == DType.BF16:
        if _is_bf16_dtype(dt) or dt == np.uint16:
            return np.ascontiguousarray(arr).view(np.uint16)
        return float_to_bf16_bits(arr)
    return np.ascontiguousarray(arr, dtype=np.float32)


def _vec(v, k, name):
    if v is None:
        return None
    a = np.asarray(v)
    if a.dtype.kind not in "fiu" and not _is_bf16_dtype(a.dtype):
        raise TypeError("%s.dtype = %s: expected a float array of length %d" % (name, a.dtype, k))
    a = np.ascontiguousarray(a, dtype=np.float32).reshape(-1) if a.ndim <= 1 else a
    if a.ndim != 1 or a.shape[0] != k:
        raise ValueError("%s.shape = %s: expected (%d,) (one value per output channel)"
                         % (name, tuple(np.shape(v)), k))
    return a


def _ptr(a):
    return None if a is None else a.ctypes.data


def conv2d(x, w, bias=None, stride=1, padding=0, dilation=1, groups=1, *, scale=None,
           residual=None, alpha=1.0, beta=1.0, activation=None, out_dtype=None, in_dtype=None):
    if not isinstance(w, np.ndarray):
        raise TypeError("w is a %s but x is a numpy array: pass both as numpy arrays (NHWC x, "
                        "KRSC w)" % type(w).__name__)
    if x.ndim != 4:
        raise ValueError("x.ndim = %d (shape %s): expected a 4-d NHWC array (N, H, W, C)"
                         % (x.ndim, x.shape))
    if w.ndim != 4:
        raise ValueError("w.ndim = %d (shape %s): expected a 4-d KRSC array (K, R, S, C/groups)"
                         % (w.ndim, w.shape))
    groups = _args._as_int(groups, "groups")
    n, h, wd, c = (int(v) for v in x.shape)
    k, r, s, cg = (int(v) for v in w.shape)
    if groups < 1:
        raise ValueError("groups = %d: must be >= 1" % groups)
    if cg * groups != c:
        raise ValueError("w.shape = %s with groups = %d needs x's C = %d, but x.shape = %s "
                         "(NHWC) has C = %d" % (w.shape, groups, cg * groups, x.shape, c))
    stride, dilation, pads, act_name, act_param, alpha, beta = _args.conv_options(
        stride, padding, dilation, activation, alpha, beta, r, s)

    kx = _input_kind(x, "x", in_dtype)
    kw = _input_kind(w, "w", in_dtype)
    if kx != kw:
        raise TypeError("x.dtype = %s and w.dtype = %s are taken as different types (%s, %s): "
                        "pass in_dtype='fp16' or 'bf16'" % (x.dtype, w.dtype, kx.name, kw.name))

    # output type
    out_view = None
    if out_dtype is None:
        ky = kx
    else:
        key = _dtype_name(out_dtype)
        if key not in _OUT_NAMES:
            raise ValueError("out_dtype = %r: expected float16, float32 or 'bf16'" % (out_dtype,))
        ky = _OUT_NAMES[key]
        if key == "bfloat16" and not isinstance(out_dtype, str):
            out_view = np.dtype(out_dtype)  # an ml_dtypes bfloat16: return that dtype

    desc = make_desc(n, h, wd, c, k, r, s, groups, pads, stride, dilation, kx, ky)
    p, q = output_dims(desc)  # validates every field (IgemmError naming it)

    xa = _to_kind(x, kx)
    wa = _to_kind(w, kx)
    sc = _vec(scale, k, "scale")
    bi = _vec(bias, k, "bias")
    res = None
    if residual is not None:
        rr = np.asarray(residual)
        if rr.shape != (n, p, q, k):
            raise ValueError("residual.shape = %s: expected the output's NHWC shape %s"
                             % (rr.shape, (n, p, q, k)))
        if rr.dtype.kind != "f" and not _is_bf16_dtype(rr.dtype):
            raise TypeError("residual.dtype = %s: expected a float array" % (rr.dtype,))
        res = _to_kind(rr, ky)
    epi = make_epilogue(alpha, beta, sc is not None, bi is not None, res is not None,
                        _args.act_code(act_name), act_param)

    ynp = {DType.F16: np.float16, DType.BF16: np.uint16, DType.F32: np.float32}[ky]
    y = np.empty((n, p, q, k), dtype=ynp)
    if y.size:
        check(lib().igemm_conv2d_reference(ctypes.byref(desc), ctypes.byref(epi), _ptr(xa),
                                           _ptr(wa), _ptr(sc), _ptr(bi), _ptr(res), _ptr(y)),
              "igemm_conv2d_reference")
    if ky == DType.BF16:
        if out_view is not None:
            return y.view(out_view)
        return bf16_bits_to_float(y)
    return y
