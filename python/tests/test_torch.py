"""torch path on a CUDA GPU against torch.nn.functional.conv2d in float64 (skips without one)."""

import random

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("torch sees no CUDA device", allow_module_level=True)

import igemm  # noqa: E402
from igemm_torch_ref import assert_close, expected, grid, tolerance  # noqa: E402

if igemm.device_count() == 0:
    pytest.skip("libigemm sees no CUDA device (built without CUDA?)", allow_module_level=True)

ACTS = [None, "relu", "relu6", "leaky_relu", ("leaky_relu", 0.2), "gelu", "gelu_tanh", "silu",
        "sigmoid", "tanh", "hardswish", "hardsigmoid"]
DTYPES = [torch.bfloat16, torch.float16]
OUT_DTYPES = [None, torch.float32, torch.bfloat16, torch.float16]


def random_config(seed):
    rnd = random.Random(seed)
    kind = seed % 4  # 0, 1: tensor-core friendly (C, K multiples of 8); 2: odd sizes; 3: grouped
    if kind in (0, 1):
        groups = 1
        c = 8 * rnd.randint(1, 12)
        k = 8 * rnd.randint(1, 16)
    elif kind == 2:
        groups = 1
        c = rnd.randint(1, 40)
        k = rnd.randint(1, 40)
    else:
        groups = rnd.choice([2, 3, 4, 8])
        if rnd.random() < 0.3:  # depthwise (optionally with a channel multiplier)
            c = groups = rnd.choice([4, 8, 16, 32])
            k = c * rnd.choice([1, 2])
        else:
            c = groups * rnd.randint(1, 8)
            k = groups * rnd.randint(1, 8)
    r = rnd.choice([1, 1, 3, 3, 3, 5, 7, 2, 4])
    s = r if rnd.random() < 0.8 else rnd.choice([1, 2, 3, 5])
    stride = (rnd.choice([1, 1, 2, 3]), rnd.choice([1, 1, 2, 3]))
    if rnd.random() < 0.5:
        stride = (stride[0], stride[0])
    dil = (1, 1) if rnd.random() < 0.7 else (rnd.randint(1, 3), rnd.randint(1, 3))
    if rnd.random() < 0.6:
        ph, pw = (dil[0] * (r - 1)) // 2, (dil[1] * (s - 1)) // 2
        pads = (ph, ph, pw, pw)
    else:
        pads = tuple(rnd.randint(0, 3) for _ in range(4))
    n = rnd.randint(1, 3)
    h = max(1, dil[0] * (r - 1) + 1 - pads[0] - pads[1]) + rnd.randint(0, 20)
    w = max(1, dil[1] * (s - 1) + 1 - pads[2] - pads[3]) + rnd.randint(0, 20)
    dtype = DTYPES[seed % 2]
    out_dtype = OUT_DTYPES[(seed // 2) % 4]
    act = ACTS[seed % len(ACTS)]
    epi = rnd.random()
    return dict(n=n, h=h, w=w, c=c, k=k, r=r, s=s, groups=groups, stride=stride, dil=dil,
                pads=pads, dtype=dtype, out_dtype=out_dtype, act=act,
                has_scale=epi < 0.3, has_bias=rnd.random() < 0.5, has_res=rnd.random() < 0.4,
                alpha=rnd.choice([1.0, 1.0, 0.5, -1.5, 2.0]), beta=rnd.choice([1.0, 0.5, -1.0]))


def run_config(cfg, seed=0, x_layout="channels_last"):
    torch.manual_seed(seed)
    dt = cfg["dtype"]
    od = cfg["out_dtype"] or dt
    x = grid((cfg["n"], cfg["c"], cfg["h"], cfg["w"]), dt)
    w = grid((cfg["k"], cfg["c"] // cfg["groups"], cfg["r"], cfg["s"]), dt)
    if x_layout == "contiguous":
        x = x.contiguous()
        w = w.contiguous()
    k = cfg["k"]
    scale = (grid((k,), torch.float32) * 2) if cfg["has_scale"] else None
    bias = grid((k,), torch.float32) if cfg["has_bias"] else None
    pt, pb, pl, pr = cfg["pads"]
    p = (cfg["h"] + pt + pb - cfg["dil"][0] * (cfg["r"] - 1) - 1) // cfg["stride"][0] + 1
    q = (cfg["w"] + pl + pr - cfg["dil"][1] * (cfg["s"] - 1) - 1) // cfg["stride"][1] + 1
    res = grid((cfg["n"], k, p, q), od) if cfg["has_res"] else None
    y = igemm.conv2d(x, w, bias, stride=cfg["stride"], padding=cfg["pads"],
                     dilation=cfg["dil"], groups=cfg["groups"], scale=scale, residual=res,
                     alpha=cfg["alpha"], beta=cfg["beta"], activation=cfg["act"],
                     out_dtype=cfg["out_dtype"])
    assert y.dtype == od
    assert y.device == x.device
    assert y.is_contiguous(memory_format=torch.channels_last)
    ref = expected(x, w, cfg["stride"], cfg["pads"], cfg["dil"], cfg["groups"], bias, scale, res,
                   cfg["alpha"], cfg["beta"], cfg["act"])
    crs = cfg["c"] // cfg["groups"] * cfg["r"] * cfg["s"]
    rtol, atol = tolerance(od, crs, cfg["alpha"], scale, bias, res, cfg["beta"], act=cfg["act"])
    assert_close(y, ref, rtol, atol, str(cfg))
    return y


@pytest.mark.parametrize("seed", range(120))
def test_random_configs(seed):
    run_config(random_config(seed), seed)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("act", ACTS, ids=str)
def test_activations_resnet_like(dtype, act):
    cfg = dict(n=2, h=14, w=14, c=64, k=128, r=3, s=3, groups=1, stride=(1, 1), dil=(1, 1),
               pads=(1, 1, 1, 1), dtype=dtype, out_dtype=None, act=act, has_scale=True,
               has_bias=True, has_res=True, alpha=0.5, beta=1.0)
    run_config(cfg)


def test_padding_modes():
    torch.manual_seed(1)
    x = grid((2, 16, 9, 10), torch.bfloat16)
    w = grid((8, 16, 4, 3), torch.bfloat16)
    y = igemm.conv2d(x, w, padding="same", out_dtype=torch.float32)
    assert y.shape == (2, 8, 9, 10)
    assert_close(y, expected(x, w, (1, 1), (1, 2, 1, 1), (1, 1), 1), 1e-5, 1e-4, "same")
    y = igemm.conv2d(x, w, padding="valid", out_dtype=torch.float32)
    assert y.shape == (2, 8, 6, 8)
    y = igemm.conv2d(x, w, padding=(2, 1), stride=2, out_dtype="fp32")
    assert_close(y, expected(x, w, (2, 2), (2, 2, 1, 1), (1, 1), 1), 1e-5, 1e-4, "pair")


def test_non_channels_last_inputs_are_converted():
    cfg = dict(n=2, h=10, w=11, c=24, k=16, r=3, s=3, groups=1, stride=(1, 1), dil=(1, 1),
               pads=(1, 1, 1, 1), dtype=torch.float16, out_dtype=torch.float32, act="relu",
               has_scale=False, has_bias=True, has_res=True, alpha=1.0, beta=1.0)
    run_config(cfg, x_layout="contiguous")


def test_unaligned_and_strided_views():
    torch.manual_seed(2)
    base = grid((1, 16 * 9 * 9 + 3), torch.bfloat16).reshape(-1)
    x = base[3:].view(1, 9, 9, 16).permute(0, 3, 1, 2)  # channels_last, 6-byte offset
    assert x.is_contiguous(memory_format=torch.channels_last) and x.data_ptr() % 16
    w = grid((8, 16, 3, 3), torch.bfloat16)
    y = igemm.conv2d(x, w, padding=1, out_dtype=torch.float32)
    assert_close(y, expected(x, w, (1, 1), (1, 1, 1, 1), (1, 1), 1), 1e-5, 1e-4, "unaligned")
    xs = grid((2, 16, 12, 12), torch.bfloat16)[:, :, ::2, 1::2]  # non-dense
    y = igemm.conv2d(xs, w, out_dtype=torch.float32)
    assert_close(y, expected(xs, w, (1, 1), (0, 0, 0, 0), (1, 1), 1), 1e-5, 1e-4, "strided")


def test_operand_conversions():
    torch.manual_seed(3)
    x = grid((1, 8, 6, 6), torch.float16)
    w = grid((16, 8, 1, 1), torch.float16)
    b = grid((16,), torch.float16)   # converted to float32
    sc = grid((16,), torch.bfloat16)  # converted to float32
    y = igemm.conv2d(x, w, b, scale=sc, out_dtype=torch.float32)
    ref = expected(x, w, (1, 1), (0, 0, 0, 0), (1, 1), 1, b, sc)
    assert_close(y, ref, 1e-5, 1e-4, "conversions")


def test_zero_batch():
    x = torch.empty((0, 8, 5, 5), dtype=torch.bfloat16, device="cuda")
    w = grid((4, 8, 3, 3), torch.bfloat16)
    y = igemm.conv2d(x, w, padding=1)
    assert y.shape == (0, 4, 5, 5)


def test_side_stream_and_plan_cache():
    torch.manual_seed(4)
    igemm.clear_plan_cache()
    x = grid((2, 32, 16, 16), torch.bfloat16)
    w = grid((64, 32, 3, 3), torch.bfloat16)
    ref = expected(x, w, (1, 1), (1, 1, 1, 1), (1, 1), 1)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        ys = [igemm.conv2d(x, w, padding=1) for _ in range(3)]
    torch.cuda.current_stream().wait_stream(s)
    s.synchronize()
    assert igemm.plan_cache_size() == 1
    rtol, atol = tolerance(torch.bfloat16, 32 * 9)
    for y in ys:
        assert_close(y, ref, rtol, atol, "side stream")
    assert torch.equal(ys[0], ys[1]) and torch.equal(ys[1], ys[2])  # deterministic
    igemm.conv2d(x, w, padding=1, alpha=2.0)  # alpha lives in the plan: a second plan
    assert igemm.plan_cache_size() == 2
    igemm.clear_plan_cache()
    assert igemm.plan_cache_size() == 0


def test_describe():
    x = grid((1, 64, 14, 14), torch.bfloat16)
    w = grid((64, 64, 3, 3), torch.bfloat16)
    d = igemm.describe(x, w, padding=1, activation="relu")
    assert isinstance(d, str) and len(d) > 10


def test_cuda_graph_capture():
    torch.manual_seed(5)
    x = grid((2, 32, 14, 14), torch.float16)
    w = grid((32, 32, 3, 3), torch.float16)
    b = grid((32,), torch.float32)
    res = grid((2, 32, 14, 14), torch.float16)
    kwargs = dict(padding=1, residual=res, activation="relu")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        igemm.conv2d(x, w, b, **kwargs)  # warm-up: creates the plan outside the capture
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        y = igemm.conv2d(x, w, b, **kwargs)
    x.copy_(grid((2, 32, 14, 14), torch.float16))
    g.replay()
    torch.cuda.synchronize()
    ref = expected(x, w, (1, 1), (1, 1, 1, 1), (1, 1), 1, b, None, res, act="relu")
    rtol, atol = tolerance(torch.float16, 32 * 9, bias=b, residual=res)
    assert_close(y, ref, rtol, atol, "graph replay")


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two GPUs")
def test_second_device():
    torch.manual_seed(6)
    x = grid((1, 16, 8, 8), torch.bfloat16, device="cuda:1")
    w = grid((16, 16, 3, 3), torch.bfloat16, device="cuda:1")
    with torch.cuda.device(0):
        y = igemm.conv2d(x, w, padding=1, out_dtype=torch.float32)
    assert y.device == x.device
    assert_close(y, expected(x, w, (1, 1), (1, 1, 1, 1), (1, 1), 1), 1e-5, 1e-4, "cuda:1")
    # plans are per device: the same layer on cuda:0 and cuda:1 makes two, and both give the
    # same (deterministic) result
    igemm.clear_plan_cache()
    y0 = igemm.conv2d(x.to("cuda:0"), w.to("cuda:0"), padding=1, out_dtype=torch.float32)
    with torch.cuda.device(0):
        y1 = igemm.conv2d(x, w, padding=1, out_dtype=torch.float32)
    assert igemm.plan_cache_size() == 2
    assert y0.device == torch.device("cuda:0") and y1.device == x.device
    assert torch.equal(y0.cpu(), y1.cpu())
    # on a side stream of cuda:1, ordered after work queued there
    s = torch.cuda.Stream(device=x.device)
    with torch.cuda.stream(s):
        x2 = x * 2
        y2 = igemm.conv2d(x2, w, padding=1, out_dtype=torch.float32)
    s.synchronize()
    assert_close(y2, expected(x2, w, (1, 1), (1, 1, 1, 1), (1, 1), 1), 1e-5, 1e-4, "cuda:1 stream")


def test_opcheck():
    x = grid((2, 16, 7, 7), torch.bfloat16)
    w = grid((8, 16, 3, 3), torch.bfloat16)
    b = grid((8,), torch.float32)
    res = grid((2, 8, 7, 7), torch.float32)
    args = (x, w, b, None, res, [1, 1], [1, 1, 1, 1], [1, 1], 1, 1.0, 1.0, "relu", 0.01,
            torch.float32)
    torch.library.opcheck(torch.ops.igemm.conv2d.default, args,
                          test_utils=("test_schema", "test_faketensor",
                                      "test_aot_dispatch_dynamic"))


# ------------------------------------------------------------------ errors


def test_errors():
    x = grid((1, 8, 6, 6), torch.bfloat16)
    w = grid((4, 8, 3, 3), torch.bfloat16)
    with pytest.raises(ValueError, match=r"x\.device = cpu"):
        igemm.conv2d(x.cpu(), w.cpu())
    with pytest.raises(ValueError, match=r"w\.device = cpu"):
        igemm.conv2d(x, w.cpu())
    with pytest.raises(TypeError, match=r"x\.dtype = torch\.float32"):
        igemm.conv2d(x.float(), w.float())
    with pytest.raises(TypeError, match=r"w\.dtype = torch\.float16"):
        igemm.conv2d(x, w.half())
    with pytest.raises(ValueError, match=r"x\.dim\(\) = 3"):
        igemm.conv2d(x[0], w)
    with pytest.raises(ValueError, match="groups = 3"):
        igemm.conv2d(x, w, groups=3)
    with pytest.raises(igemm.IgemmError, match="stride_h = 0") as e:
        igemm.conv2d(x, w, stride=(0, 1))
    assert e.value.status == igemm.Status.INVALID_VALUE
    with pytest.raises(ValueError, match="activation = 'mish'"):
        igemm.conv2d(x, w, activation="mish")
    with pytest.raises(ValueError, match=r"bias\.shape = \(5,\)"):
        igemm.conv2d(x, w, torch.zeros(5, device="cuda"))
    with pytest.raises(ValueError, match=r"bias\.device = cpu"):
        igemm.conv2d(x, w, torch.zeros(4))
    res = torch.zeros((1, 4, 4, 4), device="cuda", dtype=torch.bfloat16)
    with pytest.raises(TypeError, match=r"residual\.dtype = torch\.bfloat16"):
        igemm.conv2d(x, w, residual=res, out_dtype=torch.float32)
    with pytest.raises(ValueError, match=r"residual\.shape = \(1, 4, 6, 6\)"):
        igemm.conv2d(x, w, residual=torch.zeros((1, 4, 6, 6), device="cuda",
                                                dtype=torch.bfloat16))
    with pytest.raises(ValueError, match="output size"):
        igemm.conv2d(x[:, :, :2, :2], w)
    with pytest.raises(TypeError, match="out_dtype"):
        igemm.conv2d(x, w, out_dtype=torch.int8)
    with pytest.raises(TypeError, match="in_dtype"):
        igemm.conv2d(x, w, in_dtype="bf16")
    with pytest.raises(TypeError, match="w is a ndarray|w is a list"):
        igemm.conv2d(x, [[1.0]])


def test_errors_int64_and_nan():
    """Python ints outside int64 and non-finite floats raise naming the argument (they used to
    reach ctypes: padding = 2**64 + 1 computed padding 1)."""
    x = grid((1, 8, 6, 6), torch.bfloat16)
    w = grid((4, 8, 3, 3), torch.bfloat16)
    for arg, v in (("padding", 2 ** 64 + 1), ("padding", 2 ** 63), ("stride", 2 ** 64 + 1),
                   ("dilation", -(2 ** 63) - 1), ("groups", 2 ** 64 + 1)):
        with pytest.raises(OverflowError, match="%s = %d" % (arg, v)):
            igemm.conv2d(x, w, **{arg: v})
    with pytest.raises(ValueError, match="alpha = nan"):
        igemm.conv2d(x, w, alpha=float("nan"))
    with pytest.raises(OverflowError, match="beta = "):
        igemm.conv2d(x, w, beta=1e39)
    y = igemm.conv2d(x, w, padding=1)  # still works after the refusals
    assert tuple(y.shape) == (1, 4, 6, 6)


def test_plan_info():
    x = grid((1, 64, 14, 14), torch.bfloat16)
    w = grid((64, 64, 3, 3), torch.bfloat16)
    info = igemm.plan_info(x, w, padding=1)
    assert info["path"] in (igemm.Path.GENERAL, igemm.Path.SM90, igemm.Path.DIRECT, igemm.Path.MEMORY,
                            igemm.Path.SM100)
    assert info["workspace_bytes"] >= 0
    assert info["description"] == igemm.describe(x, w, padding=1)


def test_direct_op_checks_operands():
    x = grid((1, 8, 6, 6), torch.bfloat16)
    w = grid((4, 4, 3, 3), torch.bfloat16)
    op = torch.ops.igemm.conv2d.default
    base = dict(bias=None, scale=None, residual=None, stride=[1, 1], padding=[0, 0, 0, 0],
                dilation=[1, 1], groups=1, alpha=1.0, beta=1.0, activation="none",
                act_param=0.01, out_dtype=None)
    with pytest.raises(ValueError, match="w.shape"):
        op(x, w, **base)
    y = op(x, w, **dict(base, groups=2))
    assert y.shape == (1, 4, 4, 4)
    with pytest.raises(igemm.IgemmError, match="stride_w = 0"):
        op(x, w, **dict(base, groups=2, stride=[1, 0]))
    with pytest.raises(ValueError, match="bias has 3 elements"):
        op(x, w, **dict(base, groups=2, bias=torch.zeros(3, device="cuda")))
    with pytest.raises(ValueError, match="activation = 'swish2'"):
        op(x, w, **dict(base, groups=2, activation="swish2"))


# ------------------------------------------------------------------ prepared calls (host cost)


def _misaligned_like(t):
    """t's values in channels_last memory starting 2 bytes past a 16-byte boundary."""
    base = torch.empty(t.numel() + 8, dtype=t.dtype, device=t.device)
    n, c, h, w = t.shape
    v = base[1:1 + t.numel()].as_strided((n, c, h, w), (h * w * c, 1, w * c, c))
    v.copy_(t)
    assert v.data_ptr() % 16 and v.is_contiguous(memory_format=torch.channels_last)
    return v


def test_repeated_calls_take_the_prepared_path_and_stay_right():
    from igemm import _torch as tb
    gen = torch.Generator(device="cuda").manual_seed(7)
    w = grid((24, 16, 3, 3), torch.bfloat16, gen=gen)
    b = grid((24,), torch.float32, gen=gen)
    res = grid((2, 24, 9, 10), torch.float32, gen=gen)
    kw = dict(padding=1, residual=res, activation="relu", out_dtype=torch.float32)
    before = len(tb._calls)
    ys = []
    for i in range(4):
        x = grid((2, 16, 9, 10), torch.bfloat16, gen=gen)
        if i == 2:
            x = x.contiguous()                # NCHW: the prepared call refuses, the full path copies
        if i == 3:
            x = _misaligned_like(x)           # misaligned: the full path copies
        y = igemm.conv2d(x, w, b, **kw)
        ref = expected(x.float(), w.float(), (1, 1), (1, 1, 1, 1), (1, 1), 1, bias=b,
                       residual=res, act="relu")
        assert_close(y, ref, 1e-5, 1e-4, "call %d" % i)
        assert y.is_contiguous(memory_format=torch.channels_last)
        ys.append((x, y))
    assert len(tb._calls) == before + 1  # one signature, remembered after the first call
    # the same input again: bitwise the same output (deterministic, prepared path)
    x0, y0 = ys[0]
    assert torch.equal(igemm.conv2d(x0, w, b, **kw), y0)
    # options that hash alike but differ: alpha 2 doubles, a float16 bias is converted
    y2 = igemm.conv2d(x0, w, b, padding=1, out_dtype=torch.float32, alpha=2)
    y1 = igemm.conv2d(x0, w, b, padding=1, out_dtype=torch.float32, alpha=1.0)
    assert_close(y2 - b.view(1, -1, 1, 1), 2.0 * (y1 - b.view(1, -1, 1, 1)).double(), 1e-5,
                 1e-4, "alpha")
    for _ in range(2):
        yh = igemm.conv2d(x0, w, b.half(), padding=1, out_dtype=torch.float32)
        assert torch.equal(yh, y1)  # b's values are exact in fp16
    with pytest.raises(TypeError, match="stride = 1.0"):
        igemm.conv2d(x0, w, b, padding=1, stride=1.0, out_dtype=torch.float32)
    with pytest.raises(TypeError, match="padding = True"):
        igemm.conv2d(x0, w, b, padding=True, out_dtype=torch.float32)


def test_repeated_op_and_module_calls():
    from igemm import _torch as tb
    gen = torch.Generator(device="cuda").manual_seed(8)
    x = grid((1, 8, 7, 7), torch.float16, gen=gen)
    w = grid((8, 8, 3, 3), torch.float16, gen=gen)
    op = torch.ops.igemm.conv2d.default
    args = [x, w, None, None, None, [1, 1], [1, 1, 1, 1], [1, 1], 1, 1.0, 1.0, "none", 0.01,
            None]
    ref = expected(x, w, (1, 1), (1, 1, 1, 1), (1, 1), 1)
    first = op(*args)
    for _ in range(3):
        y = op(*args)
        assert torch.equal(y, first)
    assert_close(first, ref, *tolerance(torch.float16, 72), "op")
    args[0] = _misaligned_like(x)
    assert torch.equal(op(*args), first)
    assert any(k[0] == 1 for k in tb._calls)
    conv = torch.nn.Sequential(torch.nn.Conv2d(8, 8, 3, padding=1, bias=False),
                               torch.nn.ReLU()).eval()
    with torch.no_grad():
        conv[0].weight.copy_(w.float())
    m = igemm.optimize(conv, dtype=torch.float16).cuda()
    with torch.no_grad():
        outs = [m(x) for _ in range(3)] + [m(_misaligned_like(x)), m(x.contiguous())]
    for y in outs:
        assert torch.equal(y, torch.relu(first))


def test_gradients_are_refused_clearly():
    x = grid((1, 8, 6, 6), torch.bfloat16).requires_grad_(True)
    w = grid((4, 8, 3, 3), torch.bfloat16)
    with pytest.raises(RuntimeError, match="inference-only.*x requires grad"):
        igemm.conv2d(x, w)
    with torch.no_grad():
        assert igemm.conv2d(x, w).shape == (1, 4, 4, 4)
