"""torch path of igemm.linear: y = act(alpha * scale * (x @ weight^T) + bias + beta * residual) on
CUDA tensors through a cached GEMM plan (igemm_gemm_plan_create: today the GEMM runs on the conv
engine as a 1x1 conv), as the op igemm::linear (schema, CUDA kernel, fake kernel). EXPERIMENTAL
(issue 27): not yet measured against cuBLAS."""

import threading
from typing import Optional

import torch

from . import _args
from . import _torch as _t
from ._lib import Plan, make_epilogue, make_gemm_desc

_plans = {}
_lock = threading.Lock()


def clear_cache():
    with _lock:
        _plans.clear()


def _plan(dev, m, n, k, in_dt, od, has_scale, has_bias, has_res, alpha, beta, act, act_param):
    key = (dev, m, n, k, in_dt, od, has_scale, has_bias, has_res, alpha, beta, act, act_param)
    plan = _plans.get(key)
    if plan is None:
        with _lock:
            plan = _plans.get(key)
            if plan is None:
                desc = make_gemm_desc(m, n, k, _t._IN_DTYPES[in_dt], _t._OUT_DTYPES[od])
                epi = make_epilogue(alpha, beta, has_scale, has_bias, has_res, _args.act_code(act),
                                    act_param)
                with torch.cuda.device(dev):
                    plan = Plan(desc, epi, device=dev, key=key)
                _plans[key] = plan
    return plan


def _check(x, w, bias, scale, residual, od):
    if x.dtype not in _t._IN_DTYPES or od not in _t._OUT_DTYPES:
        raise TypeError("x.dtype = %s, out_dtype = %s: expected float16/bfloat16 input and "
                        "float16/bfloat16/float32 output" % (x.dtype, od))
    if w.dtype != x.dtype:
        raise TypeError("weight.dtype = %s but x.dtype = %s: they must be equal" % (w.dtype, x.dtype))
    if x.dim() < 1 or w.dim() != 2 or w.shape[1] != x.shape[-1]:
        raise ValueError("x.shape = %s, weight.shape = %s: expected (..., K) and (N, K)"
                         % (tuple(x.shape), tuple(w.shape)))
    n = w.shape[0]
    for name, t in (("weight", w), ("bias", bias), ("scale", scale), ("residual", residual)):
        if t is not None and t.device != x.device:
            raise ValueError("%s.device = %s but x.device = %s" % (name, t.device, x.device))
    for name, t in (("bias", bias), ("scale", scale)):
        if t is not None and (t.dim() != 1 or t.shape[0] != n):
            raise ValueError("%s.shape = %s: expected (%d,) (one value per output feature)"
                             % (name, tuple(t.shape), n))
    out_shape = tuple(x.shape[:-1]) + (n,)
    if residual is not None:
        if tuple(residual.shape) != out_shape:
            raise ValueError("residual.shape = %s: expected the output shape %s"
                             % (tuple(residual.shape), out_shape))
        if residual.dtype != od:
            raise TypeError("residual.dtype = %s: must equal the output dtype %s"
                            % (residual.dtype, od))
    return out_shape


def _linear_impl(x: torch.Tensor, w: torch.Tensor, bias: Optional[torch.Tensor],
                 scale: Optional[torch.Tensor], residual: Optional[torch.Tensor], alpha: float,
                 beta: float, activation: str, act_param: float,
                 out_dtype: Optional[torch.dtype]) -> torch.Tensor:
    if _t._any_grad(x, w, bias, scale, residual):
        raise RuntimeError("igemm::linear is inference-only (it has no backward): call it under "
                           "torch.no_grad() or on tensors that do not require grad")
    od = x.dtype if out_dtype is None else out_dtype
    out_shape = _check(x, w, bias, scale, residual, od)
    y = x.new_empty(out_shape, dtype=od)
    k = x.shape[-1]
    m = y.numel() // max(1, w.shape[0])
    if y.numel() == 0:
        return y
    if k == 0:
        raise ValueError("x.shape = %s: igemm.linear needs K = x.shape[-1] >= 1" % (tuple(x.shape),))
    x = x.contiguous()
    w = w.contiguous()
    if x.data_ptr() % 16:
        x = x.clone()
    if w.data_ptr() % 16:
        w = w.clone()
    scale = _t._vec(scale) if scale is not None else None
    bias = _t._vec(bias) if bias is not None else None
    if residual is not None:
        residual = residual.contiguous()
        if residual.data_ptr() % 16:
            residual = residual.clone()
    dev = x.get_device()
    plan = _plan(dev, m, w.shape[0], k, x.dtype, od, scale is not None, bias is not None,
                 residual is not None, float(alpha), float(beta), activation, float(act_param))
    with torch.cuda.device(dev):
        stream = torch.cuda.current_stream(dev).cuda_stream
        plan.run(x.data_ptr(), w.data_ptr(), scale.data_ptr() if scale is not None else None,
                 bias.data_ptr() if bias is not None else None,
                 residual.data_ptr() if residual is not None else None, y.data_ptr(), stream)
    return y


_SCHEMA = ("linear(Tensor x, Tensor w, Tensor? bias, Tensor? scale, Tensor? residual, float alpha, "
           "float beta, str activation, float act_param, ScalarType? out_dtype) -> Tensor")
_t._LIB.define(_SCHEMA)
_t._LIB.impl("linear", _linear_impl, "CUDA")
_OP = torch.ops.igemm.linear.default


@torch.library.register_fake("igemm::linear", lib=_t._LIB)
def _linear_fake(x, w, bias, scale, residual, alpha, beta, activation, act_param, out_dtype):
    od = x.dtype if out_dtype is None else out_dtype
    return x.new_empty(tuple(x.shape[:-1]) + (w.shape[0],), dtype=od)


def linear(x, weight, bias=None, activation=None, scale=None, residual=None, alpha=1.0, beta=1.0,
           out_dtype=None):
    if not isinstance(x, torch.Tensor) or not isinstance(weight, torch.Tensor):
        raise TypeError("x and weight must be torch.Tensors (got %s, %s)"
                        % (type(x).__name__, type(weight).__name__))
    if x.device.type != "cuda":
        raise ValueError("x.device = %s: igemm.linear runs on CUDA tensors" % (x.device,))
    if weight.dim() != 2 or x.dim() < 1 or weight.shape[1] != x.shape[-1]:
        raise ValueError("x.shape = %s, weight.shape = %s: expected (..., K) and (N, K)"
                         % (tuple(x.shape), tuple(weight.shape)))
    act_name, act_param = _args.activation(activation)
    alpha = _args.scalar(alpha, "alpha")
    beta = _args.scalar(beta, "beta")
    od = _t._parse_out_dtype(out_dtype)
    n = weight.shape[0]
    bias = _t._check_vec(bias, "bias", x, n)
    scale = _t._check_vec(scale, "scale", x, n)
    args = (x, weight, bias, scale, residual, alpha, beta, act_name, act_param, od)
    if _t._direct_ok(x, weight, bias, scale, residual):
        return _linear_impl(*args)
    return _OP(*args)
