"""float64 expectations on the GPU for the torch tests (imported only where torch is)."""

import struct

import torch
import torch.nn.functional as F


def f32(v):
    """v rounded to float32 (the library keeps alpha, beta and the slope in float32)."""
    return struct.unpack("f", struct.pack("f", float(v)))[0]


def act_name_param(act):
    if act is None:
        return "none", f32(0.01)
    if isinstance(act, tuple):
        return act[0], f32(act[1])
    return act, f32(0.01)


def act_f64(name, v, param):
    if name == "none":
        return v
    if name == "relu":
        return torch.relu(v)
    if name == "relu6":
        return v.clamp(0.0, 6.0)
    if name == "leaky_relu":
        return torch.where(v > 0, v, v * param)
    if name == "gelu":
        return F.gelu(v)
    if name == "gelu_tanh":
        return F.gelu(v, approximate="tanh")
    if name == "silu":
        return F.silu(v)
    if name == "sigmoid":
        return torch.sigmoid(v)
    if name == "tanh":
        return torch.tanh(v)
    if name == "hardswish":
        return v * (v + 3.0).clamp(0.0, 6.0) / 6.0
    if name == "hardsigmoid":
        return (v + 3.0).clamp(0.0, 6.0) / 6.0
    raise ValueError(name)


def expected(x, w, stride, pads, dil, groups, bias=None, scale=None, residual=None, alpha=1.0,
             beta=1.0, act=None):
    """float64 (N, K, P, Q) of act(alpha * scale * conv(x, w) + bias + beta * residual), on
    the inputs' device, from the (already rounded) inputs upcast to float64."""
    pt, pb, pl, pr = pads
    xd = F.pad(x.double(), (pl, pr, pt, pb))
    acc = F.conv2d(xd, w.double(), None, stride, 0, dil, groups)
    v = f32(alpha) * acc
    if scale is not None:
        v = v * scale.double().view(1, -1, 1, 1)
    if bias is not None:
        v = v + bias.double().view(1, -1, 1, 1)
    if residual is not None:
        v = v + f32(beta) * residual.double()
    name, param = act_name_param(act)
    return act_f64(name, v, param)


RTOL = {torch.bfloat16: 2.0 ** -7, torch.float16: 2.0 ** -10, torch.float32: 1e-5}


def tolerance(out_dtype, crs, alpha=1.0, scale=None, bias=None, residual=None, beta=1.0,
              in_mag=1.0, act=None):
    """(rtol, atol): one output ulp, plus fp32 accumulation error over crs products of inputs
    of magnitude <= in_mag, plus fp32 rounding of the epilogue terms."""
    amp = abs(alpha) * (float(scale.abs().max()) if scale is not None and scale.numel() else 1.0)
    terms = (float(bias.abs().max()) if bias is not None and bias.numel() else 0.0) + \
        (abs(beta) * float(residual.abs().max()) if residual is not None and residual.numel()
         else 0.0)
    atol = 2.0 ** -21 * (crs * in_mag * in_mag * amp + terms + 1.0)
    if act_name_param(act)[0] == "hardswish":
        atol *= 1.5  # its slope (2x + 3) / 6 reaches 1.5
    if out_dtype == torch.float16:
        atol += 2.0 ** -24
    return RTOL[out_dtype], atol


def assert_close(y, ref, rtol, atol, what=""):
    assert y.shape == ref.shape, "%s: shape %s, want %s" % (what, tuple(y.shape), tuple(ref.shape))
    yd = y.double()
    assert torch.isfinite(yd).all(), "%s: non-finite output" % what
    err = (yd - ref).abs()
    bound = rtol * ref.abs() + atol
    bad = err > bound
    if bad.any():
        excess = err - bound
        i = int(excess.reshape(-1).argmax())
        idx = tuple(int(v) for v in torch.unravel_index(torch.tensor(i), excess.shape))
        raise AssertionError("%s: %d of %d elements off; worst at %s: got %r, want %r "
                             "(bound %g)" % (what, int(bad.sum()), bad.numel(), idx,
                                             float(yd[idx]), float(ref[idx]), float(bound[idx])))


def grid(shape, dtype, device="cuda", lim=64, gen=None):
    """Random multiples of 1/64 in [-1, 1]: exact in fp16 and bf16 (so one float64 expectation
    serves both), channels_last when 4-d."""
    t = torch.randint(-lim, lim + 1, shape, device=device, generator=gen).to(torch.float64) / 64.0
    t = t.to(dtype)
    if t.dim() == 4:
        t = t.contiguous(memory_format=torch.channels_last)
    return t
