"""The modules igemm.optimize puts into a model (igemm._optimize builds the rewrite):

  IgemmConv2d     act(scale * conv2d(x, weight) + bias + residual) as one igemm call (torch ops on
                  CPU tensors and float32, the same function)
  IgemmMaxPool2d  nn.MaxPool2d on igemm's max pool
  IgemmAvgPool2d  nn.AvgPool2d / nn.AdaptiveAvgPool2d(1) of small windows on igemm's average pool
  IgemmLinear     nn.Linear on igemm where its planner takes the rows to the few-row kernel, torch's
                  F.linear elsewhere
and _replace_linears / _replace_pools, which put the last three in. Inference only: gradients and
train() raise.
"""

import torch
import torch.nn.functional as F
from torch import nn

from . import _torch as _backend  # noqa: E402 (the package is imported first)
from . import max_pool2d as _igemm_max_pool2d  # noqa: E402
from . import avg_pool2d as _igemm_avg_pool2d  # noqa: E402
from . import adaptive_avg_pool2d as _igemm_adaptive_avg_pool2d  # noqa: E402
from ._lib import Path as _Path  # noqa: E402

__all__ = ["IgemmConv2d", "IgemmMaxPool2d", "IgemmAvgPool2d", "IgemmLinear"]

_INFERENCE_ONLY = ("igemm.optimize made an inference-only module (BatchNorm folded, weights as "
                   "buffers): %s. Optimize a copy for inference and train the original.")


def _torch_act(name, param):
    return {
        "relu": F.relu, "relu6": F.relu6, "silu": F.silu, "sigmoid": torch.sigmoid,
        "tanh": torch.tanh, "gelu": F.gelu, "gelu_tanh": lambda t: F.gelu(t, approximate="tanh"),
        "leaky_relu": lambda t: F.leaky_relu(t, param), "hardswish": F.hardswish,
        "hardsigmoid": F.hardsigmoid,
    }[name]


class IgemmConv2d(nn.Module):
    """act(scale * conv2d(x, weight) + bias + residual) as one igemm call.

    weight (K, C/groups, R, S) in the compute dtype, channels_last; scale and bias float32 (K,)
    or None. forward(x) or forward(x, residual)."""

    def __init__(self, weight, scale, bias, stride, padding, dilation, groups, activation=None,
                 act_param=0.01, has_residual=False):
        super().__init__()
        self.register_buffer("weight", weight.detach().contiguous(
            memory_format=torch.channels_last))
        self.register_buffer("scale", None if scale is None else scale.detach().float())
        self.register_buffer("bias", None if bias is None else bias.detach().float())
        self.stride, self.padding, self.dilation = stride, padding, dilation
        self.groups = groups
        self.activation = activation  # an igemm activation name or None
        self.act_param = act_param
        self.has_residual = has_residual
        self._act_arg = None if activation is None else (
            (activation, act_param) if activation == "leaky_relu" else activation)
        # prepared igemm calls by input signature (the host-cost fast path of _torch: the
        # module's own arguments are fixed, so the signature is the input's and the weight's)
        self._calls = {}

    def extra_repr(self):
        k, cg, r, s = self.weight.shape
        return ("%d, %d, kernel_size=(%d, %d), stride=%s, padding=%s, dilation=%s, groups=%d, "
                "scale=%s, bias=%s, activation=%s, residual=%s, dtype=%s"
                % (cg * self.groups, k, r, s, self.stride, self.padding, self.dilation,
                   self.groups, self.scale is not None, self.bias is not None, self.activation,
                   self.has_residual, self.weight.dtype))

    def __getstate__(self):
        # copies and pickles start with no prepared calls (they hold plan handles)
        state = dict(self.__dict__)
        state["_calls"] = {}
        return state

    def _apply(self, fn, recurse=True):
        # .to(dtype)/.half() change the weight only: scale and bias stay float32 (the epilogue
        # reads float32); device moves apply to all three.
        w = fn(self.weight)
        self.weight = w
        self._calls = {}
        for name in ("scale", "bias"):
            t = getattr(self, name)
            if t is not None:
                setattr(self, name, t.to(device=w.device, dtype=torch.float32))
        return self

    def train(self, mode=True):
        if mode:
            raise RuntimeError(_INFERENCE_ONLY % "train() was called")
        return super().train(False)

    def _out_hw(self, h, w):
        """The conv's output height and width for an h x w input."""
        if isinstance(self.padding, str):
            if self.padding == "same":
                return h, w
            ph = pw = 0
        else:
            ph, pw = self.padding
        r, s = self.weight.shape[2], self.weight.shape[3]
        return ((h + 2 * ph - self.dilation[0] * (r - 1) - 1) // self.stride[0] + 1,
                (w + 2 * pw - self.dilation[1] * (s - 1) - 1) // self.stride[1] + 1)

    def _run(self, x, residual, act_arg, act, key=None):
        w = self.weight
        if x.is_cuda and x.dtype == w.dtype and w.is_cuda and (
                residual is None or residual.dtype == x.dtype):
            y, call = _backend.conv2d_full(x, w, self.bias, self.stride, self.padding,
                                           self.dilation, self.groups, scale=self.scale,
                                           residual=residual, activation=act_arg)
            if key is not None and call is not None:
                if len(self._calls) >= 64:
                    self._calls.clear()
                self._calls[key] = call
            return y
        # torch's own ops: CPU tensors, float32, mixed dtypes
        y = F.conv2d(x, w.to(x.dtype), None, self.stride, self.padding, self.dilation,
                     self.groups)
        if self.scale is not None:
            y = y * self.scale.to(y.dtype).view(1, -1, 1, 1)
        if self.bias is not None:
            y = y + self.bias.to(y.dtype).view(1, -1, 1, 1)
        if residual is not None:
            y = y + residual
        if act is not None:
            y = _torch_act(act, self.act_param)(y)
        return y

    def forward(self, x, residual=None):
        if x.requires_grad and torch.is_grad_enabled():
            raise RuntimeError(_INFERENCE_ONLY % "a gradient was asked for (x.requires_grad)")
        w = self.weight
        key = None
        if _backend._FAST_CAPABLE and not _backend._is_compiling() and type(x) is torch.Tensor \
                and type(w) is torch.Tensor and (residual is None or type(residual) is torch.Tensor):
            key = (x.shape, x.dtype, x.get_device(), w.shape, w.dtype, w.get_device(),
                   None if residual is None else
                   (residual.shape, residual.dtype, residual.get_device()))
            c = self._calls.get(key)
            if c is not None:
                y = c.launch(x, w, self.bias, self.scale, residual)
                if y is not None:
                    return y
        if residual is not None and (
                residual.dim() != 4 or residual.shape[0] != x.shape[0]
                or residual.shape[1] != self.weight.shape[0]
                or tuple(residual.shape[2:]) != self._out_hw(x.shape[2], x.shape[3])):
            # an add that broadcasts (the graph had no shapes): the epilogue takes the scale and
            # bias only; the add and the activation run in torch
            y = self._run(x, None, None, None) + residual
            return y if self.activation is None else _torch_act(self.activation, self.act_param)(y)
        return self._run(x, residual, self._act_arg, self.activation, key)


class IgemmMaxPool2d(nn.Module):
    """nn.MaxPool2d (without indices) through igemm.max_pool2d on CUDA float16/bfloat16 tensors
    (torch's channels_last max pool is a slow kernel); F.max_pool2d for anything else."""

    def __init__(self, m):
        super().__init__()
        self.kernel_size, self.stride, self.padding = m.kernel_size, m.stride, m.padding
        self.dilation, self.ceil_mode = m.dilation, m.ceil_mode

    def extra_repr(self):
        return "kernel_size=%s, stride=%s, padding=%s, dilation=%s, ceil_mode=%s" % (
            self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode)

    def forward(self, x):
        if x.is_cuda and x.dtype in _POOL_DTYPES:
            return _igemm_max_pool2d(x, self.kernel_size, self.stride, self.padding,
                                     self.dilation, self.ceil_mode)
        return F.max_pool2d(x, self.kernel_size, self.stride, self.padding, self.dilation,
                            self.ceil_mode)


_POOL_DTYPES = (torch.float16, torch.bfloat16)


_AVG_MAX_TAPS = 64  # igemm's average pool sums a window in one thread: small windows only


class IgemmAvgPool2d(nn.Module):
    """nn.AvgPool2d (ceil_mode off, no divisor_override) or nn.AdaptiveAvgPool2d(1) through
    igemm's average pool on CUDA float16/bfloat16 tensors whose windows have at most 64 taps
    (a classifier's 7 x 7 global pool; torch's channels_last average is a generic reduction
    kernel); F.avg_pool2d / F.adaptive_avg_pool2d for anything else, e.g. the squeeze-excite
    pools over whole feature maps, where one thread per window would be slow."""

    def __init__(self, m):
        super().__init__()
        self.adaptive = isinstance(m, nn.AdaptiveAvgPool2d)
        if self.adaptive:
            self.output_size = m.output_size
        else:
            self.kernel_size, self.stride, self.padding = m.kernel_size, m.stride, m.padding
            self.count_include_pad = m.count_include_pad

    def extra_repr(self):
        if self.adaptive:
            return "output_size=%s" % (self.output_size,)
        return "kernel_size=%s, stride=%s, padding=%s, count_include_pad=%s" % (
            self.kernel_size, self.stride, self.padding, self.count_include_pad)

    def forward(self, x):
        if x.is_cuda and x.dtype in _POOL_DTYPES and x.dim() == 4:
            if self.adaptive:
                if x.shape[2] * x.shape[3] <= _AVG_MAX_TAPS:
                    return _igemm_adaptive_avg_pool2d(x, 1)
            else:
                k = self.kernel_size
                if (k * k if isinstance(k, int) else k[0] * k[1]) <= _AVG_MAX_TAPS:
                    return _igemm_avg_pool2d(x, self.kernel_size, self.stride, self.padding, False,
                                             self.count_include_pad)
        if self.adaptive:
            return F.adaptive_avg_pool2d(x, self.output_size)
        return F.avg_pool2d(x, self.kernel_size, self.stride, self.padding, False,
                            self.count_include_pad)


def _avg_ok(m):
    if type(m) is nn.AdaptiveAvgPool2d:
        return m.output_size in (1, (1, 1), [1, 1])
    return type(m) is nn.AvgPool2d and not m.ceil_mode and m.divisor_override is None


class IgemmLinear(nn.Module):
    """nn.Linear as a 1x1 IgemmConv2d over rows = x.numel() / in_features, where igemm's planner
    runs those rows on its memory-bound few-row kernel (Path.MEMORY: a classifier's batch,
    decode tokens), decided once per (rows, dtype, device); torch's F.linear elsewhere (larger
    GEMMs: the GEMM issue's kernel has to beat cuBLAS there first), and on CPU / float32 / while
    compiling."""

    def __init__(self, m):
        super().__init__()
        self.in_features, self.out_features = m.in_features, m.out_features
        w4 = m.weight.detach().reshape(m.out_features, m.in_features, 1, 1)
        self.conv = IgemmConv2d(w4, None, m.bias, (1, 1), (0, 0), (1, 1), 1)
        # F.linear's bias in the model's dtype (the conv's stays float32 for the epilogue), so
        # that the torch route costs no cast per call
        self.register_buffer("bias_t", None if m.bias is None else m.bias.detach().clone())
        self._route = {}

    def extra_repr(self):
        return "in_features=%d, out_features=%d, bias=%s" % (
            self.in_features, self.out_features, self.conv.bias is not None)

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_route"] = {}
        return state

    def _apply(self, fn, recurse=True):
        self._route = {}
        return super()._apply(fn, recurse)

    def forward(self, x):
        w = self.conv.weight
        if x.is_cuda and x.dtype == w.dtype and x.dim() >= 1 and x.shape[-1] == self.in_features \
                and not _backend._is_compiling():
            rows = x.numel() // self.in_features if self.in_features else 0
            key = (rows, x.dtype, x.get_device())
            route = self._route.get(key)
            if route is None and rows > 0 and w.is_cuda:
                x4 = x.reshape(rows, self.in_features, 1, 1)
                plan = _backend.get_plan(x4, w, self.conv.bias)
                # the few-row family only; the narrow 1x1 family, also on Path.MEMORY (k <= 16
                # over 256+ rows), is not measured against F.linear
                route = self._route[key] = (plan.path == _Path.MEMORY
                                            and "kernel mem_skinny_mma" in plan.describe())
            if route:
                y = self.conv(x.reshape(rows, self.in_features, 1, 1))
                return y.reshape(tuple(x.shape[:-1]) + (self.out_features,))
        if x.requires_grad and torch.is_grad_enabled():
            raise RuntimeError(_INFERENCE_ONLY % "a gradient was asked for (x.requires_grad)")
        w2 = w.view(self.out_features, self.in_features)
        b = self.bias_t
        if w2.dtype != x.dtype:  # CPU / float32 inputs: torch's ops in x's dtype
            w2, b = w2.to(x.dtype), None if b is None else b.to(x.dtype)
        return F.linear(x, w2, b)


def _replace_linears(root, rep):
    """Every nn.Linear becomes an IgemmLinear (same name)."""
    for name, m in list(root.named_modules()):
        if type(m) is nn.Linear:
            parent_name, _, leaf = name.rpartition(".")
            parent = root.get_submodule(parent_name) if parent_name else root
            setattr(parent, leaf, IgemmLinear(m))
            rep.linears += 1


def _replace_pools(root, rep):
    """Every nn.MaxPool2d without return_indices becomes an IgemmMaxPool2d, every nn.AvgPool2d
    without ceil_mode / divisor_override and nn.AdaptiveAvgPool2d(1) an IgemmAvgPool2d (same
    names)."""
    for name, m in list(root.named_modules()):
        if (type(m) is nn.MaxPool2d and not m.return_indices) or _avg_ok(m):
            parent_name, _, leaf = name.rpartition(".")
            parent = root.get_submodule(parent_name) if parent_name else root
            setattr(parent, leaf, IgemmMaxPool2d(m) if type(m) is nn.MaxPool2d else IgemmAvgPool2d(m))
            rep.pools += 1
