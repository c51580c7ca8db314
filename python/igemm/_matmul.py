"""torch path of igemm.matmul: d = a @ b (torch.matmul's semantics for a (..., M, K) and b (..., K, N)
CUDA tensors of float16 or bfloat16, batch dimensions broadcast) through a cached GEMM plan
(igemm_gemm_plan_create), as the op igemm::matmul (schema, CUDA kernel, fake kernel). The operands
are read in place where the GEMM descriptor can describe them: a with unit stride along K (row
pitch lda), b either with unit stride along N (stored K x N, pitch ldb) or along K (a transposed
N x K matrix such as weight.t(): the conv engine's fast layout), each operand's batch dimensions
one stride apart (or broadcast: stride 0); anything else is copied to a contiguous tensor first.
EXPERIMENTAL (issue 27): not yet measured against cuBLAS."""

import threading
from typing import Optional

import torch

from . import _torch as _t
from ._lib import B_KN, B_NK, GemmDesc, Plan, check_int64, make_epilogue

_plans = {}
_lock = threading.Lock()


def clear_cache():
    with _lock:
        _plans.clear()


def _batch_stride(t, batch_shape):
    """The one stride that walks t's (broadcast) batch dimensions in row-major order over
    batch_shape, 0 if t is the same matrix for every batch entry, or None (not expressible)."""
    nb = t.dim() - 2
    lead = len(batch_shape) - nb
    sizes = [1] * lead + list(t.shape[:-2])
    strides = [0] * lead + list(t.stride()[:-2])
    # broadcast (size-1) dimensions of t contribute stride 0
    strides = [0 if s == 1 and b != 1 else st for s, st, b in zip(sizes, strides, batch_shape)]
    live = [(b, st) for b, st in zip(batch_shape, strides) if b != 1]
    if not live or all(st == 0 for _, st in live):
        return 0
    if any(st == 0 for _, st in live):
        return None
    # row-major: each dimension's stride is the next one's stride times its size
    for (b_i, st_i), (b_n, st_n) in zip(live, live[1:]):
        if st_i != st_n * b_n:
            return None
    return live[-1][1]


def _dense(t, batch_shape):
    """t as a contiguous tensor whose batch dimensions one stride describes: contiguous, or if its
    broadcast batch dimensions mix with real ones, expanded to batch_shape first."""
    t = t.contiguous()
    if _batch_stride(t, batch_shape) is None:
        t = t.expand(tuple(batch_shape) + tuple(t.shape[-2:])).contiguous()
    return t


def gemm_layout(a, b):
    """(desc fields, a, b): the GEMM descriptor's geometry for a @ b and the operands as they will
    be read (copied to contiguous tensors where the descriptor cannot describe them). Pure: no
    GPU, usable on CPU and meta tensors. desc fields: m, n, k, batch, b_layout, lda, ldb, ldd,
    batch_stride_a, batch_stride_b, batch_stride_d, and the output's shape."""
    batch_shape = tuple(torch.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
    m, k = a.shape[-2], a.shape[-1]
    n = b.shape[-1]
    batch = 1
    for s in batch_shape:
        batch *= s
    # a: unit stride along K, rows lda apart
    if a.stride(-1) != 1 or (m > 1 and a.stride(-2) < k) or _batch_stride(a, batch_shape) is None:
        a = _dense(a, batch_shape)
    lda = a.stride(-2) if m > 1 else k
    # b: K x N rows (unit stride along N) or N x K columns (unit stride along K)
    if b.stride(-2) == 1 and (n == 1 or b.stride(-1) >= k) and k > 1:
        layout, ldb = B_NK, (b.stride(-1) if n > 1 else k)
    elif b.stride(-1) == 1 and (k == 1 or b.stride(-2) >= n):
        layout, ldb = B_KN, (b.stride(-2) if k > 1 else n)
    else:
        b = _dense(b, batch_shape)
        layout, ldb = B_KN, n
    if _batch_stride(b, batch_shape) is None:
        b = _dense(b, batch_shape)
        layout, ldb = B_KN, n
    sa, sb = _batch_stride(a, batch_shape), _batch_stride(b, batch_shape)
    out_shape = batch_shape + (m, n)
    return ({"m": m, "n": n, "k": k, "batch": batch, "b_layout": layout, "lda": lda, "ldb": ldb,
             "ldd": n, "batch_stride_a": sa, "batch_stride_b": sb, "batch_stride_d": m * n,
             "out_shape": out_shape}, a, b)


def _plan(dev, g, in_dt, od):
    key = (dev, in_dt, od) + tuple(g[f] for f in ("m", "n", "k", "batch", "b_layout", "lda", "ldb", "ldd",
                                                   "batch_stride_a", "batch_stride_b", "batch_stride_d"))
    plan = _plans.get(key)
    if plan is None:
        with _lock:
            plan = _plans.get(key)
            if plan is None:
                d = GemmDesc()
                for f in ("m", "n", "k", "batch", "lda", "ldb", "ldd", "batch_stride_a", "batch_stride_b",
                          "batch_stride_d"):
                    setattr(d, f, check_int64(int(g[f]), "gemm descriptor " + f))
                d.b_layout = int(g["b_layout"])
                d.a_dtype = d.b_dtype = int(_t._IN_DTYPES[in_dt])
                d.d_dtype = int(_t._OUT_DTYPES[od])
                epi = make_epilogue(1.0, 0.0, False, False, False, 0, 0.01)
                with torch.cuda.device(dev):
                    plan = Plan(d, epi, device=dev, key=key)
                _plans[key] = plan
    return plan


def _check(a, b, od):
    if a.dtype not in _t._IN_DTYPES or od not in _t._OUT_DTYPES:
        raise TypeError("a.dtype = %s, out_dtype = %s: expected float16/bfloat16 input and "
                        "float16/bfloat16/float32 output" % (a.dtype, od))
    if b.dtype != a.dtype:
        raise TypeError("b.dtype = %s but a.dtype = %s: they must be equal" % (b.dtype, a.dtype))
    if a.dim() < 2 or b.dim() < 2 or a.shape[-1] != b.shape[-2]:
        raise ValueError("a.shape = %s, b.shape = %s: expected (..., M, K) and (..., K, N)"
                         % (tuple(a.shape), tuple(b.shape)))
    if b.device != a.device:
        raise ValueError("b.device = %s but a.device = %s" % (b.device, a.device))
    try:
        torch.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except RuntimeError:
        raise ValueError("a.shape = %s, b.shape = %s: the batch dimensions do not broadcast"
                         % (tuple(a.shape), tuple(b.shape))) from None


def _matmul_impl(a: torch.Tensor, b: torch.Tensor, out_dtype: Optional[torch.dtype]) -> torch.Tensor:
    if _t._any_grad(a, b, None, None, None):
        raise RuntimeError("igemm::matmul is inference-only (it has no backward): call it under "
                           "torch.no_grad() or on tensors that do not require grad")
    od = a.dtype if out_dtype is None else out_dtype
    _check(a, b, od)
    g, a, b = gemm_layout(a, b)
    d = a.new_empty(g["out_shape"], dtype=od)
    if d.numel() == 0:
        return d
    if g["k"] == 0:
        return d.zero_()
    if a.data_ptr() % 16:
        a = a.clone()
        g, a, b = gemm_layout(a, b)
    if b.data_ptr() % 16:
        b = b.clone()
        g, a, b = gemm_layout(a, b)
    dev = a.get_device()
    plan = _plan(dev, g, a.dtype, od)
    with torch.cuda.device(dev):
        stream = torch.cuda.current_stream(dev).cuda_stream
        plan.run(a.data_ptr(), b.data_ptr(), None, None, None, d.data_ptr(), stream)
    return d


_t._LIB.define("matmul(Tensor a, Tensor b, ScalarType? out_dtype) -> Tensor")
_t._LIB.impl("matmul", _matmul_impl, "CUDA")
_OP = torch.ops.igemm.matmul.default


@torch.library.register_fake("igemm::matmul", lib=_t._LIB)
def _matmul_fake(a, b, out_dtype):
    od = a.dtype if out_dtype is None else out_dtype
    shape = tuple(torch.broadcast_shapes(a.shape[:-2], b.shape[:-2])) + (a.shape[-2], b.shape[-1])
    return a.new_empty(shape, dtype=od)


def matmul(a, b, out_dtype=None):
    if not isinstance(a, torch.Tensor) or not isinstance(b, torch.Tensor):
        raise TypeError("a and b must be torch.Tensors (got %s, %s)" % (type(a).__name__, type(b).__name__))
    if a.device.type != "cuda":
        raise ValueError("a.device = %s: igemm.matmul runs on CUDA tensors" % (a.device,))
    od = _t._parse_out_dtype(out_dtype)
    _check(a, b, a.dtype if od is None else od)
    if _t._direct_ok(a, b, None, None, None):
        return _matmul_impl(a, b, od)
    return _OP(a, b, od)
