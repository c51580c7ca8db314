"""ctypes binding over libigemm.so (no compile step).

The structs below mirror include/igemm.h field for field; C enums are int-sized (c_int).
The library is loaded on first use, so `import igemm` works even where it is absent.
"""

import ctypes
import ctypes.util
import enum
import math
import os
import threading

__all__ = [
    "IgemmError", "LibraryNotFoundError", "Status", "DType", "Activation", "Path",
    "ConvDesc", "Epilogue", "GemmDesc", "PoolDesc", "PlanOptions", "lib", "library_path", "check",
]


class Status(enum.IntEnum):
    SUCCESS = 0
    INVALID_VALUE = 1
    NULL_POINTER = 2
    OVERFLOW = 3
    NOT_SUPPORTED = 4
    MISALIGNED = 5
    NO_DEVICE = 6
    CUDA_ERROR = 7
    OUT_OF_MEMORY = 8
    INTERNAL_ERROR = 9


class DType(enum.IntEnum):
    F16 = 0
    BF16 = 1
    F32 = 2


class Activation(enum.IntEnum):
    NONE = 0
    RELU = 1
    RELU6 = 2
    LEAKY_RELU = 3
    GELU_ERF = 4
    GELU_TANH = 5
    SILU = 6
    SIGMOID = 7
    TANH = 8
    HARDSWISH = 9
    HARDSIGMOID = 10


class Path(enum.IntEnum):
    AUTO = 0
    GENERAL = 1
    SM90 = 2
    DIRECT = 3
    MEMORY = 4
    SM100 = 5  # Blackwell (cc 10.0), after its first-use self-check on the device


class IgemmError(RuntimeError):
    """A libigemm call failed. `.status` is the igemm_status_t (a Status when known),
    `.message` the library's igemm_last_error() text, `.function` the C function."""

    def __init__(self, status, message, function=""):
        try:
            status = Status(status)
            name = status.name.lower().replace("_", " ")
        except ValueError:
            name = "unknown status"
        self.status = status
        self.message = message
        self.function = function
        prefix = (function + ": ") if function else ""
        super().__init__("%s%s (status %d): %s" % (prefix, name, int(status), message or "(no message)"))

    def __reduce__(self):  # picklable (multiprocessing, pytest-xdist)
        return (type(self), (int(self.status), self.message, self.function))


class LibraryNotFoundError(OSError):
    """libigemm.so could not be found or loaded."""


_I64 = ctypes.c_int64
_DESC_INT_FIELDS = ("n", "h", "w", "c", "k", "r", "s", "groups", "pad_top", "pad_bottom",
                    "pad_left", "pad_right", "stride_h", "stride_w", "dil_h", "dil_w")


class ConvDesc(ctypes.Structure):
    """igemm_conv2d_desc_t."""
    _fields_ = [(name, _I64) for name in _DESC_INT_FIELDS] + [
        ("x_dtype", ctypes.c_int), ("w_dtype", ctypes.c_int), ("y_dtype", ctypes.c_int)]


class GemmDesc(ctypes.Structure):
    """igemm_gemm_desc_t."""
    _fields_ = [("m", _I64), ("n", _I64), ("k", _I64), ("batch", _I64), ("b_layout", ctypes.c_int),
                ("lda", _I64), ("ldb", _I64), ("ldd", _I64), ("batch_stride_a", _I64),
                ("batch_stride_b", _I64), ("batch_stride_d", _I64), ("a_dtype", ctypes.c_int),
                ("b_dtype", ctypes.c_int), ("d_dtype", ctypes.c_int)]


B_NK, B_KN = 0, 1


def make_gemm_desc(m, n, k, in_dtype, out_dtype):
    """A packed igemm_gemm_desc_t (batch 1, B stored N x K); OverflowError naming the field for a
    value outside int64."""
    d = GemmDesc()
    for name, v in (("m", m), ("n", n), ("k", k)):
        setattr(d, name, check_int64(int(v), "gemm descriptor " + name))
    d.batch = 1
    d.b_layout = B_NK
    d.lda, d.ldb, d.ldd = d.k, d.k, d.n
    d.batch_stride_a = d.batch_stride_b = d.batch_stride_d = 0
    d.a_dtype = d.b_dtype = int(in_dtype)
    d.d_dtype = int(out_dtype)
    return d


class Epilogue(ctypes.Structure):
    """igemm_epilogue_t."""
    _fields_ = [("alpha", ctypes.c_float), ("beta", ctypes.c_float),
                ("has_scale", ctypes.c_int), ("has_bias", ctypes.c_int),
                ("has_residual", ctypes.c_int), ("activation", ctypes.c_int),
                ("act_param", ctypes.c_float)]


_POOL_INT_FIELDS = ("n", "h", "w", "c", "r", "s", "pad_top", "pad_bottom", "pad_left", "pad_right",
                    "stride_h", "stride_w", "dil_h", "dil_w")


class PoolDesc(ctypes.Structure):
    """igemm_pool2d_desc_t."""
    _fields_ = [(name, _I64) for name in _POOL_INT_FIELDS] + [("dtype", ctypes.c_int)]


def make_pool_desc(n, h, w, c, r, s, pads, strides, dils, dtype):
    """An igemm_pool2d_desc_t; OverflowError naming the field for a value outside int64."""
    d = PoolDesc()
    vals = (n, h, w, c, r, s) + tuple(pads) + tuple(strides) + tuple(dils)
    for name, v in zip(_POOL_INT_FIELDS, vals):
        setattr(d, name, check_int64(int(v), "pool2d descriptor " + name))
    d.dtype = int(dtype)
    return d


class PlanOptions(ctypes.Structure):
    """igemm_plan_options_t."""
    _fields_ = [("path", ctypes.c_int), ("device", ctypes.c_int),
                ("hints", ctypes.c_void_p)]  # const igemm_plan_hints_t * (experimental; NULL here)


INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1
FLOAT32_MAX = 3.4028234663852886e38  # the largest finite float32


def check_int64(v, what):
    """v (a Python int) if it fits int64, else OverflowError naming what (ctypes would wrap it
    silently: padding = 2**64 + 1 would become 1)."""
    if not INT64_MIN <= v <= INT64_MAX:
        raise OverflowError("%s = %d: does not fit a 64-bit signed integer [%d, %d]"
                            % (what, v, INT64_MIN, INT64_MAX))
    return v


def check_float32(v, what):
    """v (a Python float) if it is finite and fits float32, else ValueError (NaN, inf) or
    OverflowError (finite but rounds to inf as a float32) naming what (ctypes would round 1e39
    to inf and pass NaN silently)."""
    if math.isnan(v) or math.isinf(v):
        raise ValueError("%s = %r: must be a finite number" % (what, v))
    if abs(v) > FLOAT32_MAX:
        raise OverflowError("%s = %r: does not fit a 32-bit float (|value| <= %.8g)"
                            % (what, v, FLOAT32_MAX))
    return v


def make_desc(n, h, w, c, k, r, s, groups, pads, strides, dils, x_dtype, y_dtype):
    """An igemm_conv2d_desc_t; OverflowError naming the field for a value outside int64."""
    d = ConvDesc()
    vals = (n, h, w, c, k, r, s, groups) + tuple(pads) + tuple(strides) + tuple(dils)
    for name, v in zip(_DESC_INT_FIELDS, vals):
        setattr(d, name, check_int64(int(v), "conv2d descriptor " + name))
    d.x_dtype = d.w_dtype = int(x_dtype)
    d.y_dtype = int(y_dtype)
    return d


def make_epilogue(alpha, beta, has_scale, has_bias, has_residual, act, act_param):
    """An igemm_epilogue_t; ValueError/OverflowError naming the field for a float that is NaN,
    infinite or outside float32."""
    e = Epilogue()
    e.alpha = check_float32(float(alpha), "epilogue alpha")
    e.beta = check_float32(float(beta), "epilogue beta")
    e.has_scale, e.has_bias, e.has_residual = int(has_scale), int(has_bias), int(has_residual)
    e.activation = int(act)
    e.act_param = check_float32(float(act_param), "epilogue act_param")
    return e


_P = ctypes.POINTER
_vp = ctypes.c_void_p
_PROTOTYPES = {
    "igemm_version_string": (ctypes.c_char_p, ()),
    "igemm_status_string": (ctypes.c_char_p, (ctypes.c_int,)),
    "igemm_last_error": (ctypes.c_char_p, ()),
    "igemm_conv2d_validate": (ctypes.c_int, (_P(ConvDesc),)),
    "igemm_conv2d_output_dims": (ctypes.c_int, (_P(ConvDesc), _P(_I64), _P(_I64))),
    "igemm_plan_create": (ctypes.c_int, (_P(_vp), _P(ConvDesc), _P(Epilogue), _P(PlanOptions))),
    "igemm_plan_run": (ctypes.c_int, (_vp, _vp, _vp, _vp, _vp, _vp, _vp, _vp)),
    "igemm_plan_describe": (ctypes.c_char_p, (_vp,)),
    "igemm_plan_path": (ctypes.c_int, (_vp,)),
    "igemm_plan_workspace_bytes": (ctypes.c_size_t, (_vp,)),
    "igemm_plan_destroy": (None, (_vp,)),
    "igemm_conv2d_reference": (ctypes.c_int, (_P(ConvDesc), _P(Epilogue), _vp, _vp, _vp, _vp,
                                              _vp, _vp)),
    "igemm_gemm_validate": (ctypes.c_int, (_P(GemmDesc),)),
    "igemm_gemm_desc_packed": (GemmDesc, (_I64, _I64, _I64, _I64, ctypes.c_int, ctypes.c_int, ctypes.c_int)),
    "igemm_gemm_plan_create": (ctypes.c_int, (_P(_vp), _P(GemmDesc), _P(Epilogue), _P(PlanOptions))),
    "igemm_pool2d_validate": (ctypes.c_int, (_P(PoolDesc),)),
    "igemm_pool2d_output_dims": (ctypes.c_int, (_P(PoolDesc), _P(_I64), _P(_I64))),
    "igemm_maxpool2d": (ctypes.c_int, (_P(PoolDesc), _vp, _vp, _vp)),
    "igemm_maxpool2d_reference": (ctypes.c_int, (_P(PoolDesc), _vp, _vp)),
    "igemm_avgpool2d": (ctypes.c_int, (_P(PoolDesc), ctypes.c_int, _vp, _vp, _vp)),
    "igemm_avgpool2d_reference": (ctypes.c_int, (_P(PoolDesc), ctypes.c_int, _vp, _vp)),
    "igemm_device_count": (ctypes.c_int, ()),
    "igemm_conv2d_desc_default": (ConvDesc, ()),
    "igemm_epilogue_default": (Epilogue, ()),
    "igemm_plan_options_default": (PlanOptions, ()),
    "igemm_float_to_bf16": (ctypes.c_uint16, (ctypes.c_float,)),
    "igemm_bf16_to_float": (ctypes.c_float, (ctypes.c_uint16,)),
    "igemm_float_to_f16": (ctypes.c_uint16, (ctypes.c_float,)),
    "igemm_f16_to_float": (ctypes.c_float, (ctypes.c_uint16,)),
}

_lock = threading.Lock()
_lib = None
_lib_path = None


def _candidates():
    """(description, path-or-name) in search order."""
    out = []
    env = os.environ.get("IGEMM_LIBRARY")
    if env:
        return [("IGEMM_LIBRARY", env)]
    here = os.path.dirname(os.path.abspath(__file__))
    out.append(("package directory", os.path.join(here, "libigemm.so")))
    out.append(("source tree build/", os.path.normpath(os.path.join(here, "..", "..", "build",
                                                                    "libigemm.so"))))
    found = ctypes.util.find_library("igemm")
    if found:
        out.append(("find_library('igemm')", found))
    out.append(("dynamic loader", "libigemm.so.0"))
    out.append(("dynamic loader", "libigemm.so"))
    return out


def _load():
    global _lib, _lib_path
    tried = []
    for how, path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append("%s: %s (no such file)" % (how, path))
            continue
        try:
            handle = ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s: %s (%s)" % (how, path, e))
            continue
        missing = [name for name in _PROTOTYPES if not hasattr(handle, name)]
        if missing:
            tried.append("%s: %s (lacks %s)" % (how, path, ", ".join(missing)))
            continue
        for name, (restype, argtypes) in _PROTOTYPES.items():
            fn = getattr(handle, name)
            fn.restype = restype
            fn.argtypes = list(argtypes)
        _lib, _lib_path = handle, path
        return
    raise LibraryNotFoundError(
        "libigemm.so not found; set IGEMM_LIBRARY=/path/to/libigemm.so (build it with `make` "
        "at the repository root). Tried: " + "; ".join(tried))


def lib():
    """The loaded ctypes.CDLL (loads it on first call)."""
    if _lib is None:
        with _lock:
            if _lib is None:
                _load()
    return _lib


def library_path():
    """Path (or name) libigemm was loaded from; loads it if needed."""
    lib()
    return _lib_path


def last_error():
    msg = lib().igemm_last_error()
    return msg.decode("utf-8", "replace") if msg else ""


def check(status, function):
    """Raise IgemmError for a failing status, with igemm_last_error() of this thread."""
    if status != 0:
        raise IgemmError(status, last_error(), function)


def output_dims(desc):
    """(p, q) of desc via igemm_conv2d_output_dims (validates desc; raises IgemmError)."""
    p, q = _I64(0), _I64(0)
    check(lib().igemm_conv2d_output_dims(ctypes.byref(desc), ctypes.byref(p), ctypes.byref(q)),
          "igemm_conv2d_output_dims")
    return p.value, q.value


class Plan(object):
    """Owns an igemm_plan_t*; destroyed with the object."""

    __slots__ = ("_handle", "_destroy", "key", "__weakref__")

    def __init__(self, desc, epi, device=-1, path=Path.AUTO, key=None):
        """desc: a ConvDesc (igemm_plan_create) or a GemmDesc (igemm_gemm_plan_create)."""
        L = lib()
        opts = PlanOptions()
        opts.path = int(path)
        opts.device = int(device)
        handle = _vp()
        self._handle = None
        self._destroy = L.igemm_plan_destroy
        self.key = key
        gemm = isinstance(desc, GemmDesc)
        create = L.igemm_gemm_plan_create if gemm else L.igemm_plan_create
        check(create(ctypes.byref(handle), ctypes.byref(desc), ctypes.byref(epi), ctypes.byref(opts)),
              "igemm_gemm_plan_create" if gemm else "igemm_plan_create")
        self._handle = handle.value

    def run(self, x, w, scale, bias, residual, y, stream):
        """Pointers as ints (0/None for absent operands); stream a cudaStream_t as int."""
        check(lib().igemm_plan_run(self._handle, x, w, scale or None, bias or None,
                                   residual or None, y, stream or None), "igemm_plan_run")

    def describe(self):
        s = lib().igemm_plan_describe(self._handle)
        return s.decode("utf-8", "replace") if s else ""

    @property
    def path(self):
        return Path(lib().igemm_plan_path(self._handle))

    @property
    def workspace_bytes(self):
        return int(lib().igemm_plan_workspace_bytes(self._handle))

    def __del__(self):
        h, self._handle = self._handle, None
        if h:
            try:
                self._destroy(h)
            except Exception:  # interpreter shutdown
                pass
