"""python/bench_models.py (the network benchmark) as a smoke run on the CPU: the harness, the
optimizer on a real torchvision network, the CSV. Speed is measured on the GPU, not here."""

import os
import sys

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchvision")

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import bench_models  # noqa: E402


def test_cpu_smoke(tmp_path, capsys):
    csv = tmp_path / "m.csv"
    rows = bench_models.main(["--model", "resnet18", "--batch", "1,2", "--device", "cpu",
                              "--image", "32", "--reps", "1", "--warmup", "0", "--csv", str(csv)])
    assert [(r["batch"], r["variant"]) for r in rows] == [
        (1, "eager"), (1, "igemm"), (2, "eager"), (2, "igemm")]
    for r in rows:
        assert "error" not in r, r
        assert r["err"] < 1e-5 and r["ms"] > 0
    lines = csv.read_text().splitlines()
    assert lines[0].startswith("model,batch,variant,ms") and len(lines) == 5
    assert "resnet18" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["--batch", "0"], ["--batch", "x"],
                                  ["--variants", "eager,fast"]])
def test_bad_arguments(argv):
    with pytest.raises(SystemExit):
        bench_models.main(["--device", "cpu"] + argv)
