"""igemm.linear (GEMM plans, issue 27): the ctypes GEMM descriptor against the C library, the
op's meta/fake kernel, argument errors; on a GPU the values against float64 F.linear with every
epilogue term, odd shapes, fp16/bf16 in and f16/bf16/f32 out, and under torch.compile."""

import ctypes
import random

import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

import igemm  # noqa: E402
from igemm import _lib  # noqa: E402
from igemm import _linear  # noqa: E402  (registers torch.ops.igemm.linear)
from igemm_torch_ref import act_f64, act_name_param, assert_close  # noqa: E402


def test_gemm_desc_layout_matches_the_library():
    d = _lib.lib().igemm_gemm_desc_packed(5, 7, 9, 2, _lib.B_KN, int(_lib.DType.BF16),
                                          int(_lib.DType.F32))
    assert (d.m, d.n, d.k, d.batch, d.b_layout) == (5, 7, 9, 2, _lib.B_KN)
    assert (d.lda, d.ldb, d.ldd) == (9, 7, 7)
    assert (d.batch_stride_a, d.batch_stride_b, d.batch_stride_d) == (45, 63, 35)
    assert (d.a_dtype, d.b_dtype, d.d_dtype) == (1, 1, 2)
    g = _lib.make_gemm_desc(100, 72, 40, _lib.DType.F16, _lib.DType.F16)
    assert _lib.lib().igemm_gemm_validate(ctypes.byref(g)) == 0
    g.lda = 3
    assert _lib.lib().igemm_gemm_validate(ctypes.byref(g)) == int(_lib.Status.INVALID_VALUE)
    assert "gemm.lda = 3" in _lib.last_error()
    with pytest.raises(OverflowError, match="gemm descriptor m"):
        _lib.make_gemm_desc(2 ** 64, 1, 1, _lib.DType.F16, _lib.DType.F16)


@pytest.mark.skipif(igemm.device_count() > 0, reason="a GPU plans the GEMM")
def test_gemm_plan_without_a_gpu():
    g = _lib.make_gemm_desc(100, 72, 40, _lib.DType.BF16, _lib.DType.BF16)
    e = _lib.make_epilogue(1.0, 1.0, False, False, False, 0, 0.01)
    with pytest.raises(igemm.IgemmError) as info:
        _lib.Plan(g, e)
    assert info.value.status == igemm.Status.NO_DEVICE
    assert info.value.function == "igemm_gemm_plan_create"


def test_meta_shapes_and_errors():
    assert _linear.linear is not None
    x = torch.empty(2, 5, 40, device="meta", dtype=torch.bfloat16)
    w = torch.empty(72, 40, device="meta", dtype=torch.bfloat16)
    y = torch.ops.igemm.linear(x, w, None, None, None, 1.0, 1.0, "none", 0.01, torch.float32)
    assert y.shape == (2, 5, 72) and y.dtype == torch.float32
    with pytest.raises(ValueError, match="x.device = cpu"):
        igemm.linear(torch.randn(3, 4), torch.randn(5, 4))
    with pytest.raises(TypeError, match="x and weight must be torch.Tensors"):
        igemm.linear(torch.randn(3, 4), [[1.0]])


gpu = pytest.mark.skipif(not torch.cuda.is_available() or igemm.device_count() == 0,
                         reason="needs a CUDA GPU and a CUDA build")


@gpu
def test_linear_matches_float64():
    rnd = random.Random(11)
    acts = [None, "relu", "gelu", "silu", "hardswish", ("leaky_relu", 0.2)]
    for i in range(40):
        dt = (torch.bfloat16, torch.float16)[i % 2]
        od = [None, torch.float32, dt][i % 3]
        lead = [(rnd.randint(1, 70),), (rnd.randint(1, 3), rnd.randint(1, 40)), ()][i % 3]
        k = 8 * rnd.randint(1, 40) if i % 4 else rnd.randint(1, 50)
        n = 8 * rnd.randint(1, 40) if i % 5 else rnd.randint(1, 50)
        g = torch.Generator(device="cuda").manual_seed(i)
        x = (torch.randint(-64, 65, lead + (k,), device="cuda", generator=g) / 64).to(dt)
        w = (torch.randint(-64, 65, (n, k), device="cuda", generator=g) / 64).to(dt)
        bias = torch.randn(n, device="cuda", generator=g) if i % 2 else None
        scale = torch.rand(n, device="cuda", generator=g) + 0.5 if i % 3 == 1 else None
        out_t = dt if od is None else od
        res = (torch.randn(lead + (n,), device="cuda", generator=g).to(out_t)
               if i % 4 == 1 else None)
        act = acts[i % len(acts)]
        y = igemm.linear(x, w, bias, act, scale=scale, residual=res, alpha=0.5, beta=1.5,
                         out_dtype=od)
        v = 0.5 * (x.double() @ w.double().t())
        if scale is not None:
            v = v * scale.double()
        if bias is not None:
            v = v + bias.double()
        if res is not None:
            v = v + 1.5 * res.double()
        name, param = act_name_param(act)
        ref = act_f64(name, v, param)
        rtol = {torch.bfloat16: 2.0 ** -7, torch.float16: 2.0 ** -10, torch.float32: 1e-5}[out_t]
        assert y.dtype == out_t and y.shape == lead + (n,)
        assert_close(y, ref, rtol, 2.0 ** -19 * k * 3 + 1e-5, "linear %d" % i)


@gpu
def test_linear_compiles_and_matches_f_linear():
    x = torch.randn(4, 33, 256, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(512, 256, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(512, device="cuda")
    with torch.no_grad():
        ref = F.relu(F.linear(x.float(), w.float(), b))
        y = igemm.linear(x, w, b, "relu", out_dtype=torch.float32)
        f = torch.compile(lambda t: igemm.linear(t, w, b, "relu", out_dtype=torch.float32),
                          fullgraph=True)
        yc = f(x)
    assert (y - ref).abs().max() < 1e-3 * ref.abs().max()
    assert torch.equal(y, yc)
