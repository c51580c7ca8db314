"""scripts/zoo_table.py: the merge of the CLI's and python/bench.py's CSVs into one table against the
best of cuDNN and PyTorch (no GPU needed)."""
import importlib.util
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def _mod():
    spec = importlib.util.spec_from_file_location("zoo_table", os.path.join(ROOT, "scripts", "zoo_table.py"))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


CLI = ('name,n,h,w,c,k,r,s,stride_h,stride_w,pad_h,pad_w,dil_h,dil_w,groups,dtype,out_dtype,fused,path,ours_us,'
       'cudnn_us,speedup,ours_tflops,cudnn_tflops,cudnn_algo,status,timing\n'
       '"a",32,56,56,32,16,1,1,1,1,0,0,1,1,1,bf16,bf16,0,memory,20.0,16.0,0.8,1,1,"x","ok",per_call\n'
       '"b",32,56,56,32,32,3,3,1,1,1,1,1,1,32,bf16,bf16,0,memory,30.0,400.0,13.3,1,1,"x","ok",per_call\n'
       '"c",1,7,7,64,64,1,1,1,1,0,0,1,1,1,bf16,bf16,0,sm90,10.0,-,-,1,-,"-","FAILED",per_call\n')
PY = ('name,n,igemm_plain_us,eager_plain_us,plain_vs_eager,igemm_fused_us,eager_fused_us,fused_vs_eager,'
      'igemm_tflops,floor_us,floor_frac,plain_maxrel,fused_maxrel,path\n'
      'a,32,21.0,12.0,0.57,1,1,1,1,10.0,0.48,0,0,MEMORY\n'
      'b,32,31.0,24.0,0.77,1,1,1,1,6.0,0.19,0,0,MEMORY\n'
      'd,1,5.0,4.0,0.8,1,1,1,1,1.0,0.2,0,0,SM90\n')


def test_merge_best_of_and_floor(tmp_path):
    m = _mod()
    (tmp_path / "cli.csv").write_text(CLI)
    (tmp_path / "py.csv").write_text(PY)
    rows = {r["name"]: r for r in m.merge(m.read_rows(str(tmp_path / "cli.csv")), m.read_rows(str(tmp_path / "py.csv")))}
    a = rows["a"]
    assert (a["ours_us"], a["cudnn_us"], a["pytorch_us"], a["best_us"]) == (20.0, 16.0, 12.0, 12.0)
    assert math.isclose(a["vs_best"], 0.6) and math.isclose(a["floor_frac"], 0.5) and a["missing"] == ""
    assert math.isclose(rows["b"]["vs_best"], 24.0 / 30.0)  # PyTorch is the best there
    assert rows["c"]["cudnn_us"] is None and rows["c"]["vs_best"] is None and "python" in rows["c"]["missing"]
    assert rows["d"]["ours_us"] is None and rows["d"]["missing"] == "CLI"  # not guessed from the other file
    py = {r["name"]: r for r in m.merge(m.read_rows(str(tmp_path / "cli.csv")), m.read_rows(str(tmp_path / "py.csv")),
                                        "py")}
    assert math.isclose(py["d"]["vs_best"], 0.8)  # --ours py: python/bench.py's own timing of ours


def test_table_and_geomean(tmp_path, capsys):
    m = _mod()
    (tmp_path / "cli.csv").write_text(CLI)
    (tmp_path / "py.csv").write_text(PY)
    assert m.main([str(tmp_path / "cli.csv"), str(tmp_path / "py.csv"), "--csv", str(tmp_path / "out.csv")]) == 0
    out = capsys.readouterr().out
    assert "| a | memory | 20.0 | 16.0 | 12.0 | 12.0 | 0.60x | 10.0 | 0.50 |" in out
    g = math.exp((math.log(0.6) + math.log(0.8)) / 2)
    assert ("geomean ours vs best-of(cuDNN, PyTorch): %.3f over 2 layers" % g) in out
    assert "d (missing: CLI)" in out
    assert (tmp_path / "out.csv").read_text().splitlines()[0].startswith("name,path,ours_us")
