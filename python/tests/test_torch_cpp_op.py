"""The C++ kernel of torch.ops.igemm.conv2d (python/igemm/csrc/conv2d_op.cpp, `make torchop`):
where it was built it is loaded and registered; on the GPU a repeated signature is served from its
table, with the result of the Python path bit for bit, and what the table cannot take (another
layout, a misaligned view, gradients) still goes to the Python kernel. Skips where the library was
built without it."""

import pytest

torch = pytest.importorskip("torch")

import igemm  # noqa: E402
from igemm import _torch as tb  # noqa: E402

needs_op = pytest.mark.skipif(not tb._CPP_OP, reason="igemm_torch_op.so not built (make torchop)")
needs_gpu = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")


@needs_op
def test_the_cpp_kernel_is_registered():
    assert torch.ops.igemm.conv2d_py.default is not None
    igemm.clear_plan_cache()
    assert torch.ops.igemm._cpp_calls_size() == 0


def _args(x, w, bias=None, scale=None, residual=None, act="none"):
    return (x, w, bias, scale, residual, [1, 1], [1, 1, 1, 1], [1, 1], 1, 1.0, 1.0, act, 0.0, None)


@needs_op
@needs_gpu
def test_repeated_signatures_run_from_the_table():
    igemm.clear_plan_cache()
    g = torch.Generator(device="cuda").manual_seed(7)
    x = torch.randn(2, 32, 9, 11, device="cuda", generator=g).to(torch.bfloat16)
    w = torch.randn(48, 32, 3, 3, device="cuda", generator=g).to(torch.bfloat16)
    x, w = (t.contiguous(memory_format=torch.channels_last) for t in (x, w))
    bias = torch.randn(48, device="cuda", generator=g)
    res = torch.randn(2, 48, 9, 11, device="cuda", generator=g).to(torch.bfloat16)
    res = res.contiguous(memory_format=torch.channels_last)
    ref = igemm.conv2d(x, w, bias, padding=1, residual=res, activation="relu")
    op = torch.ops.igemm.conv2d
    first = op(*_args(x, w, bias, None, res, "relu"))  # the Python kernel, which registers it
    assert torch.ops.igemm._cpp_calls_size() >= 1
    hits = torch.ops.igemm._cpp_table_hits()
    for _ in range(3):  # the table
        y = op(*_args(x, w, bias, None, res, "relu"))
        assert torch.equal(y, ref) and torch.equal(first, ref)
        assert y.is_contiguous(memory_format=torch.channels_last)
    assert torch.ops.igemm._cpp_table_hits() == hits + 3
    # another layout of x: the table's entry must not take it (the Python kernel converts)
    xc = x.contiguous()
    assert torch.equal(op(*_args(xc, w, bias, None, res, "relu")), ref)
    assert torch.ops.igemm._cpp_table_hits() == hits + 3
    # a misaligned view (an offset of one element): same shape, same signature, not 16-byte aligned
    big = torch.empty(x.numel() + 8, device="cuda", dtype=x.dtype)
    xs = big[1:1 + x.numel()].view(2, 9, 11, 32).permute(0, 3, 1, 2)
    xs.copy_(x)
    assert xs.is_contiguous(memory_format=torch.channels_last) and xs.data_ptr() % 16
    ym = op(*_args(xs, w, bias, None, res, "relu")).float()  # (the plan's fallback path: not bit for bit)
    assert (ym - ref.float()).abs().max() <= 0.02 * ref.float().abs().max()
    # gradients are refused by the Python kernel, not run
    with pytest.raises(RuntimeError, match="inference"):
        op(*_args(x.detach().requires_grad_(), w, bias, None, res, "relu"))
    igemm.clear_plan_cache()
    assert torch.ops.igemm._cpp_calls_size() == 0
    assert torch.equal(op(*_args(x, w, bias, None, res, "relu")), ref)  # planned again


@needs_op
@needs_gpu
def test_graph_capture_runs_the_table_entry():
    g = torch.Generator(device="cuda").manual_seed(8)
    x = torch.randn(1, 64, 14, 14, device="cuda", generator=g).half().contiguous(memory_format=torch.channels_last)
    w = torch.randn(64, 64, 3, 3, device="cuda", generator=g).half().contiguous(memory_format=torch.channels_last)
    op = torch.ops.igemm.conv2d
    ref = op(*_args(x, w))
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        op(*_args(x, w))
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y = op(*_args(x, w))
    x.copy_(x * 0.5)
    graph.replay()
    torch.cuda.synchronize()
    assert torch.equal(y, op(*_args(x, w)))
    assert not torch.equal(y, ref)


@needs_op
@pytest.mark.skipif(not torch.cuda.is_available() or torch.cuda.device_count() < 2, reason="needs two GPUs")
def test_second_device_from_the_table():
    # tensors on cuda:1 while cuda:0 is current: the table entry runs on cuda:1 (its device made
    # current for the launch, then restored)
    g = torch.Generator(device="cuda:1").manual_seed(9)
    x = torch.randn(2, 32, 8, 8, device="cuda:1", generator=g).to(torch.bfloat16)
    w = torch.randn(16, 32, 3, 3, device="cuda:1", generator=g).to(torch.bfloat16)
    x, w = (t.contiguous(memory_format=torch.channels_last) for t in (x, w))
    with torch.cuda.device(1):
        ref = igemm.conv2d(x, w, padding=1)
    op = torch.ops.igemm.conv2d
    with torch.cuda.device(0):
        first = op(*_args(x, w))  # the Python kernel registers the signature
        hits = torch.ops.igemm._cpp_table_hits()
        y = op(*_args(x, w))
        assert torch.ops.igemm._cpp_table_hits() == hits + 1
        assert torch.cuda.current_device() == 0
    torch.cuda.synchronize(1)
    assert y.device == x.device and torch.equal(y, ref) and torch.equal(first, ref)
