"""An independent float64 numpy conv2d + epilogue, written for the tests (no im2col: one
einsum per filter tap), and helpers shared by the test files."""

import math
import os

import numpy as np

ACTS = ["none", "relu", "relu6", "leaky_relu", ("leaky_relu", 0.2), "gelu", "gelu_tanh",
        "silu", "sigmoid", "tanh", "hardswish", "hardsigmoid"]

_erf = np.vectorize(math.erf, otypes=[np.float64])


def act_f64(name, v, param):
    if name in (None, "none"):
        return v
    if name == "relu":
        return np.maximum(v, 0.0)
    if name == "relu6":
        return np.minimum(np.maximum(v, 0.0), 6.0)
    if name == "leaky_relu":
        return np.where(v > 0, v, v * param)
    if name == "gelu":
        return 0.5 * v * (1.0 + _erf(v / math.sqrt(2.0)))
    if name == "gelu_tanh":
        return 0.5 * v * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (v + 0.044715 * v ** 3)))
    if name == "silu":
        return v / (1.0 + np.exp(-v))
    if name == "sigmoid":
        return 1.0 / (1.0 + np.exp(-v))
    if name == "tanh":
        return np.tanh(v)
    if name == "hardswish":
        return v * np.clip(v + 3.0, 0.0, 6.0) / 6.0
    if name == "hardsigmoid":
        return np.clip(v + 3.0, 0.0, 6.0) / 6.0
    raise ValueError(name)


def split_act(act):
    """test activation spec -> (name, param) with the library's float32 slope."""
    if isinstance(act, tuple):
        return act[0], float(np.float32(act[1]))
    return act, float(np.float32(0.01))


def conv2d_nhwc_f64(x, w, stride, pads, dil, groups):
    """x (N,H,W,C), w (K,R,S,C/groups) -> float64 (N,P,Q,K)."""
    x = np.asarray(x, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    n, h, wd, c = x.shape
    k, r, s, cg = w.shape
    g = groups
    assert cg * g == c and k % g == 0
    kg = k // g
    pt, pb, pl, pr = pads
    sh, sw = stride
    dh, dw = dil
    xp = np.zeros((n, h + pt + pb, wd + pl + pr, c))
    xp[:, pt:pt + h, pl:pl + wd, :] = x
    p = (h + pt + pb - dh * (r - 1) - 1) // sh + 1
    q = (wd + pl + pr - dw * (s - 1) - 1) // sw + 1
    assert p > 0 and q > 0
    wg = w.reshape(g, kg, r, s, cg)
    y = np.zeros((n, p, q, g, kg))
    for rr in range(r):
        for ss in range(s):
            h0, w0 = rr * dh, ss * dw
            xs = xp[:, h0:h0 + (p - 1) * sh + 1:sh, w0:w0 + (q - 1) * sw + 1:sw, :]
            y += np.einsum("npqgc,gkc->npqgk", xs.reshape(n, p, q, g, cg), wg[:, :, rr, ss, :])
    return y.reshape(n, p, q, k)


def epilogue_f64(acc, alpha, scale, bias, beta, residual, act):
    """acc (..., K) float64 -> act(alpha * scale * acc + bias + beta * residual)."""
    name, param = split_act(act)
    v = float(np.float32(alpha)) * acc
    if scale is not None:
        v = v * np.asarray(scale, dtype=np.float64)
    if bias is not None:
        v = v + np.asarray(bias, dtype=np.float64)
    if residual is not None:
        v = v + float(np.float32(beta)) * np.asarray(residual, dtype=np.float64)
    return act_f64(name, v, param)


def find_shapes_csv():
    """shapes.csv: $IGEMM_SHAPES, else the repository's bench/shapes.csv."""
    env = os.environ.get("IGEMM_SHAPES")
    if env:
        return env if os.path.exists(env) else None
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    cand = os.path.join(root, "bench", "shapes.csv")
    return cand if os.path.exists(cand) else None


def read_shapes(path):
    """-> list of dicts with name, n, h, w, c, k, r, s, stride_h, stride_w, pad_h, pad_w,
    dil_h, dil_w (ints except name)."""
    cols = ["name", "n", "h", "w", "c", "k", "r", "s", "stride_h", "stride_w", "pad_h", "pad_w",
            "dil_h", "dil_w"]
    out = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#") or line.startswith("name,"):
                continue
            parts = [p.strip() for p in line.split(",")]
            d = {"name": parts[0]}
            for key, val in zip(cols[1:], parts[1:]):
                d[key] = int(val)
            d.setdefault("groups", 1)
            out.append(d)
    return out
