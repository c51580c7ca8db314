"""Every layer of bench/shapes.csv on the GPU against float64 torch (skips without
torch + CUDA, or without the file). Batch reduced to 2 for speed, except FULL_BATCH layers."""

import zlib

import pytest

from igemm_oracle import find_shapes_csv, read_shapes

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("torch sees no CUDA device", allow_module_level=True)

import igemm  # noqa: E402
from igemm_torch_ref import assert_close, expected, grid, tolerance  # noqa: E402

if igemm.device_count() == 0:
    pytest.skip("libigemm sees no CUDA device (built without CUDA?)", allow_module_level=True)

CSV = find_shapes_csv()
SHAPES = read_shapes(CSV) if CSV else []
FULL_BATCH = {"r50_l3_3x3s2_256", "r50_l4_1x1_2048_512"}

if not SHAPES:
    pytest.skip("shapes.csv not found (set IGEMM_SHAPES)", allow_module_level=True)


@pytest.mark.parametrize("shape", SHAPES, ids=[d["name"] for d in SHAPES])
def test_shape(shape):
    d = dict(shape)
    n = d["n"] if d["name"] in FULL_BATCH else min(d["n"], 2)
    stride = (d["stride_h"], d["stride_w"])
    pads = (d["pad_h"], d["pad_h"], d["pad_w"], d["pad_w"])
    dil = (d["dil_h"], d["dil_w"])
    groups = d.get("groups", 1)
    torch.manual_seed(zlib.crc32(d["name"].encode()))
    x16 = grid((n, d["c"], d["h"], d["w"]), torch.bfloat16)
    w16 = grid((d["k"], d["c"] // groups, d["r"], d["s"]), torch.bfloat16)
    crs = d["c"] // groups * d["r"] * d["s"]
    acc = expected(x16, w16, stride, pads, dil, groups)
    bias = grid((d["k"],), torch.float32)
    for dt in (torch.bfloat16, torch.float16):
        x, w = x16.to(dt), w16.to(dt)  # grid values are exact in both types
        # plain
        y = igemm.conv2d(x, w, None, stride, pads, dil, groups)
        rtol, atol = tolerance(dt, crs)
        assert_close(y, acc, rtol, atol, "%s %s plain" % (d["name"], dt))
        del y
        if dt != torch.bfloat16:
            continue
        # fused bias + residual + relu, as in a ResNet block
        res = grid(tuple(acc.shape), dt)
        y = igemm.conv2d(x, w, bias, stride, pads, dil, groups, residual=res, activation="relu")
        ref = torch.relu(acc + bias.double().view(1, -1, 1, 1) + res.double())
        rtol, atol = tolerance(dt, crs, bias=bias, residual=res)
        assert_close(y, ref, rtol, atol, "%s fused" % d["name"])
        del y, res, ref
