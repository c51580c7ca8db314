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

from ._modules import (IgemmConv2d, IgemmMaxPool2d, IgemmAvgPool2d, IgemmLinear,  # noqa: E402,F401
                       _replace_linears, _replace_pools)

__all__ = ["optimize", "IgemmConv2d", "IgemmMaxPool2d", "IgemmAvgPool2d", "IgemmLinear", "OptimizeReport"]


class OptimizeReport(object):
    """What optimize did: counts, and the modules left in torch by kind."""

    def __init__(self):
        self.convs = 0            # Conv2d replaced by IgemmConv2d
        self.convs_left = 0       # Conv2d left in torch (e.g. padding_mode other than zeros)
        self.grouped_in_torch = 0  # of those: grouped/depthwise convs kept in torch (per `grouped`)
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


def _is_depthwise(conv):
    """One filter per channel (groups = in = out channels) of a multiple of 8 channels: the convs
    igemm's depthwise family takes (src/mem/depthwise.cu)."""
    return (conv.groups > 1 and conv.groups == conv.in_channels == conv.out_channels
            and conv.in_channels % 8 == 0)


def _on_sm90():
    """Whether the current CUDA device is a Hopper (compute capability 9.0): where igemm's sm90
    grouped tiles run."""
    try:
        return torch.cuda.is_available() and torch.cuda.get_device_capability() == (9, 0)
    except Exception:  # no driver, no device
        return False


def _narrow_groups(conv, sm90=None):
    """Groups igemm runs on a fast path: its grouped family (src/mem/grouped.cu, gw_supports): 1 <
    groups < channels, c/g and k/g multiples of 8 with k/g <= 32 and c/g <= 256 (the tiled kernel),
    or 4 -> 4 channels in a multiple of 8 groups (the gather kernel); and on Hopper (sm90: None asks
    the current device) the sm90 grouped tiles' wider groups: k/g a multiple of 64 with c/g a
    multiple of 8 (src/sm90/sm90.h sm90_group_tile; 1.1-6x cuDNN per layer: decisions.md
    "sm90-grouped"), which elsewhere would take the general path."""
    g = conv.groups
    if g <= 1 or g == conv.in_channels:
        return False
    cg, kg = conv.in_channels // g, conv.out_channels // g
    if (cg % 8 == 0 and kg % 8 == 0 and kg <= 32 and cg <= 256) or (cg == 4 and kg == 4 and g % 8 == 0):
        return True
    if cg % 8 == 0 and kg % 64 == 0:
        return _on_sm90() if sm90 is None else bool(sm90)
    return False


def _keep_in_torch(conv, grouped):
    """Whether a grouped or depthwise conv stays a torch conv. grouped="fast" (the default): the
    depthwise convs igemm's depthwise family takes (channels a multiple of 8; its tiled kernel:
    0.74-1.6x PyTorch's own kernels per layer, faster than the torch convs in MobileNetV2,
    EfficientNet-B0 and ConvNeXt-T: decisions.md "depthwise-tiled") and the grouped convs of a
    fast path (_narrow_groups: the grouped family, and on Hopper the sm90 grouped tiles' k/g
    multiple of 64; the family's tiled kernel made ResNeXt-50 and RegNetY-400MF
    faster than with those convs in torch at batch 32 and 1, with and without CUDA graphs:
    decisions.md "grouped-tiled") go to igemm, the rest stay in torch; "depthwise": only the
    depthwise ones; True: every grouped conv (the others on igemm's general path, slow);
    False: all in torch."""
    if conv.groups == 1 or grouped is True:
        return False
    if grouped == "fast" and _narrow_groups(conv):
        return False
    return not (grouped in ("fast", "depthwise") and _is_depthwise(conv))


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


def optimize(model, dtype=None, report=False, grouped="fast"):
    """An inference copy of `model` (an nn.Module in eval mode) with its convolutions on igemm.

    dtype: the compute dtype of the returned model (torch.bfloat16 or torch.float16; default:
    the model's own if it is one of those, else bfloat16). The copy is converted to it and to
    channels_last memory; feed it inputs of that dtype on the model's CUDA device. float32 is
    accepted too: every conv then runs through torch's ops (a check of the rewrite, not fast).
    Weights are folded once, here; `model` itself is not changed.

    Returns the optimized module (a torch.fx.GraphModule, or a copy of `model` when fx cannot
    trace it), or (module, OptimizeReport) with report=True. Raises ValueError for a model in
    training mode, TypeError for another dtype.

    grouped: "fast" (default): the depthwise convs (groups = channels, a multiple of 8) and the
    grouped convs of narrow groups (c/g and k/g multiples of 8, k/g <= 32; or 4 -> 4 channels in a
    multiple of 8 groups) on igemm's depthwise and grouped families with BatchNorm and activation
    fused, other grouped convs stay torch convs (a following BatchNorm folded into their weights);
    "depthwise": only the depthwise ones on igemm; True: every grouped conv on igemm (the others on
    its general path: slow); False: grouped and depthwise convs all in torch. Raises ValueError
    for another value."""
    if not isinstance(model, nn.Module):
        raise TypeError("model is a %s: expected a torch.nn.Module" % type(model).__name__)
    if model.training:
        raise ValueError("model.training = True: igemm.optimize is for inference; call "
                         "model.eval() first (BatchNorm is folded with its running statistics)")
    if grouped not in (False, True, "fast", "depthwise"):
        raise ValueError("grouped = %r: expected \"fast\", \"depthwise\", True or False" % (grouped,))
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
