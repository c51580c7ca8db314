"""python/bench.py's shape reader (CPU): the 15th column of bench/zoo.csv is the groups, 1 where
a suite has no such column, and a groups value that does not divide c and k is refused."""
import importlib.util
import os

import pytest

pytest.importorskip("torch")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def _bench():
    spec = importlib.util.spec_from_file_location("igemm_bench", os.path.join(ROOT, "python", "bench.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_read_shapes_groups(tmp_path):
    b = _bench()
    zoo = b.read_shapes(os.path.join(ROOT, "bench", "zoo.csv"))
    byname = {d["name"]: d for d in zoo}
    assert byname["mbv2_dw_3x3_32"]["groups"] == 32
    assert any(1 < d["groups"] < d["c"] for d in zoo)  # a grouped (not depthwise) layer
    assert all(d["groups"] == 1 for d in b.read_shapes(os.path.join(ROOT, "bench", "shapes.csv")))
    bad = tmp_path / "bad.csv"
    bad.write_text("x,1,8,8,12,16,3,3,1,1,1,1,1,1,5\n")
    with pytest.raises(ValueError, match="groups = 5"):
        b.read_shapes(str(bad))
