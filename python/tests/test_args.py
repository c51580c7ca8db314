"""Argument parsing (pure Python; needs neither the library nor numpy nor torch)."""

import pytest

from igemm import _args
from igemm._lib import Activation


def test_pair():
    assert _args.pair(2, "stride") == (2, 2)
    assert _args.pair((1, 3), "stride") == (1, 3)
    assert _args.pair([4, 5], "dilation") == (4, 5)
    with pytest.raises(TypeError, match=r"stride = 1\.5"):
        _args.pair(1.5, "stride")
    with pytest.raises(ValueError, match=r"stride = \(1, 2, 3\)"):
        _args.pair((1, 2, 3), "stride")
    with pytest.raises(TypeError, match="dilation"):
        _args.pair("2", "dilation")


@pytest.mark.parametrize("padding,expected", [
    (0, (0, 0, 0, 0)),
    (2, (2, 2, 2, 2)),
    ((1, 3), (1, 1, 3, 3)),
    ((0, 1, 2, 3), (0, 1, 2, 3)),
    ([4, 0, 0, 1], (4, 0, 0, 1)),
    ("valid", (0, 0, 0, 0)),
])
def test_padding_forms(padding, expected):
    assert _args.padding4(padding, 3, 3, (1, 1), (1, 1)) == expected


def test_padding_same():
    # odd filter: symmetric; even filter: the extra one at the bottom/right (like PyTorch)
    assert _args.padding4("same", 3, 5, (1, 1), (1, 1)) == (1, 1, 2, 2)
    assert _args.padding4("same", 4, 2, (1, 1), (1, 1)) == (1, 2, 0, 1)
    assert _args.padding4("same", 3, 3, (1, 1), (2, 3)) == (2, 2, 3, 3)
    assert _args.padding4("SAME", 1, 1, (1, 1), (1, 1)) == (0, 0, 0, 0)
    with pytest.raises(ValueError, match="stride 1"):
        _args.padding4("same", 3, 3, (2, 1), (1, 1))


def test_padding_bad():
    with pytest.raises(ValueError, match="padding = 'full'"):
        _args.padding4("full", 3, 3, (1, 1), (1, 1))
    with pytest.raises(ValueError, match=r"padding = \(1, 2, 3\)"):
        _args.padding4((1, 2, 3), 3, 3, (1, 1), (1, 1))
    with pytest.raises(TypeError, match="padding"):
        _args.padding4(0.5, 3, 3, (1, 1), (1, 1))


@pytest.mark.parametrize("spec,name,code,param", [
    (None, "none", Activation.NONE, 0.01),
    ("relu", "relu", Activation.RELU, 0.01),
    ("ReLU6", "relu6", Activation.RELU6, 0.01),
    ("leaky_relu", "leaky_relu", Activation.LEAKY_RELU, 0.01),
    (("leaky_relu", 0.2), "leaky_relu", Activation.LEAKY_RELU, 0.2),
    (["leaky_relu", 1], "leaky_relu", Activation.LEAKY_RELU, 1.0),
    (("relu",), "relu", Activation.RELU, 0.01),
    ("gelu", "gelu", Activation.GELU_ERF, 0.01),
    ("gelu_tanh", "gelu_tanh", Activation.GELU_TANH, 0.01),
    ("silu", "silu", Activation.SILU, 0.01),
    ("sigmoid", "sigmoid", Activation.SIGMOID, 0.01),
    ("tanh", "tanh", Activation.TANH, 0.01),
    ("Hardswish", "hardswish", Activation.HARDSWISH, 0.01),
    ("hardsigmoid", "hardsigmoid", Activation.HARDSIGMOID, 0.01),
])
def test_activation(spec, name, code, param):
    n, p = _args.activation(spec)
    assert n == name and p == pytest.approx(param)
    assert _args.act_code(n) == code


def test_activation_bad():
    with pytest.raises(ValueError, match="activation = 'softplus'"):
        _args.activation("softplus")
    with pytest.raises(ValueError, match="only leaky_relu takes a parameter"):
        _args.activation(("relu", 0.5))
    with pytest.raises(ValueError, match="activation"):
        _args.activation(("leaky_relu", 0.1, 2))
    with pytest.raises(ValueError, match="activation"):
        _args.activation(3)
    with pytest.raises(TypeError, match="slope"):
        _args.activation(("leaky_relu", "steep"))


def test_scalar():
    assert _args.scalar(2, "alpha") == 2.0
    assert _args.scalar(-3.4e38, "beta") == -3.4e38
    with pytest.raises(TypeError, match="alpha = 'x'"):
        _args.scalar("x", "alpha")


@pytest.mark.parametrize("v", [float("nan"), float("inf"), float("-inf"), "nan", "inf"])
def test_scalar_not_finite(v):
    with pytest.raises(ValueError, match="beta = .*finite"):
        _args.scalar(v, "beta")


@pytest.mark.parametrize("v", [1e39, -3.5e38, 10 ** 400, 2 ** 200])
def test_scalar_beyond_float32(v):
    # ctypes would round 1e39 to inf as a float32 and fail on 10**400 with a bare message
    with pytest.raises(OverflowError, match="alpha = .*32-bit float"):
        _args.scalar(v, "alpha")


def test_activation_slope_checked():
    with pytest.raises(ValueError, match="slope = nan"):
        _args.activation(("leaky_relu", float("nan")))
    with pytest.raises(OverflowError, match="slope"):
        _args.activation(("leaky_relu", 1e40))


@pytest.mark.parametrize("v", [2 ** 63, 2 ** 64 + 1, -(2 ** 63) - 1, 10 ** 30])
def test_int_beyond_int64(v):
    # 2**64 + 1 used to reach ctypes and silently become padding 1; 2**63 a negative pad
    with pytest.raises(OverflowError, match=r"stride = %d: does not fit a 64-bit" % v):
        _args.pair(v, "stride")
    with pytest.raises(OverflowError, match="padding = %d" % v):
        _args.padding4(v, 3, 3, (1, 1), (1, 1))
    with pytest.raises(OverflowError, match="padding = %d" % v):
        _args.padding4((0, 0, v, 0), 3, 3, (1, 1), (1, 1))
    with pytest.raises(OverflowError, match="dilation = %d" % v):
        _args.pair((1, v), "dilation")
    with pytest.raises(OverflowError, match="groups = %d" % v):
        _args._as_int(v, "groups")


def test_int_bounds_exact():
    assert _args._as_int(2 ** 63 - 1, "padding") == 2 ** 63 - 1
    assert _args._as_int(-(2 ** 63), "padding") == -(2 ** 63)


def test_int_like_converted_and_checked():
    class Idx(object):
        def __init__(self, v):
            self.v = v

        def __index__(self):
            return self.v

    v = _args._as_int(Idx(7), "stride")
    assert v == 7 and type(v) is int
    with pytest.raises(OverflowError, match="stride = %d" % (2 ** 64 - 1)):
        _args._as_int(Idx(2 ** 64 - 1), "stride")  # e.g. a numpy uint64
    with pytest.raises(TypeError, match="stride = True"):
        _args._as_int(True, "stride")


def test_ctypes_backstops():
    """make_desc / make_epilogue refuse what ctypes would wrap or round (needs no library)."""
    from igemm import _lib
    pads, one = (0, 0, 0, 0), (1, 1)
    d = _lib.make_desc(1, 8, 8, 4, 4, 3, 3, 1, pads, one, one, 0, 0)
    assert (d.n, d.h, d.c, d.pad_left, d.stride_w) == (1, 8, 4, 0, 1)
    with pytest.raises(OverflowError, match="pad_top = %d" % (2 ** 64 + 1)):
        _lib.make_desc(1, 8, 8, 4, 4, 3, 3, 1, (2 ** 64 + 1, 0, 0, 0), one, one, 0, 0)
    with pytest.raises(OverflowError, match="n = %d" % (2 ** 63)):
        _lib.make_desc(2 ** 63, 8, 8, 4, 4, 3, 3, 1, pads, one, one, 0, 0)
    e = _lib.make_epilogue(0.5, 1.0, False, False, False, 0, 0.01)
    assert e.alpha == 0.5 and e.beta == 1.0
    with pytest.raises(ValueError, match="alpha = nan"):
        _lib.make_epilogue(float("nan"), 1.0, False, False, False, 0, 0.01)
    with pytest.raises(OverflowError, match=r"beta = 1e\+39"):
        _lib.make_epilogue(1.0, 1e39, False, False, False, 0, 0.01)
    with pytest.raises(ValueError, match="act_param = -inf"):
        _lib.make_epilogue(1.0, 1.0, False, False, False, 0, float("-inf"))


def test_out_size():
    assert _args.out_size(224, 3, 3, 1, 7, 2) == 112
    assert _args.out_size(5, 0, 0, 1, 7, 1) <= 0


def test_import_without_torch_or_numpy():
    """The package itself imports neither torch nor numpy."""
    import subprocess
    import sys
    import os
    code = ("import sys; import igemm; "
            "assert 'torch' not in sys.modules, 'torch imported'; "
            "assert 'numpy' not in sys.modules, 'numpy imported'; print('ok')")
    env = dict(os.environ)
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = here + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
