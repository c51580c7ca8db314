"""Argument normalisation shared by the torch and numpy paths (plain Python, traceable by
torch.compile: no ctypes, no library calls)."""

import operator

from ._lib import Activation, check_float32, check_int64

ACTIVATIONS = {
    "none": Activation.NONE,
    "identity": Activation.NONE,
    "relu": Activation.RELU,
    "relu6": Activation.RELU6,
    "leaky_relu": Activation.LEAKY_RELU,
    "gelu": Activation.GELU_ERF,
    "gelu_erf": Activation.GELU_ERF,
    "gelu_tanh": Activation.GELU_TANH,
    "silu": Activation.SILU,
    "swish": Activation.SILU,
    "sigmoid": Activation.SIGMOID,
    "tanh": Activation.TANH,
    "hardswish": Activation.HARDSWISH,
    "hardsigmoid": Activation.HARDSIGMOID,
}
DEFAULT_LEAKY_SLOPE = 0.01
_ACT_NAMES = "None, 'relu', 'relu6', 'leaky_relu', ('leaky_relu', slope), 'gelu', " \
             "'gelu_tanh', 'silu', 'sigmoid', 'tanh', 'hardswish', 'hardsigmoid'"


def _is_int(v):
    # bool is an int subclass but a bool stride/padding is surely a mistake
    return isinstance(v, int) and not isinstance(v, bool)


# Set by the torch backend to torch.compiler.is_compiling. While torch.compile traces, ints and
# floats may be symbolic (dynamic=True makes alpha a graph input, and math.isnan on it is not
# traceable): the range checks are then left to the op's implementation, which builds the
# descriptor and epilogue from concrete values through the same checks (_lib.make_desc,
# _lib.make_epilogue), so a bad value still raises, naming the field.
is_tracing = None


def _tracing():
    return is_tracing is not None and is_tracing()


def _as_int(v, what):
    """An int argument -> a Python int in int64 range (TypeError for non-integers, OverflowError
    out of range). Accepts numpy integers and anything else with __index__ (not bool, float,
    str); while torch.compile traces, values pass through unchecked (see is_tracing)."""
    if not _is_int(v):
        if isinstance(v, (bool, float, str)) or not hasattr(v, "__index__"):
            raise TypeError("%s = %r: expected an int" % (what, v))
        if _tracing():
            return v
        v = operator.index(v)  # numpy integers (a uint64 may exceed int64), int-likes
    if _tracing():
        return v
    return check_int64(v, what)


def pair(v, what):
    """int or 2-sequence of ints -> (a, b)."""
    if isinstance(v, (list, tuple)):
        if len(v) != 2:
            raise ValueError("%s = %r: expected an int or a pair of ints" % (what, v))
        return (_as_int(v[0], what), _as_int(v[1], what))
    v = _as_int(v, what)
    return (v, v)


def padding4(padding, r, s, stride, dilation, what="padding"):
    """padding -> (top, bottom, left, right).

    Accepts an int, (pad_h, pad_w), (top, bottom, left, right), 'valid', or 'same' (stride 1
    only; like PyTorch, an odd total puts the extra row/column at the bottom/right)."""
    if isinstance(padding, str):
        mode = padding.lower()
        if mode == "valid":
            return (0, 0, 0, 0)
        if mode == "same":
            if stride != (1, 1):
                raise ValueError("padding = 'same' needs stride 1, got stride = %r" % (stride,))
            th = dilation[0] * (r - 1)
            tw = dilation[1] * (s - 1)
            return (th // 2, th - th // 2, tw // 2, tw - tw // 2)
        raise ValueError("%s = %r: expected an int, a pair, a 4-tuple "
                         "(top, bottom, left, right), 'valid' or 'same'" % (what, padding))
    if isinstance(padding, (list, tuple)):
        if len(padding) == 2:
            ph, pw = _as_int(padding[0], what), _as_int(padding[1], what)
            return (ph, ph, pw, pw)
        if len(padding) == 4:
            return (_as_int(padding[0], what), _as_int(padding[1], what),
                    _as_int(padding[2], what), _as_int(padding[3], what))
        raise ValueError("%s = %r: expected an int, a pair, a 4-tuple "
                         "(top, bottom, left, right), 'valid' or 'same'" % (what, padding))
    p = _as_int(padding, what)
    return (p, p, p, p)


def activation(act):
    """activation argument -> (name, param) with name a key of ACTIVATIONS ('none' for None).

    Accepts None, a name, or (name, param) where only leaky_relu takes a param (its slope)."""
    if act is None:
        return ("none", DEFAULT_LEAKY_SLOPE)
    param = None
    name = act
    if isinstance(act, (list, tuple)):
        if len(act) == 1:
            name = act[0]
        elif len(act) == 2:
            name, param = act
        else:
            raise ValueError("activation = %r: expected one of %s" % (act, _ACT_NAMES))
    if not isinstance(name, str) or name.lower() not in ACTIVATIONS:
        raise ValueError("activation = %r: expected one of %s" % (act, _ACT_NAMES))
    name = name.lower()
    if name == "identity":
        name = "none"
    if param is None:
        return (name, DEFAULT_LEAKY_SLOPE)
    if ACTIVATIONS[name] != Activation.LEAKY_RELU:
        raise ValueError("activation = %r: only leaky_relu takes a parameter" % (act,))
    if isinstance(param, bool) or not isinstance(param, (int, float)):
        try:
            param = float(param)
        except (TypeError, ValueError):
            raise TypeError("activation = %r: the leaky_relu slope must be a float" % (act,))
    param = float(param)
    return (name, param if _tracing() else check_float32(param, "activation slope"))


def act_code(name):
    if name not in ACTIVATIONS:
        raise ValueError("activation = %r: expected one of %s" % (name, _ACT_NAMES))
    return ACTIVATIONS[name]


def scalar(v, what):
    """A float argument -> a finite Python float that fits float32 (TypeError, ValueError for
    NaN/inf, OverflowError beyond float32), the error naming what."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        try:
            v = float(v)
        except (TypeError, ValueError):
            raise TypeError("%s = %r: expected a float" % (what, v))
    if _tracing():
        return float(v)
    try:
        f = float(v)
    except OverflowError:  # an int too large for a double
        raise OverflowError("%s = %r: does not fit a 32-bit float" % (what, v))
    return check_float32(f, what)


def out_size(size, pad_a, pad_b, dil, k, stride):
    """Output extent of one spatial dimension (may be <= 0 for invalid problems)."""
    return (size + pad_a + pad_b - dil * (k - 1) - 1) // stride + 1


def conv_options(stride, padding, dilation, act, alpha, beta, r, s):
    """Checks and normalises the options both front ends share -> (stride, dilation, pads,
    act_name, act_param, alpha, beta): stride/dilation (h, w) pairs, pads (top, bottom, left,
    right) for an r x s filter, the activation's name and parameter, alpha and beta floats."""
    stride = pair(stride, "stride")
    dilation = pair(dilation, "dilation")
    pads = padding4(padding, r, s, stride, dilation)
    act_name, act_param = activation(act)
    return stride, dilation, pads, act_name, act_param, scalar(alpha, "alpha"), scalar(beta, "beta")
