"""The eager fast path of igemm.conv2d (the op's implementation called without the custom-op
dispatch) is taken only for plain eager tensors; every tracer, mode, subclass and gradient
request goes through torch.ops.igemm.conv2d. The gate is checked here on CPU tensors (it does
not look at the device); the results of both paths are compared on the GPU in test_torch.py."""

import pytest

torch = pytest.importorskip("torch")

from igemm import _torch as tb  # noqa: E402


def ok(x, w=None, bias=None, scale=None, residual=None):
    return tb._direct_ok(x, x if w is None else w, bias, scale, residual)


def test_plain_tensors_take_the_direct_path():
    assert tb._DIRECT_CAPABLE
    x = torch.randn(2, 3)
    assert ok(x)
    assert ok(x, bias=torch.randn(3), scale=torch.randn(3), residual=torch.randn(2, 3))


def test_gradients_go_through_the_op():
    x = torch.randn(2, 3)
    g = torch.randn(2, 3, requires_grad=True)
    assert not ok(g)
    assert not ok(x, w=g)
    assert not ok(x, bias=torch.randn(3, requires_grad=True))
    with torch.no_grad():
        assert ok(g)  # no gradient can be asked for


def test_fake_tensors_and_modes_go_through_the_op():
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.overrides import TorchFunctionMode

    with FakeTensorMode():
        f = torch.empty(2, 3)
        assert not ok(f)

    class Spy(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    class FSpy(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    x = torch.randn(2, 3)
    with Spy():
        assert not ok(x)
    with FSpy():
        assert not ok(x)
    assert ok(x)


def test_subclasses_and_vmap_go_through_the_op():
    class Sub(torch.Tensor):
        pass

    x = torch.randn(2, 3)
    assert not ok(x.as_subclass(Sub))
    seen = []

    def f(t):
        seen.append(ok(t))
        return t * 2

    torch.vmap(f)(torch.randn(4, 3))
    assert seen == [False]


def test_compile_and_jit_trace_go_through_the_op():
    def f(t):
        return t + (1 if ok(t) else 0)

    x = torch.zeros(3)
    assert torch.equal(f(x), torch.ones(3))  # eager: direct
    compiled = torch.compile(f, backend="eager", fullgraph=True)
    assert torch.equal(compiled(x), torch.zeros(3))
    traced = torch.jit.trace(f, (x,), check_trace=False)
    assert torch.equal(traced(x), torch.zeros(3))
