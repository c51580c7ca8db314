"""numpy path (CPU reference of libigemm) against the independent float64 oracle. No GPU."""

import ctypes

import numpy as np
import pytest

import igemm
from igemm import _numpy
from igemm_oracle import ACTS, conv2d_nhwc_f64, epilogue_f64

# Inputs are multiples of 1/16 in [-2, 2]: exact in fp16 and bf16, so the float64 oracle sees
# exactly what the library sees, and the only error is the final rounding (and the activation).
# out kind -> (rtol, atol): one unit in the last place of the output type; the atol covers
# activations computed with cancellation (gelu_tanh of a large negative value is ~1e-13 with
# an absolute error of ~1e-16 in any double implementation).
TOL = {
    "fp16": (2.0 ** -10, 2.0 ** -24),
    "bf16": (2.0 ** -7, 1e-12),
    "fp32": (2.0 ** -22, 1e-12),
}


def grid_values(rng, shape, lim=32):
    return rng.integers(-lim, lim + 1, size=shape).astype(np.float64) / 16.0


def as_input(a, kind):
    return a.astype(np.float16) if kind == "fp16" else a.astype(np.float32)


def assert_close(y, ref, out_kind, what=""):
    rtol, atol = TOL[out_kind]
    y64 = np.asarray(y, dtype=np.float64)
    assert y64.shape == ref.shape
    err = np.abs(y64 - ref)
    bound = rtol * np.abs(ref) + atol
    bad = err > bound
    if bad.any():
        i = np.unravel_index(np.argmax(err - bound), err.shape)
        raise AssertionError("%s: %d of %d elements off; worst at %s: got %r, want %r (bound %g)"
                             % (what, bad.sum(), bad.size, i, y64[i], ref[i], bound[i]))


def random_config(seed):
    rng = np.random.default_rng(seed)
    groups = int(rng.choice([1, 1, 1, 2, 3, 4]))
    depthwise = seed % 7 == 3
    cg = 1 if depthwise else int(rng.integers(1, 6))
    c = cg * groups
    k = groups * (1 if depthwise else int(rng.integers(1, 5)))
    if depthwise:
        k = c
        groups = c
    r, s = int(rng.integers(1, 5)), int(rng.integers(1, 5))
    stride = (int(rng.integers(1, 4)), int(rng.integers(1, 4)))
    dil = (int(rng.integers(1, 3)), int(rng.integers(1, 3)))
    pads = tuple(int(v) for v in rng.integers(0, 4, size=4))
    n = int(rng.integers(1, 3))
    h = max(1, dil[0] * (r - 1) + 1 - pads[0] - pads[1]) + int(rng.integers(0, 6))
    w = max(1, dil[1] * (s - 1) + 1 - pads[2] - pads[3]) + int(rng.integers(0, 6))
    in_kind = "fp16" if seed % 2 == 0 else "bf16"
    out_kind = [None, "fp32", "bf16", "fp16"][(seed // 2) % 4]
    act = ACTS[seed % len(ACTS)]
    return dict(rng=rng, n=n, h=h, w=w, c=c, k=k, r=r, s=s, groups=groups, stride=stride,
                dil=dil, pads=pads, in_kind=in_kind, out_kind=out_kind, act=act,
                has_scale=bool(seed % 3 == 0), has_bias=bool(seed % 2 == 1),
                has_res=bool(seed % 5 in (1, 2, 4)))


@pytest.mark.parametrize("seed", range(32))
def test_random_configs(seed):
    cfg = random_config(seed)
    rng = cfg["rng"]
    x = grid_values(rng, (cfg["n"], cfg["h"], cfg["w"], cfg["c"]))
    w = grid_values(rng, (cfg["k"], cfg["r"], cfg["s"], cfg["c"] // cfg["groups"]))
    acc = conv2d_nhwc_f64(x, w, cfg["stride"], cfg["pads"], cfg["dil"], cfg["groups"])
    k = cfg["k"]
    scale = grid_values(rng, (k,), 16) if cfg["has_scale"] else None
    bias = grid_values(rng, (k,)) if cfg["has_bias"] else None
    res = grid_values(rng, acc.shape) if cfg["has_res"] else None
    alpha = [1.0, 0.5, -1.25, 2.0][seed % 4]
    beta = [1.0, -0.5, 0.75][seed % 3]
    out_kind = cfg["out_kind"] or cfg["in_kind"]
    res_in = None
    if res is not None:
        res_in = res.astype(np.float16) if out_kind == "fp16" else res.astype(np.float32)
    y = igemm.conv2d(as_input(x, cfg["in_kind"]), as_input(w, cfg["in_kind"]),
                     bias=None if bias is None else bias.astype(np.float32),
                     stride=cfg["stride"], padding=cfg["pads"], dilation=cfg["dil"],
                     groups=cfg["groups"],
                     scale=None if scale is None else scale.astype(np.float32),
                     residual=res_in, alpha=alpha, beta=beta, activation=cfg["act"],
                     out_dtype=cfg["out_kind"])
    assert y.dtype == (np.float16 if out_kind == "fp16" else np.float32)
    if out_kind == "bf16":  # returned as float32 holding bf16 values
        assert not (y.view(np.uint32) & 0xFFFF).any()
    ref = epilogue_f64(acc, alpha, scale, bias, beta, res, cfg["act"])
    assert_close(y, ref, out_kind, "seed %d %s" % (seed, {k_: v for k_, v in cfg.items()
                                                          if k_ != "rng"}))


@pytest.mark.parametrize("act", ACTS, ids=str)
@pytest.mark.parametrize("out", ["fp32", "bf16"])
def test_each_activation(act, out):
    rng = np.random.default_rng(7)
    x = grid_values(rng, (2, 6, 5, 8))
    w = grid_values(rng, (4, 3, 3, 8), 8)
    bias = grid_values(rng, (4,))
    y = igemm.conv2d(x.astype(np.float32), w.astype(np.float32), bias.astype(np.float32),
                     padding=1, activation=act, out_dtype=out)
    ref = epilogue_f64(conv2d_nhwc_f64(x, w, (1, 1), (1, 1, 1, 1), (1, 1), 1), 1.0, None, bias,
                       1.0, None, act)
    assert_close(y, ref, out, str(act))


def test_padding_same_valid_and_pair():
    rng = np.random.default_rng(3)
    x = grid_values(rng, (1, 7, 6, 4)).astype(np.float16)
    for r, s, dil in [(3, 3, (1, 1)), (4, 2, (1, 1)), (3, 2, (2, 3))]:
        w = grid_values(rng, (5, r, s, 4)).astype(np.float16)
        y = igemm.conv2d(x, w, padding="same", dilation=dil, out_dtype=np.float32)
        assert y.shape == (1, 7, 6, 5)
        th, tw = dil[0] * (r - 1), dil[1] * (s - 1)
        pads = (th // 2, th - th // 2, tw // 2, tw - tw // 2)
        assert_close(y, conv2d_nhwc_f64(x, w, (1, 1), pads, dil, 1), "fp32", "same")
    w = grid_values(rng, (5, 3, 3, 4)).astype(np.float16)
    y = igemm.conv2d(x, w, padding="valid", out_dtype="fp32")
    assert y.shape == (1, 5, 4, 5)
    y = igemm.conv2d(x, w, padding=(2, 1), stride=(2, 1), out_dtype="fp32")
    assert_close(y, conv2d_nhwc_f64(x, w, (2, 1), (2, 2, 1, 1), (1, 1), 1), "fp32", "pair")


def test_asymmetric_padding():
    rng = np.random.default_rng(4)
    x = grid_values(rng, (2, 5, 9, 6))
    w = grid_values(rng, (6, 2, 3, 3))
    pads = (0, 3, 2, 0)
    y = igemm.conv2d(x.astype(np.float16), w.astype(np.float16), padding=pads, groups=2,
                     stride=(1, 2), out_dtype=np.float32)
    assert_close(y, conv2d_nhwc_f64(x, w, (1, 2), pads, (1, 1), 2), "fp32", "asym")


def test_depthwise_dilated():
    rng = np.random.default_rng(5)
    x = grid_values(rng, (1, 9, 9, 5))
    w = grid_values(rng, (5, 3, 3, 1))
    y = igemm.conv2d(x.astype(np.float32), w.astype(np.float32), padding=2, dilation=2,
                     groups=5, out_dtype="fp32")
    assert_close(y, conv2d_nhwc_f64(x, w, (1, 1), (2, 2, 2, 2), (2, 2), 5), "fp32", "dw")


def test_default_out_dtypes():
    x = np.ones((1, 3, 3, 2), np.float16)
    w = np.ones((2, 1, 1, 2), np.float16)
    assert igemm.conv2d(x, w).dtype == np.float16
    y = igemm.conv2d(x.astype(np.float32), w.astype(np.float32))
    assert y.dtype == np.float32 and np.all(y == 2.0)
    y = igemm.conv2d(x.astype(np.float64), w.astype(np.float64), out_dtype=np.float16)
    assert y.dtype == np.float16


def test_float32_inputs_rounded_to_bf16():
    # 1 + 2^-9 is not a bf16: rounds to 1.0 (nearest even); 1 + 3*2^-9 rounds up to 1 + 2^-7
    x = np.array([1 + 2.0 ** -9, 1 + 3 * 2.0 ** -9], np.float32).reshape(1, 1, 2, 1)
    w = np.ones((1, 1, 1, 1), np.float32)
    y = igemm.conv2d(x, w, out_dtype="fp32")
    assert y.ravel().tolist() == [1.0, 1 + 2.0 ** -7]
    # with in_dtype='fp16' the same values are exact
    y = igemm.conv2d(x, w, out_dtype="fp32", in_dtype="fp16")
    assert y.ravel().tolist() == [1 + 2.0 ** -9, 1 + 3 * 2.0 ** -9]


def test_bf16_bits_input():
    bits = _numpy.float_to_bf16_bits(np.array([1.5, -2.0, 0.25], np.float32))
    x = bits.reshape(1, 1, 3, 1)
    w = _numpy.float_to_bf16_bits(np.array([2.0], np.float32)).reshape(1, 1, 1, 1)
    y = igemm.conv2d(x, w, in_dtype="bf16", out_dtype="fp32")
    assert y.ravel().tolist() == [3.0, -4.0, 0.5]


def test_bf16_rounding_matches_library():
    lib = igemm._lib.lib()
    rng = np.random.default_rng(11)
    vals = np.concatenate([
        rng.standard_normal(2000).astype(np.float32) * np.float32(10.0) ** rng.integers(-40, 38, 2000).astype(np.float32),
        np.array([0.0, -0.0, 1.0, 1 + 2.0 ** -8, 1 + 3 * 2.0 ** -8, np.inf, -np.inf, 3.4e38,
                  -3.39e38, 1e-40, -1e-41, 1.17e-38], np.float32),
    ]).astype(np.float32)
    vals = vals[np.isfinite(vals) | np.isinf(vals)]
    ours = _numpy.float_to_bf16_bits(vals)
    theirs = np.array([lib.igemm_float_to_bf16(float(v)) for v in vals], np.uint16)
    assert np.array_equal(ours, theirs)
    back = _numpy.bf16_bits_to_float(ours)
    theirs_back = np.array([lib.igemm_bf16_to_float(int(b)) for b in ours], np.float32)
    assert np.array_equal(back.view(np.uint32), theirs_back.view(np.uint32))
    nan = _numpy.float_to_bf16_bits(np.array([np.nan, -np.nan], np.float32))
    assert np.isnan(_numpy.bf16_bits_to_float(nan)).all()


def test_library_info():
    assert igemm.device_count() >= 0
    v = igemm.library_version()
    assert len(v.split(".")) == 3
    assert igemm.library_path()


# ------------------------------------------------------------------ errors


def xw(c=4, k=4, r=3, s=3, groups=1, dtype=np.float16):
    return (np.zeros((1, 8, 8, c), dtype), np.zeros((k, r, s, c // groups), dtype))


def test_error_bad_stride():
    x, w = xw()
    with pytest.raises(igemm.IgemmError, match="stride_h = 0") as e:
        igemm.conv2d(x, w, stride=(0, 1))
    assert e.value.status == igemm.Status.INVALID_VALUE
    assert "stride_h" in e.value.message
    with pytest.raises(igemm.IgemmError, match="stride_w = -2"):
        igemm.conv2d(x, w, stride=(1, -2))
    with pytest.raises(TypeError, match=r"stride = 1\.5"):
        igemm.conv2d(x, w, stride=1.5)


def test_error_bad_dilation_padding():
    x, w = xw()
    with pytest.raises(igemm.IgemmError, match="dil_w = 0"):
        igemm.conv2d(x, w, dilation=(1, 0))
    with pytest.raises(igemm.IgemmError, match="pad_left = -1"):
        igemm.conv2d(x, w, padding=(0, 0, -1, 0))
    with pytest.raises(ValueError, match="stride 1"):
        igemm.conv2d(x, w, padding="same", stride=2)


def test_error_groups():
    x = np.zeros((1, 4, 4, 6), np.float16)
    w = np.zeros((4, 3, 3, 1), np.float16)
    with pytest.raises(ValueError, match="groups = 4"):
        igemm.conv2d(x, w, groups=4)  # 4 * 1 != 6
    x, w = xw(c=8, k=6, groups=4)
    with pytest.raises(igemm.IgemmError, match="groups = 4: must divide k = 6") as e:
        igemm.conv2d(x, w, groups=4)
    assert e.value.status == igemm.Status.INVALID_VALUE
    with pytest.raises(ValueError, match="groups = 0"):
        igemm.conv2d(*xw(), groups=0)


@pytest.mark.parametrize("arg,val", [
    ("padding", 2 ** 64 + 1),      # used to wrap to padding 1 and compute a wrong answer
    ("padding", 2 ** 63),          # used to be reported as a negative pad
    ("stride", 2 ** 64 + 1),
    ("dilation", -(2 ** 63) - 1),
    ("groups", 2 ** 64 + 1),
])
def test_error_int_beyond_int64(arg, val):
    x, w = xw()
    with pytest.raises(OverflowError, match="%s = %d: does not fit a 64-bit" % (arg, val)):
        igemm.conv2d(x, w, **{arg: val})
    with pytest.raises(OverflowError, match="padding = %d" % val):
        igemm.conv2d(x, w, padding=(1, val))


def test_error_numpy_uint64_padding():
    x, w = xw()
    with pytest.raises(OverflowError, match="padding = %d" % (2 ** 64 - 1)):
        igemm.conv2d(x, w, padding=np.uint64(2 ** 64 - 1))
    y = igemm.conv2d(x, w, padding=np.uint64(1), stride=np.int8(1))
    assert y.shape == (1, 8, 8, 4)


@pytest.mark.parametrize("arg,val,exc", [
    ("alpha", float("nan"), ValueError),
    ("beta", float("inf"), ValueError),
    ("alpha", 1e39, OverflowError),
    ("beta", -(10 ** 50), OverflowError),
])
def test_error_float_not_finite(arg, val, exc):
    x, w = xw()
    with pytest.raises(exc, match="%s = " % arg):
        igemm.conv2d(x, w, **{arg: val})
    with pytest.raises(ValueError, match="slope = nan"):
        igemm.conv2d(x, w, activation=("leaky_relu", float("nan")))


def test_error_ndim():
    x, w = xw()
    with pytest.raises(ValueError, match=r"x\.ndim = 3"):
        igemm.conv2d(x[0], w)
    with pytest.raises(ValueError, match=r"w\.ndim = 5"):
        igemm.conv2d(x, w[None])


def test_error_activation():
    x, w = xw()
    with pytest.raises(ValueError, match="activation = 'swishy'"):
        igemm.conv2d(x, w, activation="swishy")
    with pytest.raises(ValueError, match="only leaky_relu"):
        igemm.conv2d(x, w, activation=("gelu", 1.0))


def test_error_dtypes():
    x, w = xw(dtype=np.int32)
    with pytest.raises(TypeError, match=r"x\.dtype = int32"):
        igemm.conv2d(x, w)
    x, _ = xw()
    _, w = xw(dtype=np.float32)
    with pytest.raises(TypeError, match=r"x\.dtype = float16 and w\.dtype = float32"):
        igemm.conv2d(x, w)
    x, w = xw()
    with pytest.raises(ValueError, match="in_dtype = 'int8'"):
        igemm.conv2d(x, w, in_dtype="int8")
    with pytest.raises(ValueError, match="out_dtype = 'int8'"):
        igemm.conv2d(x, w, out_dtype="int8")
    with pytest.raises(TypeError, match="x is a list"):
        igemm.conv2d([[1.0]], w)
    with pytest.raises(TypeError, match="w is a list"):
        igemm.conv2d(x, [[1.0]])


def test_error_operand_shapes():
    x, w = xw()
    with pytest.raises(ValueError, match=r"bias\.shape = \(3,\)"):
        igemm.conv2d(x, w, np.zeros(3, np.float32))
    with pytest.raises(ValueError, match=r"scale\.shape"):
        igemm.conv2d(x, w, scale=np.zeros((4, 1), np.float32))
    with pytest.raises(ValueError, match=r"residual\.shape = \(1, 8, 8, 4\)"):
        igemm.conv2d(x, w, residual=np.zeros((1, 8, 8, 4), np.float16))  # output is 6x6


def test_error_filter_larger_than_input():
    x = np.zeros((1, 2, 2, 4), np.float16)
    w = np.zeros((4, 5, 5, 4), np.float16)
    with pytest.raises(igemm.IgemmError) as e:
        igemm.conv2d(x, w)
    assert e.value.status == igemm.Status.INVALID_VALUE
    assert e.value.message  # the library's text, naming the field
    assert "igemm_conv2d_output_dims" in str(e.value)


def test_error_pickles():
    import pickle
    e = igemm.IgemmError(igemm.Status.NOT_SUPPORTED, "c = 3: no", "igemm_plan_create")
    e2 = pickle.loads(pickle.dumps(e))
    assert e2.status == igemm.Status.NOT_SUPPORTED and e2.message == "c = 3: no"
    assert str(e2) == str(e) and "not supported" in str(e)


def test_library_not_found(monkeypatch):
    from igemm import _lib
    monkeypatch.setattr(_lib, "_lib", None)
    monkeypatch.setenv("IGEMM_LIBRARY", "/nonexistent/libigemm.so")
    with pytest.raises(igemm.LibraryNotFoundError, match="/nonexistent/libigemm.so"):
        igemm.library_path()


def test_struct_mirrors_match_the_library():
    """The ctypes structs read the library's defaults field by field as documented."""
    from igemm import _lib
    L = _lib.lib()
    d = L.igemm_conv2d_desc_default()
    assert (d.n, d.h, d.w, d.c, d.k, d.r, d.s, d.groups) == (1,) * 8
    assert (d.pad_top, d.pad_bottom, d.pad_left, d.pad_right) == (0, 0, 0, 0)
    assert (d.stride_h, d.stride_w, d.dil_h, d.dil_w) == (1, 1, 1, 1)
    assert (d.x_dtype, d.w_dtype, d.y_dtype) == (igemm.DType.BF16,) * 3
    e = L.igemm_epilogue_default()
    assert (e.alpha, e.beta, e.has_scale, e.has_bias, e.has_residual) == (1.0, 1.0, 0, 0, 0)
    assert e.activation == igemm.Activation.NONE
    assert abs(e.act_param - 0.01) < 1e-7
    o = L.igemm_plan_options_default()
    assert (o.path, o.device) == (igemm.Path.AUTO, -1)
    assert L.igemm_conv2d_validate(d) == 0


def test_plan_binding():
    """igemm_plan_create through ctypes: NO_DEVICE without a GPU, a described plan with one."""
    from igemm import _lib
    desc = _lib.make_desc(1, 8, 8, 16, 16, 3, 3, 1, (1, 1, 1, 1), (1, 1), (1, 1),
                          igemm.DType.BF16, igemm.DType.BF16)
    epi = _lib.make_epilogue(1.0, 1.0, False, True, False, igemm.Activation.RELU, 0.01)
    if igemm.device_count() == 0:
        with pytest.raises(igemm.IgemmError) as e:
            _lib.Plan(desc, epi)
        assert e.value.status == igemm.Status.NO_DEVICE
        assert e.value.message
    else:
        plan = _lib.Plan(desc, epi)
        assert plan.describe()
        assert plan.path in (igemm.Path.GENERAL, igemm.Path.SM90, igemm.Path.DIRECT,
                           igemm.Path.MEMORY, igemm.Path.SM100)
        assert plan.workspace_bytes >= 0
        del plan
    bad = _lib.PlanOptions()
    bad.path, bad.device = 9, -1
    st = _lib.lib().igemm_plan_create(ctypes.byref(ctypes.c_void_p()), ctypes.byref(desc),
                                      ctypes.byref(epi), ctypes.byref(bad))
    assert st == igemm.Status.INVALID_VALUE
    assert "options.path = 9" in _lib.last_error()
