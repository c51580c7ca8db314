"""igemm.matmul (GEMM plans, issue 27): the descriptor geometry it derives from torch shapes and
strides (in place where the GEMM descriptor can describe an operand, copies otherwise; on CPU
tensors: no GPU needed), the op's meta/fake kernel and argument errors; on a GPU the values against
float64 torch.matmul over batch broadcasting, transposed and strided operands, odd sizes, fp16/bf16
in and f16/bf16/f32 out, and under torch.compile."""

import random

import pytest

torch = pytest.importorskip("torch")

import igemm  # noqa: E402
from igemm import _lib  # noqa: E402
from igemm import _matmul  # noqa: E402  (registers torch.ops.igemm.matmul)
from igemm_torch_ref import assert_close  # noqa: E402


def _g(a, b):
    g, a2, b2 = _matmul.gemm_layout(a, b)
    return g, a2, b2


def test_layout_in_place():
    a = torch.empty(6, 40, dtype=torch.bfloat16)
    b = torch.empty(40, 24, dtype=torch.bfloat16)
    g, a2, b2 = _g(a, b)
    assert (g["m"], g["n"], g["k"], g["batch"]) == (6, 24, 40, 1)
    assert (g["b_layout"], g["lda"], g["ldb"], g["ldd"]) == (_lib.B_KN, 40, 24, 24)
    assert a2.data_ptr() == a.data_ptr() and b2.data_ptr() == b.data_ptr()
    w = torch.empty(24, 40, dtype=torch.bfloat16)  # weight.t(): N x K, K-major
    g, _, b2 = _g(a, w.t())
    assert (g["b_layout"], g["ldb"]) == (_lib.B_NK, 40) and b2.data_ptr() == w.data_ptr()
    big = torch.empty(6, 64, dtype=torch.bfloat16)  # a with a padded row pitch
    g, a2, _ = _g(big[:, :40], b)
    assert g["lda"] == 64 and a2.data_ptr() == big.data_ptr()


def test_layout_batches_and_broadcast():
    a = torch.empty(3, 5, 6, 40, dtype=torch.float16)
    b = torch.empty(40, 24, dtype=torch.float16)  # one B for every batch entry
    g, _, _ = _g(a, b)
    assert (g["batch"], g["batch_stride_a"], g["batch_stride_b"], g["batch_stride_d"]) == (15, 240, 0, 144)
    assert g["out_shape"] == (3, 5, 6, 24)
    b2 = torch.empty(5, 40, 24, dtype=torch.float16)  # broadcast over the leading 3
    g, a2, bb = _g(a, b2)
    assert g["batch"] == 15 and g["batch_stride_b"] is not None
    # a (3, 1, M, K) against b (5, K, N): the broadcast dimension of a mixes with a real one, so
    # a is expanded; b's leading broadcast mixes too, so it is expanded
    a3 = torch.empty(3, 1, 6, 40, dtype=torch.float16)
    g, a4, b4 = _g(a3, b2)
    assert a4.shape[:2] == (3, 5) and g["batch_stride_a"] == 240 and g["batch_stride_b"] == 960
    # every other matrix: one batch stride still describes it (read in place)
    a5 = torch.empty(6, 6, 40, dtype=torch.float16)[::2]
    g, a6, _ = _g(a5, b)
    assert a6.data_ptr() == a5.data_ptr() and g["batch_stride_a"] == 480
    # batch dimensions out of row-major order: no single stride, so the operand is copied
    a7 = torch.empty(5, 3, 6, 40, dtype=torch.float16).transpose(0, 1)
    g, a8, _ = _g(a7, b)
    assert a8.is_contiguous() and g["batch_stride_a"] == 240 and g["batch"] == 15


def test_meta_and_errors():
    a = torch.empty(2, 5, 40, device="meta", dtype=torch.bfloat16)
    b = torch.empty(40, 72, device="meta", dtype=torch.bfloat16)
    y = torch.ops.igemm.matmul(a, b, torch.float32)
    assert y.shape == (2, 5, 72) and y.dtype == torch.float32
    with pytest.raises(ValueError, match="a.device = cpu"):
        igemm.matmul(torch.randn(3, 4), torch.randn(4, 5))
    with pytest.raises(TypeError, match="a and b must be torch.Tensors"):
        igemm.matmul(torch.randn(3, 4), [[1.0]])


gpu = pytest.mark.skipif(not torch.cuda.is_available() or igemm.device_count() == 0,
                         reason="needs a CUDA GPU and a CUDA build")


@gpu
def test_matmul_matches_float64():
    rnd = random.Random(5)
    for i in range(30):
        dt = (torch.bfloat16, torch.float16)[i % 2]
        od = [None, torch.float32, dt][i % 3]
        m, k, n = rnd.randint(1, 150), rnd.randint(1, 200), rnd.randint(1, 150)
        if i % 4 == 0:
            k, n = 8 * rnd.randint(1, 30), 8 * rnd.randint(1, 30)
        ba = [(), (3,), (2, 3)][i % 3]
        bb = [(), (3,), (1, 3), (2, 1)][i % 4] if ba else ()
        g = torch.Generator(device="cuda").manual_seed(i)
        a = (torch.randint(-32, 33, ba + (m, k), device="cuda", generator=g) / 32).to(dt)
        if i % 5 == 1:  # b as a transposed N x K matrix (weight.t())
            b = (torch.randint(-32, 33, bb + (n, k), device="cuda", generator=g) / 32).to(dt).transpose(-1, -2)
        else:
            b = (torch.randint(-32, 33, bb + (k, n), device="cuda", generator=g) / 32).to(dt)
        if i % 7 == 2:  # a with a padded row pitch
            a = torch.nn.functional.pad(a, (0, 8))[..., :k]
        out_t = dt if od is None else od
        with torch.no_grad():
            y = igemm.matmul(a, b, out_dtype=od)
        ref = a.double() @ b.double()
        rtol = {torch.bfloat16: 2.0 ** -7, torch.float16: 2.0 ** -10, torch.float32: 1e-5}[out_t]
        assert y.dtype == out_t and y.shape == ref.shape
        assert_close(y, ref, rtol, 2.0 ** -19 * k * 3 + 1e-5, "matmul %d" % i)


@gpu
def test_matmul_compiles():
    a = torch.randn(4, 33, 256, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(512, 256, device="cuda", dtype=torch.bfloat16)
    with torch.no_grad():
        y = igemm.matmul(a, w.t(), out_dtype=torch.float32)
        f = torch.compile(lambda t: igemm.matmul(t, w.t(), out_dtype=torch.float32), fullgraph=True)
        yc = f(a)
        ref = a.float() @ w.float().t()
    assert (y - ref).abs().max() < 1e-3 * ref.abs().max()
    assert torch.equal(y, yc)
