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
    with pytest.raises(TypeError, match="alpha = 'x'"):
        _args.scalar("x", "alpha")


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
