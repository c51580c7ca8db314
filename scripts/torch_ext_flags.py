"""Prints the compiler (`cflags`) or linker (`ldflags`) flags of a C++ library built against the
installed torch (python/igemm/csrc/conv2d_op.cpp, `make torchop`); exits 1 without torch."""
import os
import sys

try:
    import torch
    from torch.utils import cpp_extension
except Exception:  # no torch here: nothing to build
    sys.exit(1)

cuda = os.environ.get("CUDA_HOME") or cpp_extension.CUDA_HOME or "/usr/local/cuda"
lib = os.path.join(os.path.dirname(torch.__file__), "lib")
if sys.argv[1:] == ["cflags"]:
    abi = int(torch._C._GLIBCXX_USE_CXX11_ABI)
    inc = cpp_extension.include_paths() + [os.path.join(cuda, "include")]
    print(" ".join(["-D_GLIBCXX_USE_CXX11_ABI=%d" % abi] + ["-I" + p for p in inc]))
elif sys.argv[1:] == ["ldflags"]:
    print("-L%s -Wl,-rpath,%s -lc10 -lc10_cuda -ltorch -ltorch_cpu" % (lib, lib))
else:
    sys.exit("usage: torch_ext_flags.py cflags|ldflags")
