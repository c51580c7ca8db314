"""igemm.max_pool2d: the ceil_mode rule on the CPU (output sizes against F.max_pool2d's), and on
a GPU the values against F.max_pool2d (bit for bit: a max picks one of its inputs) for random
windows, strides, padding, dilation, ceil_mode, both dtypes, NaN, other layouts, repeated calls,
torch.compile(fullgraph=True) and CUDA-graph capture."""

import random

import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

import igemm  # noqa: E402
from igemm import _pool  # noqa: E402  (loads the torch backend)


def random_pool(rnd):
    k = (rnd.randint(1, 4), rnd.randint(1, 4))
    stride = (rnd.randint(1, 3), rnd.randint(1, 3))
    pad = (rnd.randint(0, k[0] // 2), rnd.randint(0, k[1] // 2))
    dil = (rnd.choice([1, 1, 2]), rnd.choice([1, 1, 2]))
    h = rnd.randint(dil[0] * (k[0] - 1) + 1, 30)
    w = rnd.randint(dil[1] * (k[1] - 1) + 1, 30)
    return k, stride, pad, dil, h, w


def test_ceil_mode_sizes_match_torch():
    rnd = random.Random(3)
    for _ in range(300):
        k, stride, pad, dil, h, w = random_pool(rnd)
        x = torch.empty(1, 1, h, w)
        for ceil in (False, True):
            kern, st, pads, d = _pool.normalise(x, k, stride, pad, dil, ceil)
            assert pads[0] == pad[0] and pads[2] == pad[1]
            want = F.max_pool2d(x, k, stride, pad, dil, ceil_mode=ceil).shape[2:]
            assert _pool._out_hw(x, kern, st, pads, d) == tuple(want), (k, stride, pad, dil, h, w)


def test_argument_errors():
    x = torch.empty(1, 8, 6, 6)
    with pytest.raises(TypeError, match="kernel_size = 2.0"):
        _pool.normalise(x, 2.0, None, 0, 1, False)
    with pytest.raises(ValueError, match="kernel, stride and dilation must be >= 1"):
        _pool.normalise(x, 2, 0, 0, 1, False)
    with pytest.raises(TypeError, match="ceil_mode = 1"):
        _pool.normalise(x, 2, None, 0, 1, 1)
    with pytest.raises(OverflowError, match="padding = 18446744073709551617"):
        _pool.normalise(x, 2, None, 2 ** 64 + 1, 1, False)
    with pytest.raises(ValueError, match="x.device = cpu"):
        igemm.max_pool2d(x.bfloat16(), 3, 2, 1)


gpu = pytest.mark.skipif(not torch.cuda.is_available(), reason="torch sees no CUDA device")


def same(y, ref):
    return y.shape == ref.shape and bool(((y == ref) | (y.isnan() & ref.isnan())).all())


@gpu
def test_max_pool2d_matches_torch():
    rnd = random.Random(5)
    gen = torch.Generator(device="cuda").manual_seed(5)
    for i in range(80):
        k, stride, pad, dil, h, w = random_pool(rnd)
        dt = (torch.bfloat16, torch.float16)[i % 2]
        c = rnd.choice([1, 3, 8, 16, 24, 64]) if i % 3 else 8 * rnd.randint(1, 8)
        ceil = i % 4 == 3
        x = torch.randn(rnd.randint(1, 3), c, h, w, device="cuda", generator=gen).to(dt)
        x.view(-1)[rnd.randrange(x.numel())] = float("nan")
        if i % 5:
            x = x.contiguous(memory_format=torch.channels_last)
        ref = F.max_pool2d(x.float(), k, stride, pad, dil, ceil_mode=ceil).to(dt)
        for _ in range(2):  # the second call takes the prepared path
            y = igemm.max_pool2d(x, k, stride, pad, dil, ceil_mode=ceil)
            assert y.is_contiguous(memory_format=torch.channels_last)
            assert same(y, ref), (i, k, stride, pad, dil, h, w, c, ceil, dt)


@gpu
def test_max_pool2d_compile_graph_and_optimize():
    x = torch.randn(2, 64, 56, 56, device="cuda").to(torch.bfloat16).contiguous(
        memory_format=torch.channels_last)
    ref = F.max_pool2d(x, 3, 2, 1)
    f = torch.compile(lambda t: igemm.max_pool2d(t, 3, 2, 1), fullgraph=True)
    assert same(f(x), ref)
    static = x.clone()
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        igemm.max_pool2d(static, 3, 2, 1)
    torch.cuda.current_stream().wait_stream(s)
    with torch.cuda.graph(g):
        out = igemm.max_pool2d(static, 3, 2, 1)
    static.copy_(x * 2)
    g.replay()
    torch.cuda.synchronize()
    assert same(out, F.max_pool2d(x * 2, 3, 2, 1))
    m = torch.nn.Sequential(torch.nn.MaxPool2d(3, 2, 1), torch.nn.MaxPool2d(2, ceil_mode=True))
    opt, rep = igemm.optimize(m.eval(), dtype=torch.bfloat16, report=True)
    assert rep.pools == 2
    with torch.no_grad():
        assert same(opt(x), m(x))
    with pytest.raises(RuntimeError, match="inference-only"):
        igemm.max_pool2d(x.float().requires_grad_(True).bfloat16(), 3, 2, 1)


# ------------------------------------------------------------------ average pooling


def test_avg_pool_reference_matches_torch():
    """CPU: igemm_avgpool2d_reference (the GPU kernel's oracle) against F.avg_pool2d for random
    windows, strides, padding and both count_include_pad, bit for bit in bf16 (both sum exactly
    and round once), and the global pool against F.adaptive_avg_pool2d(x, 1)."""
    import ctypes
    from igemm._lib import DType, lib, make_pool_desc
    rnd = random.Random(5)
    for it in range(200):
        k, stride, pad, _, h, w = random_pool(rnd)
        n, c = rnd.randint(1, 2), rnd.randint(1, 9)
        cip = it % 2 == 0
        x = torch.randn(n, c, h, w).to(torch.bfloat16)
        want = F.avg_pool2d(x.float(), k, stride, pad, False, cip).to(torch.bfloat16)
        p, q = want.shape[2:]
        xn = x.permute(0, 2, 3, 1).contiguous()
        y = torch.empty(n, p, q, c, dtype=torch.bfloat16)
        d = make_pool_desc(n, h, w, c, k[0], k[1], [pad[0], pad[0], pad[1], pad[1]], list(stride),
                           [1, 1], DType.BF16)
        assert lib().igemm_avgpool2d_reference(ctypes.byref(d), int(cip), xn.data_ptr(), y.data_ptr()) == 0
        assert torch.equal(y.permute(0, 3, 1, 2), want), (k, stride, pad, h, w, cip)
    x = torch.randn(2, 5, 7, 7).to(torch.bfloat16)
    d = make_pool_desc(2, 7, 7, 5, 7, 7, [0, 0, 0, 0], [1, 1], [1, 1], DType.BF16)
    y = torch.empty(2, 1, 1, 5, dtype=torch.bfloat16)
    assert lib().igemm_avgpool2d_reference(ctypes.byref(d), 1, x.permute(0, 2, 3, 1).contiguous().data_ptr(),
                                           y.data_ptr()) == 0
    assert torch.equal(y.permute(0, 3, 1, 2), F.adaptive_avg_pool2d(x.float(), 1).to(torch.bfloat16))


def test_avg_pool_argument_errors():
    x = torch.empty(1, 8, 6, 6).bfloat16()
    with pytest.raises(ValueError, match="x.device = cpu"):
        igemm.avg_pool2d(x, 2)
    with pytest.raises(ValueError, match="output_size = 2"):
        igemm.adaptive_avg_pool2d(x, 2)


def within_ulp(y, ref):
    """|y - ref| within one bf16/fp16 unit in the last place of ref (the kernel multiplies by a
    reciprocal: it may round the other way where the quotient sits on a rounding boundary)."""
    if y.shape != ref.shape:
        return False
    yf, rf = y.float(), ref.float()
    bits = 7 if ref.dtype == torch.bfloat16 else 10
    ulp = torch.exp2(torch.floor(torch.log2(rf.abs().clamp_min(1e-30))) - bits)
    return bool((((yf - rf).abs() <= 1.01 * ulp + 1e-7) | (yf.isnan() & rf.isnan())).all())


@gpu
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_avg_pool2d_matches_torch(dtype):
    rnd = random.Random(11)
    for it in range(60):
        k, stride, pad, _, h, w = random_pool(rnd)
        cip = it % 2 == 0
        x = torch.randn(rnd.randint(1, 3), 8 * rnd.randint(1, 6) if it % 3 else rnd.randint(1, 13), h, w,
                        device="cuda").to(dtype).contiguous(memory_format=torch.channels_last)
        want = F.avg_pool2d(x.float(), k, stride, pad, False, cip).to(dtype)
        assert within_ulp(igemm.avg_pool2d(x, k, stride, pad, False, cip), want), (it, k, stride, pad, h, w)
    x = torch.randn(4, 64, 7, 7, device="cuda").to(dtype).contiguous(memory_format=torch.channels_last)
    y = igemm.adaptive_avg_pool2d(x, 1)
    assert y.shape == (4, 64, 1, 1) and within_ulp(y, F.adaptive_avg_pool2d(x.float(), 1).to(dtype))
    y2 = torch.ops.igemm.avg_pool2d(x, [7, 7], [1, 1], [0, 0, 0, 0], True)
    assert torch.equal(y, y2)
