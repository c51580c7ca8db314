"""igemm.optimize: the fx rewrite (BN folding, activation and residual fusion) checked on the CPU
in float32 against the original model (IgemmConv2d computes its fused function with torch ops
there), and on the GPU in bf16 against the float32 model next to torch's own bf16 error."""

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn
F = torch.nn.functional

import igemm  # noqa: E402
from igemm._optimize import IgemmConv2d, IgemmLinear  # noqa: E402


def randomize(model, seed=0):
    """Random weights and BN statistics far from the identity, so a wrong fold shows."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.modules.batchnorm._BatchNorm) and m.running_mean is not None:
                m.running_mean.copy_(torch.rand(m.running_mean.shape, generator=g) - 0.5)
                m.running_var.copy_(torch.rand(m.running_var.shape, generator=g) * 1.5 + 0.5)
                if m.weight is not None:
                    m.weight.copy_(torch.rand(m.weight.shape, generator=g) + 0.5)
                    m.bias.copy_(torch.rand(m.bias.shape, generator=g) - 0.5)
    return model.eval()


def rel_err(a, b):
    a, b = a.double(), b.double()
    return ((a - b).abs().max() / a.abs().max().clamp_min(1e-30)).item()


def check_cpu(model, x, want=None, tol=1e-5, **kw):
    model = randomize(model)
    opt, rep = igemm.optimize(model, dtype=torch.float32, report=True, **kw)
    with torch.no_grad():
        ref = model(x)
        got = opt(x.contiguous(memory_format=torch.channels_last))
    assert rel_err(ref, got) < tol, rel_err(ref, got)
    if want is not None:
        counts = dict(convs=rep.convs, batchnorms=rep.batchnorms, activations=rep.activations,
                      residuals=rep.residuals)
        assert counts == want, (counts, rep)
    return opt, rep


class Block(nn.Module):
    def __init__(self, c=8, act="module"):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)
        self.act = act

    def forward(self, x):
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        if self.act == "module":
            y += x
            return self.relu(y)
        if self.act == "functional-left":
            return F.relu(x + y)
        if self.act == "method":
            return torch.add(y, x).relu()
        return y + x  # no activation after the add


@pytest.mark.parametrize("act", ["module", "functional-left", "method", "none"])
def test_residual_block(act):
    x = torch.randn(2, 8, 9, 7)
    opt, _ = check_cpu(Block(act=act), x, dict(convs=2, batchnorms=2,
                                               activations=2 if act != "none" else 1,
                                               residuals=1))
    kinds = [type(m) for m in opt.modules()]
    assert nn.BatchNorm2d not in kinds and nn.ReLU not in kinds


@pytest.mark.parametrize("act,name", [
    (nn.ReLU6(), "relu6"), (nn.Hardtanh(0.0, 6.0), "relu6"), (nn.SiLU(), "silu"),
    (nn.GELU(), "gelu"), (nn.GELU(approximate="tanh"), "gelu_tanh"), (nn.Sigmoid(), "sigmoid"),
    (nn.Tanh(), "tanh"), (nn.LeakyReLU(0.2), "leaky_relu"), (nn.Hardswish(), "hardswish"),
    (nn.Hardsigmoid(), "hardsigmoid")])
def test_activation_modules(act, name):
    m = nn.Sequential(nn.Conv2d(4, 6, 3, stride=2, padding=(1, 2), bias=True), nn.BatchNorm2d(6),
                      act)
    opt, _ = check_cpu(m, torch.randn(2, 4, 11, 10),
                       dict(convs=1, batchnorms=1, activations=1, residuals=0))
    conv = [m for m in opt.modules() if isinstance(m, IgemmConv2d)][0]
    assert conv.activation == name
    if name == "leaky_relu":
        assert conv.act_param == pytest.approx(0.2)


def test_not_fused_where_not_equivalent():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(4, 4, 1)
            self.bn = nn.BatchNorm2d(4)
            self.hsw = nn.Hardswish()
            self.conv2 = nn.Conv2d(4, 4, 3, padding=1, padding_mode="reflect")

        def forward(self, x):
            a = self.conv(x)          # used twice: BN cannot fold into it
            b = self.bn(a)
            c = self.hsw(b + a)       # Hardswish: not an epilogue activation
            return self.conv2(c) * 2  # reflect padding: stays in torch

    opt, rep = check_cpu(M(), torch.randn(1, 4, 6, 6),
                         dict(convs=1, batchnorms=0, activations=0, residuals=0))
    assert rep.convs_left == 1
    assert rep.left_in_torch.get("BatchNorm2d") == 1 and rep.left_in_torch.get("Hardswish") == 1


def test_broadcasting_add_is_not_taken_as_a_residual():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(4, 6, 3, stride=2, padding=1)
            self.offset = nn.Parameter(torch.randn(1, 6, 1, 1))
            self.pool = nn.AdaptiveAvgPool2d(1)

        def forward(self, x):
            a = F.relu(self.conv(x) + self.offset)       # a parameter: not fused
            b = F.relu(self.conv(x) + self.pool(a))      # (N, K, 1, 1): fused, then refused at run time
            return a + b

    opt, rep = check_cpu(M(), torch.randn(2, 4, 9, 9),
                         dict(convs=2, batchnorms=0, activations=1, residuals=1))
    # the run-time guard keeps the broadcast out of the epilogue (igemm would refuse it on the
    # GPU): the fused conv is run without a residual
    convs = [m for m in opt.modules() if isinstance(m, IgemmConv2d)]
    assert convs[0]._out_hw(9, 9) == (5, 5) and convs[0]._out_hw(8, 7) == (4, 4)
    seen = []
    for c in convs:
        run = c._run
        c._run = lambda x, res, act_arg, act, key=None, run=run: (seen.append(res is None), run(
            x, res, act_arg, act, key))[1]
    with torch.no_grad():
        opt(torch.randn(2, 4, 9, 9).contiguous(memory_format=torch.channels_last))
    assert seen == [True, True]


def test_grouped_depthwise_dilated_same():
    m = nn.Sequential(
        nn.Conv2d(8, 16, 3, padding="same", dilation=2, groups=4, bias=False), nn.BatchNorm2d(16),
        nn.ReLU(),
        nn.Conv2d(16, 16, 5, stride=2, padding=2, groups=16), nn.BatchNorm2d(16), nn.SiLU(),
        nn.Conv2d(16, 3, 1, padding="valid"))
    x = torch.randn(2, 8, 13, 12)
    check_cpu(m, x, dict(convs=3, batchnorms=2, activations=2, residuals=0), grouped=True)
    # grouped=False: the grouped and depthwise convs stay torch convs with their BatchNorm folded in
    _, rep = check_cpu(m, x, dict(convs=1, batchnorms=2, activations=0, residuals=0), grouped=False)
    assert rep.grouped_in_torch == 2 and rep.convs_left == 2
    # grouped="fast" (the default) and "depthwise": the depthwise conv (16 channels, a multiple of
    # 8) on igemm with its BatchNorm and SiLU, the grouped one (2 channels per group) in torch
    for kw in (dict(grouped="depthwise"), dict(grouped="fast"), {}):
        _, rep = check_cpu(m, x, dict(convs=2, batchnorms=2, activations=1, residuals=0), **kw)
        assert rep.grouped_in_torch == 1 and rep.convs_left == 1
    with pytest.raises(ValueError, match="grouped = 'all'"):
        igemm.optimize(m.eval(), grouped="all")


def test_grouped_narrow_default():
    # groups of 8 channels (ResNeXt's / RegNet's widths): on igemm by default ("fast", the grouped
    # family takes them) with BatchNorm and ReLU fused; in torch with grouped="depthwise"
    m = nn.Sequential(nn.Conv2d(32, 32, 3, padding=1, groups=4, bias=False), nn.BatchNorm2d(32), nn.ReLU(),
                      nn.Conv2d(32, 16, 1))
    x = torch.randn(2, 32, 9, 10)
    _, rep = check_cpu(m, x, dict(convs=2, batchnorms=1, activations=1, residuals=0))
    assert rep.grouped_in_torch == 0 and rep.convs_left == 0
    _, rep = check_cpu(m, x, dict(convs=1, batchnorms=1, activations=0, residuals=0), grouped="depthwise")
    assert rep.grouped_in_torch == 1 and rep.convs_left == 1
    # groups of 4 -> 4 in a multiple of 8 groups (ResNeXt-50's first stage): on igemm; in 4 groups: not
    m4 = nn.Sequential(nn.Conv2d(32, 32, 3, padding=1, groups=8, bias=False), nn.ReLU(),
                       nn.Conv2d(32, 16, 3, padding=1, groups=4, bias=False))
    _, rep = check_cpu(m4, x, dict(convs=1, batchnorms=0, activations=1, residuals=0))
    assert rep.grouped_in_torch == 1 and rep.convs_left == 1


def test_wide_groups_on_sm90_only():
    # groups of k/g a multiple of 64 (ResNeXt-101 32x8d's last stage, 2-group convs): the sm90
    # grouped tiles take them on Hopper, so the default sends them to igemm there and keeps them in
    # torch elsewhere (the general path); 16 -> 16 and 32 -> 32 groups: the grouped family, anywhere
    from igemm._optimize import _narrow_groups
    wide = nn.Conv2d(256, 256, 3, padding=1, groups=4, bias=False)    # 64 -> 64
    two = nn.Conv2d(384, 256, 3, padding=1, groups=2, bias=False)     # 192 -> 128
    odd = nn.Conv2d(96, 192, 3, padding=1, groups=2, bias=False)      # 48 -> 96: no form
    narrow = nn.Conv2d(512, 512, 3, padding=1, groups=32, bias=False)  # 16 -> 16
    assert _narrow_groups(wide, sm90=True) and _narrow_groups(two, sm90=True)
    assert not _narrow_groups(wide, sm90=False) and not _narrow_groups(two, sm90=False)
    assert not _narrow_groups(odd, sm90=True)
    assert _narrow_groups(narrow, sm90=True) and _narrow_groups(narrow, sm90=False)


def test_untraceable_model_falls_back():
    class Branchy(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8),
                                      nn.ReLU())
            self.head = nn.Conv2d(8, 2, 1)

        def forward(self, x):
            y = self.body(x)
            if y.sum() > 0:  # data-dependent: fx cannot trace this
                y = y * 2
            return self.head(y)

    opt, rep = check_cpu(Branchy(), torch.randn(2, 3, 8, 8),
                         dict(convs=2, batchnorms=1, activations=1, residuals=0))
    assert rep.traced is False


def test_inference_only_and_bad_arguments():
    m = randomize(nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4)))
    opt = igemm.optimize(m, dtype=torch.float32)
    with pytest.raises(RuntimeError, match="inference-only.*train"):
        opt.train()
    x = torch.randn(1, 3, 5, 5, requires_grad=True)
    with pytest.raises(RuntimeError, match="inference-only.*gradient"):
        opt(x)
    with torch.no_grad():
        assert opt(x).shape == (1, 4, 3, 3)
    m.train()
    with pytest.raises(ValueError, match="model.training = True"):
        igemm.optimize(m)
    with pytest.raises(TypeError, match="dtype = torch.float64"):
        igemm.optimize(m.eval(), dtype=torch.float64)
    with pytest.raises(TypeError, match="model is a"):
        igemm.optimize("resnet")
    # the original is untouched
    assert any(isinstance(c, nn.BatchNorm2d) for c in m.modules())


def test_dtype_keeps_epilogue_float32():
    m = randomize(nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU()))
    opt = igemm.optimize(m)  # float32 model -> bfloat16 by default
    conv = [c for c in opt.modules() if isinstance(c, IgemmConv2d)][0]
    assert conv.weight.dtype == torch.bfloat16
    assert conv.weight.is_contiguous(memory_format=torch.channels_last)
    assert conv.scale.dtype == torch.float32 and conv.bias.dtype == torch.float32
    opt = opt.to(torch.float16)
    assert conv.weight.dtype == torch.float16 and conv.scale.dtype == torch.float32


tv = None
try:
    import torchvision as tv
except Exception:
    pass

NETS = {  # name -> (convs on igemm, batchnorms folded, residuals, pools (max pools, average pools
    # and adaptive average pools to 1: the classifier's and the squeeze-excite blocks'), grouped
    # convs kept in torch) the rewrite must find with grouped=False; with grouped=True
    # every conv goes to igemm (GROUPED_ALL: convs, batchnorms)
    "resnet18": (20, 20, 8, 2, 0),
    "resnet50": (53, 53, 16, 2, 0),
    "resnext50_32x4d": (37, 53, 16, 2, 16),
    "mobilenet_v2": (35, 52, 10, 0, 17),  # its pool is a functional call: left as is
    "mobilenet_v3_large": (47, 46, 10, 9, 15),
    "efficientnet_b0": (65, 49, 9, 17, 16),
    "regnet_y_400mf": (69, 53, 16, 17, 16),
    "convnext_tiny": (4, 0, 0, 1, 18),
    "vgg11_bn": (8, 8, 0, 5, 0),  # its AdaptiveAvgPool2d((7, 7)) stays in torch
}
GROUPED_ALL = {"mobilenet_v2": (52, 52), "resnext50_32x4d": (53, 53), "convnext_tiny": (22, 0)}
# the default grouped="fast": (convs on igemm, grouped convs kept in torch): every depthwise conv
# of these has channels in multiples of 8, every grouped one groups the grouped family takes
# (ResNeXt-50: 32 groups of 4, 8, 16, 32 channels; RegNetY-400MF: groups of 8); with
# grouped="depthwise" (DEPTHWISE_ONLY) ResNeXt's grouped convs stay
DEFAULT_DW = {"mobilenet_v2": (52, 0), "convnext_tiny": (22, 0), "resnext50_32x4d": (53, 0),
              "regnet_y_400mf": (85, 0)}
DEPTHWISE_ONLY = {"resnext50_32x4d": (37, 16), "regnet_y_400mf": (69, 16)}


@pytest.mark.skipif(tv is None, reason="needs torchvision")
@pytest.mark.parametrize("name", sorted(NETS))
def test_torchvision_cpu(name):
    model = getattr(tv.models, name)(weights=None)
    for m in model.modules():  # ConvNeXt's 1e-6 layer scale would hide its blocks
        if hasattr(m, "layer_scale"):
            with torch.no_grad():
                m.layer_scale.fill_(0.5)
    x = torch.randn(1, 3, 96, 96)
    convs, bns, res, pools, grouped = NETS[name]
    _, rep = check_cpu(model, x, tol=1e-4, grouped=False)
    assert (rep.convs, rep.batchnorms, rep.residuals, rep.pools, rep.grouped_in_torch) == (
        convs, bns, res, pools, grouped), rep
    if name in DEFAULT_DW:  # the default grouped="fast": the depthwise and narrow-group convs too
        _, rep = check_cpu(model, x, tol=1e-4)
        assert (rep.convs, rep.grouped_in_torch) == DEFAULT_DW[name], rep
    if name in DEPTHWISE_ONLY:
        _, rep = check_cpu(model, x, tol=1e-4, grouped="depthwise")
        assert (rep.convs, rep.grouped_in_torch) == DEPTHWISE_ONLY[name], rep
    assert "BatchNorm2d" not in rep.left_in_torch and "MaxPool2d" not in rep.left_in_torch
    assert name == "vgg11_bn" or "AdaptiveAvgPool2d" not in rep.left_in_torch
    if name in GROUPED_ALL:  # grouped=True: the grouped convs on igemm too, same function
        model = randomize(getattr(tv.models, name)(weights=None))
        opt, rep = igemm.optimize(model, dtype=torch.float32, report=True, grouped=True)
        assert (rep.convs, rep.batchnorms, rep.grouped_in_torch) == GROUPED_ALL[name] + (0,), rep
        with torch.no_grad():
            assert rel_err(model(x), opt(x.contiguous(memory_format=torch.channels_last))) < 1e-4


# ------------------------------------------------------------------ GPU

cuda = pytest.mark.skipif(not torch.cuda.is_available() or igemm.device_count() == 0,
                          reason="needs a CUDA GPU and a CUDA build of libigemm")


@cuda
@pytest.mark.skipif(tv is None, reason="needs torchvision")
@pytest.mark.parametrize("name,grouped", [("resnet18", False), ("mobilenet_v2", False),
                                          ("mobilenet_v2", "depthwise"),
                                          ("resnext50_32x4d", False), ("resnext50_32x4d", True),
                                          ("regnet_y_400mf", True)])
def test_torchvision_gpu_bf16(name, grouped):
    """igemm-optimized bf16 within 2x torch's own bf16 error against the float32 model, and the
    same under a CUDA graph (grouped=True: the grouped convs on igemm's grouped family)."""
    model = randomize(getattr(tv.models, name)(weights=None)).cuda()
    x = torch.randn(2, 3, 96, 96, device="cuda")
    with torch.no_grad():
        ref = model(x)
        tb = model.to(torch.bfloat16).to(memory_format=torch.channels_last)
        xb = x.to(torch.bfloat16).contiguous(memory_format=torch.channels_last)
        torch_err = rel_err(ref, tb(xb).float())
        model.float()
        opt = igemm.optimize(model, dtype=torch.bfloat16, grouped=grouped)
        out = opt(xb)
        err = rel_err(ref, out.float())
        assert err <= 2 * torch_err + 1e-3, (err, torch_err)
        g = torch.cuda.CUDAGraph()
        static_x = xb.clone()
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            opt(static_x)
        torch.cuda.current_stream().wait_stream(s)
        with torch.cuda.graph(g):
            static_y = opt(static_x)
        static_x.copy_(xb)
        g.replay()
        torch.cuda.synchronize()
        assert torch.equal(static_y, out)


def test_optimized_module_traces_fullgraph():
    """torch.compile(fullgraph=True) traces an optimized model (the prepared-call lookup steps
    aside while compiling); on the CPU the convs compute through torch's ops."""
    m = nn.Sequential(nn.Conv2d(4, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                      nn.MaxPool2d(2), nn.Conv2d(8, 8, 3, padding=1, groups=8), nn.BatchNorm2d(8))
    opt = igemm.optimize(randomize(m), dtype=torch.float32)
    x = torch.randn(2, 4, 10, 10).contiguous(memory_format=torch.channels_last)
    with torch.no_grad():
        ref = opt(x)
        got = torch.compile(opt, backend="eager", fullgraph=True)(x)
    assert rel_err(ref, got) < 1e-6


def test_linear_module_cpu():
    """nn.Linear becomes IgemmLinear (counted), the same function on the CPU (F.linear there)."""
    m = nn.Sequential(nn.Flatten(), nn.Linear(24, 10), nn.ReLU(), nn.Linear(10, 3, bias=False))
    opt, rep = igemm.optimize(m.eval(), dtype=torch.float32, report=True)
    assert rep.linears == 2 and "Linear" not in rep.left_in_torch, rep
    assert isinstance(opt.get_submodule("1"), IgemmLinear)
    x = torch.randn(5, 2, 3, 4)
    with torch.no_grad():
        assert rel_err(m(x), opt(x)) < 1e-5


@cuda
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_linear_module_gpu(dtype):
    """IgemmLinear on the GPU: rows up to 16 run on igemm's few-row kernel (route True), more rows
    on F.linear; every row count within the bf16/fp16 tolerance of a float64 F.linear, with 3-D
    inputs too."""
    torch.manual_seed(3)
    lin = nn.Linear(2048, 1000)
    opt = igemm.optimize(nn.Sequential(lin).cuda().eval(), dtype=dtype)
    mod = opt.get_submodule("0")
    assert isinstance(mod, IgemmLinear)
    for shape in [(1, 2048), (7, 2048), (2, 8, 2048), (17, 2048), (2, 32, 2048), (300, 2048)]:
        x = torch.randn(*shape, device="cuda").to(dtype)
        with torch.no_grad():
            y = opt(x)
            ref = F.linear(x.double(), lin.weight.to("cuda", dtype).double(),
                           lin.bias.to("cuda").double())
        assert y.shape == shape[:-1] + (1000,) and y.dtype == dtype
        err = (y.double() - ref).abs().max().item() / ref.abs().max().item()
        assert err < (8e-3 if dtype == torch.bfloat16 else 2e-3), (shape, err)
        rows = x.numel() // 2048
        assert mod._route[(rows, dtype, 0)] == (rows <= 16), (rows, mod._route)


def test_linear_module_wrong_width_and_dtypes():
    """A wrong input width fails as nn.Linear does; bias_t follows the model's dtype."""
    opt = igemm.optimize(nn.Sequential(nn.Linear(24, 10)).eval(), dtype=torch.bfloat16)
    mod = opt.get_submodule("0")
    assert mod.bias_t.dtype == torch.bfloat16 and mod.conv.bias.dtype == torch.float32
    with pytest.raises(RuntimeError):
        opt(torch.randn(10, 48, dtype=torch.bfloat16))
    y = opt(torch.randn(3, 24))  # float32 on the CPU: torch's ops in x's dtype
    assert y.dtype == torch.float32 and y.shape == (3, 10)


def test_submodules_bound_for_fast_lookup():
    """optimize binds submodules as plain attributes (fx's forward finds them without
    nn.Module.__getattr__); setattr keeps them in step; state_dict and .to() are unchanged."""
    m = nn.Sequential(nn.Conv2d(4, 8, 3, padding=1), nn.ReLU(),
                      nn.Sequential(nn.Conv2d(8, 8, 1), nn.BatchNorm2d(8)), nn.Flatten(),
                      nn.Linear(8 * 6 * 6, 5))
    opt = igemm.optimize(randomize(m), dtype=torch.float32)
    x = torch.randn(2, 4, 6, 6).contiguous(memory_format=torch.channels_last)
    with torch.no_grad():
        ref = m(x)
        assert rel_err(ref, opt(x)) < 1e-5
    bound = [(mod, name) for mod in opt.modules() for name in mod._modules]
    assert bound and all(mod.__dict__.get(name) is mod._modules[name] for mod, name in bound)
    keys = sorted(opt.state_dict())
    opt.to(torch.float64)  # modules keep their identity: the bindings stay valid
    assert sorted(opt.state_dict()) == keys
    with torch.no_grad():
        assert rel_err(ref.double(), opt(x.double())) < 1e-5
    name = next(n for n, c in opt.named_children() if isinstance(c, IgemmLinear))
    setattr(opt, name, nn.Identity())  # nn.Module.__setattr__ drops the stale binding
    assert isinstance(getattr(opt, name), nn.Identity)


def test_avg_pools_cpu():
    """nn.AvgPool2d and nn.AdaptiveAvgPool2d(1) become IgemmAvgPool2d (CPU: torch's functions),
    a ceil_mode or divisor_override pool and AdaptiveAvgPool2d((2, 2)) stay torch modules."""
    from igemm._optimize import IgemmAvgPool2d
    m = nn.Sequential(nn.Conv2d(3, 8, 3), nn.AvgPool2d(2), nn.AvgPool2d(3, 1, 1, count_include_pad=False),
                      nn.AvgPool2d(2, ceil_mode=True), nn.AvgPool2d(2, divisor_override=3),
                      nn.AdaptiveAvgPool2d((2, 2)), nn.AdaptiveAvgPool2d(1))
    opt, rep = igemm.optimize(m.eval(), dtype=torch.float32, report=True)
    kinds = [type(opt.get_submodule(str(i))).__name__ for i in range(1, 7)]
    assert kinds == ["IgemmAvgPool2d", "IgemmAvgPool2d", "AvgPool2d", "AvgPool2d",
                     "AdaptiveAvgPool2d", "IgemmAvgPool2d"], kinds
    assert rep.pools == 3 and isinstance(opt.get_submodule("6"), IgemmAvgPool2d)
    x = torch.randn(2, 3, 21, 21).contiguous(memory_format=torch.channels_last)
    with torch.no_grad():
        assert rel_err(m(x), opt(x)) < 1e-6

