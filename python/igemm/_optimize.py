"""igemm.optimize(model) (imported on first use): an inference copy of a torch model whose
convolutions run on igemm, with BatchNorm folded and the activation and residual add fused into
the conv's epilogue.

    y = act(scale[k] * conv2d(x, w) + bias[k] + residual)

How: the model is traced with torch.fx; each Conv2d (zero padding, any groups) becomes an
IgemmConv2d and takes in, when it is the only user of the value before it,
  1. a following BatchNorm2d in eval mode (running statistics): scale = gamma / sqrt(var + eps),
     bias = (conv_bias - mean) * scale + beta, computed once in float64 and kept in float32 (the
     weights are not rescaled, so they round to bf16/fp16 exactly as torch's own would);
  2. a following residual add (`a + b`, `torch.add`, `+=`) of a value computed before it;
  3. a following activation the epilogue has (ReLU, ReLU6 / Hardtanh(0, 6), LeakyReLU, GELU erf
     and tanh, SiLU, Sigmoid, Tanh, Hardswish, Hardsigmoid; modules, functions and tensor methods).
nn.MaxPool2d runs on igemm's max pool, nn.AvgPool2d and nn.AdaptiveAvgPool2d(1) on its average
pool, nn.Linear on igemm where its planner takes the rows to its few-row kernel (IgemmLinear). Everything else (LayerNorm, average pooling, ...) stays in
torch. A model fx cannot trace still has its Conv2d modules replaced one by one, with a
BatchNorm2d and an activation that follow them inside an nn.Sequential folded in.

IgemmConv2d runs igemm on CUDA tensors of its dtype (float16/bfloat16); for anything else
(CPU tensors, float32) it computes the same fused function with torch ops, so an optimized
model also runs, slower, where igemm cannot. Inference only: gradients and train() raise.
"""

import copy
import operator

import torch
import torch.nn.functional as F
from torch import nn

from . import _torch as _backend  # noqa: E402 (the package is imported first)
from . import max_pool2d as _igemm_max_pool2d  # noqa: E402
from . import avg_pool2d as _igemm_avg_pool2d  # noqa: E402
from . import adaptive_avg_pool2d as _igemm_adaptive_avg_pool2d  # noqa: E402
from ._lib import Path as _Path  # noqa: E402

__all__ = ["optimize", "IgemmConv2d", "IgemmMaxPool2d", "IgemmAvgPool2d", "IgemmLinear", "OptimizeReport"]

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
                route = self._route[key] = plan.path == _Path.MEMORY
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


class OptimizeReport(object):
    """What optimize did: counts, and the modules left in torch by kind."""

    def __init__(self):
        self.convs = 0            # Conv2d replaced by IgemmConv2d
        self.convs_left = 0       # Conv2d left in torch (e.g. padding_mode other than zeros)
        self.grouped_in_torch = 0  # of those: grouped/depthwise convs kept in torch (grouped=False)
        self.batchnorms = 0       # BatchNorm2d folded
        self.activations = 0      # activations fused
        self.residuals = 0        # residual adds fused
        self.pools = 0            # MaxPool2d / AvgPool2d / AdaptiveAvgPool2d(1) run by igemm
        self.linears = 0          # Linear made IgemmLinear (igemm where its planner runs few rows)
        self.traced = True        # False: fx could not trace, module-by-module fallback
        self.left_in_torch = {}   # module class name -> count, for the leaf modules not fused

    def __repr__(self):
        left = ", ".join("%s x%d" % kv for kv in sorted(self.left_in_torch.items()))
        return ("OptimizeReport(convs=%d, convs_left=%d (grouped kept in torch: %d), "
                "batchnorms=%d, activations=%d, residuals=%d, pools=%d, linears=%d, traced=%s, "
                "left_in_torch={%s})"
                % (self.convs, self.convs_left, self.grouped_in_torch, self.batchnorms,
                   self.activations, self.residuals, self.pools, self.linears, self.traced, left))


# ------------------------------------------------------------------ pattern pieces

def _conv_ok(m):
    # any groups, stride, dilation, padding (ints, 'same', 'valid'); zero padding only
    return type(m) is nn.Conv2d and m.padding_mode == "zeros"


def _bn_ok(m, k):
    return (isinstance(m, nn.BatchNorm2d) and not m.training and m.running_mean is not None
            and m.num_features == k)


_ACT_MODULES = {nn.ReLU: "relu", nn.ReLU6: "relu6", nn.SiLU: "silu", nn.Sigmoid: "sigmoid",
                nn.Tanh: "tanh", nn.Hardswish: "hardswish", nn.Hardsigmoid: "hardsigmoid"}


def _act_of_module(m):
    """(igemm name, param) for an activation module, or None."""
    t = type(m)
    name = _ACT_MODULES.get(t)
    if name is not None:
        return (name, 0.01)
    if t is nn.Hardtanh and m.min_val == 0.0 and m.max_val == 6.0:
        return ("relu6", 0.01)
    if t is nn.GELU:
        return ("gelu_tanh" if m.approximate == "tanh" else "gelu", 0.01)
    if t is nn.LeakyReLU:
        return ("leaky_relu", float(m.negative_slope))
    return None


_ACT_FUNCS = {
    F.relu: "relu", torch.relu: "relu", torch.relu_: "relu", F.relu_: "relu",
    F.relu6: "relu6", F.silu: "silu", torch.sigmoid: "sigmoid", F.sigmoid: "sigmoid",
    torch.tanh: "tanh", F.tanh: "tanh", F.gelu: "gelu", F.leaky_relu: "leaky_relu",
    F.hardswish: "hardswish", F.hardsigmoid: "hardsigmoid",
}
_ACT_METHODS = {"relu": "relu", "relu_": "relu", "sigmoid": "sigmoid", "sigmoid_": "sigmoid",
                "tanh": "tanh", "tanh_": "tanh"}


def _act_of_node(node, modules):
    """(name, param) when node applies a fusable activation to its first argument alone."""
    if node.op == "call_module":
        return _act_of_module(modules[node.target])
    if node.op == "call_function" and node.target in _ACT_FUNCS:
        name = _ACT_FUNCS[node.target]
        kw = dict(node.kwargs)
        kw.pop("inplace", None)
        extra = list(node.args[1:])
        if name == "gelu":
            approx = kw.pop("approximate", "none")
            if extra or kw or approx not in ("none", "tanh"):
                return None
            return ("gelu_tanh" if approx == "tanh" else "gelu", 0.01)
        if name == "leaky_relu":
            slope = kw.pop("negative_slope", extra.pop(0) if extra else 0.01)
            if extra and extra != [True] and extra != [False]:
                return None
            if kw or not isinstance(slope, (int, float)):
                return None
            return ("leaky_relu", float(slope))
        if name in ("relu6", "relu", "hardswish", "hardsigmoid"):  # their inplace flag
            extra = [a for a in extra if not isinstance(a, bool)]
        return (name, 0.01) if not extra and not kw else None
    if node.op == "call_method" and node.target in _ACT_METHODS:
        return (_ACT_METHODS[node.target], 0.01) if len(node.args) == 1 and not node.kwargs \
            else None
    return None


_ADD_FUNCS = (operator.add, operator.iadd, torch.add)


def _residual_of_add(node, chain_end):
    """The other operand when node is chain_end + other (or other + chain_end), else None."""
    if node.kwargs and set(node.kwargs) - {"out"} or node.kwargs.get("out") is not None:
        return None
    if node.op == "call_function" and node.target in _ADD_FUNCS and len(node.args) == 2:
        a, b = node.args
    elif node.op == "call_method" and node.target in ("add", "add_") and len(node.args) == 2:
        a, b = node.args
    else:
        return None
    other = b if a is chain_end else a if b is chain_end else None
    if other is None or other is chain_end or not isinstance(other, torch.fx.Node):
        return None
    if other.op == "get_attr":  # a parameter or buffer: most likely a broadcast, not a residual
        return None
    return other


def _only_user(node):
    users = list(node.users)
    return users[0] if len(users) == 1 else None


try:
    from torchvision.ops import StochasticDepth as _StochasticDepth
    from torchvision.ops import stochastic_depth as _stochastic_depth
except Exception:  # torchvision absent
    _StochasticDepth, _stochastic_depth = (), None

# functions that are the identity when their `training` argument (position, default) is False
_EVAL_IDENTITY_FUNCS = {F.dropout: (2, True), F.dropout2d: (2, True)}
if _stochastic_depth is not None:
    _EVAL_IDENTITY_FUNCS[_stochastic_depth] = (3, True)


def _identity_in_eval(m):
    """Modules that compute the identity in eval mode (skipped over between conv and add)."""
    return isinstance(m, nn.Identity) or (
        not m.training and isinstance(m, (nn.modules.dropout._DropoutNd, _StochasticDepth)))


def _is_identity_node(u, modules):
    if u.op == "call_module":
        return len(u.args) == 1 and not u.kwargs and _identity_in_eval(modules[u.target])
    if u.op == "call_function" and u.target in _EVAL_IDENTITY_FUNCS:
        pos, default = _EVAL_IDENTITY_FUNCS[u.target]
        training = u.args[pos] if len(u.args) > pos else u.kwargs.get("training", default)
        return training is False
    return False


def _next_user(node, modules, chain):
    """The only user of node, stepping over eval-mode identities (appended to chain)."""
    u = _only_user(node)
    while u is not None and u.args and u.args[0] is chain[-1] and _is_identity_node(u, modules):
        chain.append(u)
        u = _only_user(u)
    return u


def _fold_bn(conv, bn):
    """(scale, bias) float32 of bn(conv(x) + conv.bias) = scale * conv(x) + bias."""
    mean = bn.running_mean.double()
    var = bn.running_var.double()
    gamma = bn.weight.double() if bn.weight is not None else torch.ones_like(mean)
    beta = bn.bias.double() if bn.bias is not None else torch.zeros_like(mean)
    s = gamma / torch.sqrt(var + bn.eps)
    cb = conv.bias.double() if conv.bias is not None else torch.zeros_like(mean)
    return s.float(), ((cb - mean) * s + beta).float()


def _folded_torch_conv(conv, bn):
    """A plain nn.Conv2d computing bn(conv(x)): the weights scaled per output channel (in float64,
    then the conv's dtype) and the folded bias."""
    scale, bias = _fold_bn(conv, bn)
    out = nn.Conv2d(conv.in_channels, conv.out_channels, conv.kernel_size, conv.stride,
                    conv.padding, conv.dilation, conv.groups, True, conv.padding_mode)
    with torch.no_grad():
        w = conv.weight.detach()
        out.weight.copy_((w.double() * scale.double().view(-1, 1, 1, 1)).to(w.dtype))
        out.bias.copy_(bias.to(w.dtype))
    return out.to(device=conv.weight.device)


def _keep_in_torch(conv, grouped):
    """Grouped and depthwise convs stay torch convs unless grouped=True: igemm runs them on its
    general path (mma.sync), which measured 0.13-0.6x torch.compile on MobileNetV2/V3,
    EfficientNet-B0, ConvNeXt-T and ResNeXt-50 (docs/perf.md, decisions.md "optimize-grouped")."""
    return conv.groups > 1 and not grouped


def _make(conv, bn, act, has_residual, dtype):
    if bn is not None:
        scale, bias = _fold_bn(conv, bn)
    else:
        scale, bias = None, (conv.bias.detach().float() if conv.bias is not None else None)
    name, param = act if act is not None else (None, 0.01)
    return IgemmConv2d(conv.weight.detach().to(dtype), scale, bias, conv.stride, conv.padding,
                       conv.dilation, conv.groups, name, param, has_residual)


# ------------------------------------------------------------------ the rewrites

def _rewrite_graph(gm, dtype, report, grouped):
    modules = dict(gm.named_modules())
    graph = gm.graph
    count = 0
    for node in list(graph.nodes):
        if node.op != "call_module":
            continue
        conv = modules.get(node.target)
        if type(conv) is not nn.Conv2d:
            continue
        if not _conv_ok(conv) or len(node.args) != 1 or node.kwargs:
            report.convs_left += 1
            continue
        if _keep_in_torch(conv, grouped):
            report.convs_left += 1
            report.grouped_in_torch += 1
            u = _only_user(node)
            if u is not None and u.op == "call_module" and _bn_ok(modules[u.target], conv.out_channels):
                name = "torch_conv_%d" % count
                count += 1
                gm.add_submodule(name, _folded_torch_conv(conv, modules[u.target]))
                with graph.inserting_after(u):
                    new = graph.call_module(name, (node.args[0],))
                u.replace_all_uses_with(new)
                graph.erase_node(u)
                graph.erase_node(node)
                report.batchnorms += 1
            continue
        chain, bn, act, residual = [node], None, None, None
        u = _only_user(chain[-1])
        if u is not None and u.op == "call_module" and _bn_ok(modules[u.target], conv.out_channels):
            bn = modules[u.target]
            chain.append(u)
            u = _only_user(u)
        if u is not None:
            mark = len(chain)
            u = _next_user(chain[-1], modules, chain)
            other = _residual_of_add(u, chain[-1]) if u is not None else None
            if other is not None:
                residual = other
                chain.append(u)
                u = _only_user(u)
            else:  # the identities stay unless an add follows them
                del chain[mark:]
                u = _only_user(chain[-1])
        if u is not None and len(u.args) >= 1 and u.args[0] is chain[-1]:
            a = _act_of_node(u, modules)
            if a is not None:
                act = a
                chain.append(u)
        end = chain[-1]
        mod = _make(conv, bn, act, residual is not None, dtype)
        name = "igemm_conv_%d" % count
        count += 1
        gm.add_submodule(name, mod)
        args = (node.args[0],) if residual is None else (node.args[0], residual)
        with graph.inserting_after(end):
            new = graph.call_module(name, args)
        end.replace_all_uses_with(new)
        for n in reversed(chain):  # last first: each has no users left when erased
            graph.erase_node(n)
        report.convs += 1
        report.batchnorms += bn is not None
        report.activations += act is not None
        report.residuals += residual is not None
    graph.lint()
    gm.delete_all_unused_submodules()
    gm.recompile()
    return gm


def _rewrite_modules(root, dtype, report, grouped):
    """fx-free fallback: Conv2d -> IgemmConv2d module by module, folding a BatchNorm2d and an
    activation that follow a Conv2d inside an nn.Sequential."""
    for name, child in list(root.named_children()):
        if isinstance(child, nn.Sequential):
            items = list(child.children())
            out, i = [], 0
            while i < len(items):
                m = items[i]
                if (type(m) is nn.Conv2d and _conv_ok(m) and _keep_in_torch(m, grouped)
                        and i + 1 < len(items) and _bn_ok(items[i + 1], m.out_channels)):
                    out.append(_folded_torch_conv(m, items[i + 1]))
                    report.convs_left += 1
                    report.grouped_in_torch += 1
                    report.batchnorms += 1
                    i += 2
                    continue
                if type(m) is nn.Conv2d and _conv_ok(m) and not _keep_in_torch(m, grouped):
                    bn = act = None
                    j = i + 1
                    if j < len(items) and _bn_ok(items[j], m.out_channels):
                        bn, j = items[j], j + 1
                    if j < len(items) and _act_of_module(items[j]) is not None:
                        act, j = _act_of_module(items[j]), j + 1
                    out.append(_make(m, bn, act, False, dtype))
                    report.convs += 1
                    report.batchnorms += bn is not None
                    report.activations += act is not None
                    i = j
                    continue
                if type(m) is nn.Conv2d:
                    report.convs_left += 1
                    report.grouped_in_torch += _conv_ok(m) and _keep_in_torch(m, grouped)
                else:
                    _rewrite_modules(m, dtype, report, grouped)
                out.append(m)
                i += 1
            setattr(root, name, nn.Sequential(*out))
        elif type(child) is nn.Conv2d:
            if _conv_ok(child) and not _keep_in_torch(child, grouped):
                setattr(root, name, _make(child, None, None, False, dtype))
                report.convs += 1
            else:
                report.convs_left += 1
                report.grouped_in_torch += _conv_ok(child) and _keep_in_torch(child, grouped)
        else:
            _rewrite_modules(child, dtype, report, grouped)
    return root


def _bind_submodules(root):
    """Binds every submodule as a plain instance attribute of its parent too (it stays registered
    in _modules: state_dict, .to(), hooks unchanged). fx's generated forward looks every module up
    on every call through chains of nn.Module.__getattr__ (~4 per node, a dict search each); a
    plain attribute is found first. Measured on the CPU (torchvision ConvNeXt-T, a 32x32 input,
    one thread): 1.2 ms less Python per forward. Replacing a submodule with setattr keeps the
    binding in step (nn.Module.__setattr__ drops it); add_module / register_module / del on the
    optimized module would leave it stale, so the optimized module is documented as fixed."""
    for m in root.modules():
        for name, child in m._modules.items():
            if child is not None:
                m.__dict__[name] = child


def _default_dtype(model):
    for p in list(model.parameters()) + list(model.buffers()):
        if p.is_floating_point():
            return p.dtype if p.dtype in (torch.float16, torch.bfloat16) else torch.bfloat16
    return torch.bfloat16


def optimize(model, dtype=None, report=False, grouped=False):
    """An inference copy of `model` (an nn.Module in eval mode) with its convolutions on igemm.

    dtype: the compute dtype of the returned model (torch.bfloat16 or torch.float16; default:
    the model's own if it is one of those, else bfloat16). The copy is converted to it and to
    channels_last memory; feed it inputs of that dtype on the model's CUDA device. float32 is
    accepted too: every conv then runs through torch's ops (a check of the rewrite, not fast).
    Weights are folded once, here; `model` itself is not changed.

    Returns the optimized module (a torch.fx.GraphModule, or a copy of `model` when fx cannot
    trace it), or (module, OptimizeReport) with report=True. Raises ValueError for a model in
    training mode, TypeError for another dtype.

    grouped: also run grouped and depthwise convs on igemm. By default they stay torch convs (a
    following BatchNorm folded into their weights): igemm's general path for them is slower than
    torch's kernels today (docs/perf.md)."""
    if not isinstance(model, nn.Module):
        raise TypeError("model is a %s: expected a torch.nn.Module" % type(model).__name__)
    if model.training:
        raise ValueError("model.training = True: igemm.optimize is for inference; call "
                         "model.eval() first (BatchNorm is folded with its running statistics)")
    if dtype is None:
        dtype = _default_dtype(model)
    if dtype not in (torch.bfloat16, torch.float16, torch.float32):
        raise TypeError("dtype = %s: expected torch.bfloat16, torch.float16 or torch.float32"
                        % (dtype,))
    rep = OptimizeReport()
    src = copy.deepcopy(model)
    try:
        gm = torch.fx.symbolic_trace(src)
    except Exception:  # data-dependent control flow and the like: module by module
        gm = None
    if gm is not None:
        out = _rewrite_graph(gm, dtype, rep, grouped)
    else:
        rep.traced = False
        out = _rewrite_modules(src, dtype, rep, grouped)
    _replace_pools(out, rep)
    _replace_linears(out, rep)
    for m in out.modules():
        if m is out or isinstance(m, (IgemmConv2d, IgemmMaxPool2d, IgemmAvgPool2d, IgemmLinear)) \
                or list(m.children()):
            continue
        rep.left_in_torch[type(m).__name__] = rep.left_in_torch.get(type(m).__name__, 0) + 1
    out = out.to(dtype=dtype).to(memory_format=torch.channels_last)
    out.eval()
    for p in out.parameters():
        p.requires_grad_(False)
    _bind_submodules(out)
    return (out, rep) if report else out
