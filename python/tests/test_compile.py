"""igemm.conv2d inside torch.compile(fullgraph=True): the custom op igemm::conv2d, no graph
breaks (skips without torch + CUDA)."""

import os
import subprocess
import sys
import textwrap

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("torch sees no CUDA device", allow_module_level=True)

import torch._dynamo  # noqa: E402

import igemm  # noqa: E402
from igemm_torch_ref import assert_close, expected, grid, tolerance  # noqa: E402

if igemm.device_count() == 0:
    pytest.skip("libigemm sees no CUDA device (built without CUDA?)", allow_module_level=True)


class TwoConvs(torch.nn.Module):
    """conv3x3 + bias + relu, then conv3x3 + bias + residual(first output) + relu."""

    def __init__(self, c=16, k=32, dtype=torch.bfloat16):
        super().__init__()
        self.w1 = torch.nn.Parameter(grid((k, c, 3, 3), dtype), requires_grad=False)
        self.b1 = torch.nn.Parameter(grid((k,), torch.float32), requires_grad=False)
        self.w2 = torch.nn.Parameter(grid((k, k, 3, 3), dtype), requires_grad=False)
        self.b2 = torch.nn.Parameter(grid((k,), torch.float32), requires_grad=False)

    def forward(self, x):
        y = igemm.conv2d(x, self.w1, self.b1, padding=1, activation="relu")
        return igemm.conv2d(y, self.w2, self.b2, padding=1, residual=y, activation="relu")


def op_targets(gm):
    return [n.target for n in gm.graph.nodes if n.op == "call_function"]


@pytest.fixture(autouse=True)
def _reset_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def test_fullgraph_matches_eager():
    torch.manual_seed(0)
    m = TwoConvs().cuda()
    x = grid((2, 16, 12, 12), torch.bfloat16)
    with torch.no_grad():
        want = m(x)
        compiled = torch.compile(m, fullgraph=True)
        got = compiled(x)
        got2 = compiled(grid((2, 16, 12, 12), torch.bfloat16))
    assert got.is_contiguous(memory_format=torch.channels_last)
    assert torch.equal(got, want)  # the same op, the same plan: bitwise equal
    assert got2.shape == want.shape
    # and the first layer alone against float64
    with torch.no_grad():
        y1 = torch.compile(lambda t: igemm.conv2d(t, m.w1, m.b1, padding=1, activation="relu"),
                           fullgraph=True)(x)
    ref = expected(x, m.w1, (1, 1), (1, 1, 1, 1), (1, 1), 1, m.b1, act="relu")
    rtol, atol = tolerance(torch.bfloat16, 16 * 9, bias=m.b1)
    assert_close(y1, ref, rtol, atol, "compiled layer 1")


def test_no_graph_break_and_op_in_graph():
    m = TwoConvs().cuda()
    x = grid((1, 16, 8, 8), torch.bfloat16)
    with torch.no_grad():
        explanation = torch._dynamo.explain(m)(x)
    assert explanation.graph_break_count == 0, explanation.break_reasons
    assert explanation.graph_count == 1
    torch._dynamo.reset()
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    with torch.no_grad():
        torch.compile(m, backend=backend, fullgraph=True)(x)
    assert len(graphs) == 1
    targets = op_targets(graphs[0])
    assert targets.count(torch.ops.igemm.conv2d.default) == 2, targets


def test_dynamic_batch():
    m = TwoConvs().cuda()
    compiled = torch.compile(m, fullgraph=True, dynamic=True)
    with torch.no_grad():
        for n in (2, 3, 5):
            x = grid((n, 16, 10, 10), torch.bfloat16)
            y = compiled(x)
            assert y.shape == (n, 32, 10, 10)
            assert torch.equal(y, m(x))


def test_compiled_bad_scalar_raises():
    """Under torch.compile the Python-side checks step aside (alpha may be symbolic); the op's
    implementation still refuses a NaN alpha, naming it."""
    x = grid((2, 16, 10, 10), torch.bfloat16)
    w = grid((32, 16, 3, 3), torch.bfloat16)

    def f(x, w):
        return igemm.conv2d(x, w, padding=1, alpha=float("nan"))

    with pytest.raises(Exception, match="alpha = nan"):
        torch.compile(f, fullgraph=True)(x, w)
    with pytest.raises(Exception, match="alpha = nan"):
        torch.compile(f, fullgraph=True, dynamic=True)(x, w)


def test_reduce_overhead_cudagraphs():
    m = TwoConvs().cuda()
    compiled = torch.compile(m, fullgraph=True, mode="reduce-overhead")
    x = grid((2, 16, 10, 10), torch.bfloat16)
    with torch.no_grad():
        want = m(x)
        for _ in range(4):  # warm-up runs, then recording and replays
            got = compiled(x)
        torch.cuda.synchronize()
    assert torch.equal(got, want)


def test_compile_first_when_igemm_imported_before_torch():
    """A fresh interpreter imports igemm first (torch not yet imported) and whose first call
    is inside torch.compile(fullgraph=True)."""
    code = textwrap.dedent("""
        import igemm
        import torch
        w = torch.randn(8, 8, 3, 3, device="cuda").to(torch.float16)
        w = w.contiguous(memory_format=torch.channels_last)
        f = torch.compile(lambda x: igemm.conv2d(x, w, padding=1, activation="silu"),
                          fullgraph=True)
        x = torch.randn(1, 8, 6, 6, device="cuda").to(torch.float16)
        x = x.contiguous(memory_format=torch.channels_last)
        with torch.no_grad():
            y = f(x)
            assert torch.equal(y, igemm.conv2d(x, w, padding=1, activation="silu"))
        print("ok")
    """)
    env = dict(os.environ)
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = pkg + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-4000:]
    assert out.stdout.strip().endswith("ok")
