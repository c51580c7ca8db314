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


def test_signature_elements_are_type_exact():
    # a float or bool option (the full path rejects them) must not match a cached int
    assert tb._int_opt(1) == 1 and tb._int_opt((1, 2)) == (1, 2) and tb._int_opt([1, 2]) == (1, 2)
    assert tb._int_opt("same") == "same"
    for bad in (1.0, True, (1.0, 1), (1, False), None, {1: 1}):
        with pytest.raises(tb._Miss):
            tb._int_opt(bad)
    assert tb._float_opt(1) == 1 and tb._float_opt(0.5) == 0.5
    for bad in (True, "1", None):
        with pytest.raises(tb._Miss):
            tb._float_opt(bad)
    assert tb._act_opt(None) is None and tb._act_opt(("leaky_relu", 0.2)) == ("leaky_relu", 0.2)
    with pytest.raises(tb._Miss):
        tb._act_opt(("leaky_relu", True))
    with pytest.raises(tb._Miss):
        tb._tensor_sig([1.0])


def test_cpu_calls_are_not_remembered():
    before = len(tb._calls)
    with pytest.raises(ValueError, match="x.device = cpu"):
        tb.conv2d(torch.randn(1, 8, 4, 4), torch.randn(8, 8, 1, 1))
    assert len(tb._calls) == before


def test_prepared_calls_are_not_copied_or_pickled():
    import copy
    import pickle
    import igemm
    from igemm._optimize import IgemmConv2d
    c = tb._Call(None, (1, 2, 3, 4), (24, 1, 8, 2), torch.float32, torch.device("cpu"), -1)
    assert copy.deepcopy(c) is c and copy.copy(c) is c
    with pytest.raises(TypeError, match="cannot be pickled"):
        pickle.dumps(c)
    m = igemm.optimize(torch.nn.Sequential(torch.nn.Conv2d(4, 4, 3), torch.nn.ReLU()).eval())
    conv = [t for t in m.modules() if isinstance(t, IgemmConv2d)][0]
    conv._calls["k"] = c
    m2 = copy.deepcopy(m)
    conv2 = [t for t in m2.modules() if isinstance(t, IgemmConv2d)][0]
    assert conv2._calls == {} and conv._calls == {"k": c}
    assert pickle.loads(pickle.dumps(conv))._calls == {}
