# igemm — build, test, run, install.
#   make            library (build/libigemm.so), CLI (build/igemm), C tests (build/igemm_tests),
#                   the Blackwell ladder programs (compile check), on all cores (make -jN to
#                   choose); V=1 prints the full commands
#   make run        the main job: igemm run (a real ResNet-50 layer on the GPU; CPU reference without one)
#   make test       C tests + Python tests (sets up .venv with numpy and pytest itself)
#   make install PREFIX=/usr/local
#   make probes     the diagnostic probes (dev/probes)
# CUDA is found at $(CUDA_HOME); without nvcc (or with HAVE_CUDA=0) the library builds CPU-only
# (the reference path) in seconds. A first CUDA build compiles ~60 kernel instances: about 4
# minutes on 2 cores, under a minute on 16.

CUDA_HOME ?= /usr/local/cuda
NVCC ?= $(CUDA_HOME)/bin/nvcc
PREFIX ?= /usr/local
PYTHON ?= python3
BUILD := build

HAVE_CUDA ?= $(shell test -x $(NVCC) && echo 1 || echo 0)
NPROC ?= $(shell nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
MAKEFLAGS += -j$(NPROC) # (a -jN on the command line wins)
ifneq ($(V),1)
Q := @
endif

# The version (include/igemm.h) and the shared-object version: MAJOR, or MAJOR.MINOR while MAJOR
# is 0 (0.x minor versions change the ABI).
VERSION_MAJOR := $(shell sed -n 's/^\#define IGEMM_VERSION_MAJOR //p' include/igemm.h)
VERSION_MINOR := $(shell sed -n 's/^\#define IGEMM_VERSION_MINOR //p' include/igemm.h)
VERSION_PATCH := $(shell sed -n 's/^\#define IGEMM_VERSION_PATCH //p' include/igemm.h)
VERSION := $(VERSION_MAJOR).$(VERSION_MINOR).$(VERSION_PATCH)
SOVERSION := $(if $(filter 0,$(VERSION_MAJOR)),$(VERSION_MAJOR).$(VERSION_MINOR),$(VERSION_MAJOR))
SONAME := libigemm.so.$(SOVERSION)

CC ?= cc
# User CFLAGS / NVCCFLAGS (e.g. make CFLAGS=-O3) replace the defaults; the flags the build needs
# are appended whatever they are.
CFLAGS ?= -O2 -g
override CFLAGS += -std=c11 -Wall -Wextra -Wno-unused-parameter -Wno-format-truncation -fPIC -fvisibility=hidden -Iinclude -D_GNU_SOURCE
LDLIBS := -lm -lpthread -ldl

# Generic kernels: sm_80 SASS (sm_80-89) + sm_90 SASS + compute_90 PTX, which the driver compiles for
# anything newer (sm_100, sm_120). compute_90, not compute_80: the kernels' sm_90 code (the
# depthwise TMA kernel, griddepcontrol under programmatic dependent launch) is compiled only where
# __CUDA_ARCH__ >= 900, and the planners take it on every device of compute capability >= 9.0; a
# device JIT-compiling compute_80 PTX would run an empty kernel body.
GEN_GENERIC := -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90
# Hopper kernels: wgmma / setmaxnreg need the arch-specific sm_90a target.
GEN_SM90 := -gencode arch=compute_90a,code=sm_90a
# Blackwell kernels: tcgen05 needs sm_100a SASS (plain -arch=sm_100a would also embed compute_100a
# PTX, which ptxas rejects for tcgen05); spills and ptxas warnings fail the build.
GEN_SM100 := -gencode arch=compute_100a,code=sm_100a
NVCCFLAGS ?= -O3 -lineinfo
override NVCCFLAGS += -std=c++17 -Xcompiler -fPIC,-fvisibility=hidden -Iinclude -Isrc --expt-relaxed-constexpr -Xptxas -warn-spills

C_SRCS := $(wildcard src/*.c src/ref/*.c src/common/*.c src/sm90/*.c src/sm100/*.c)
# The Hopper kernel instances: generated from one list (src/sm90/instances/list.txt) by
# src/sm90/instances/gen.sh into $(GEN_DIR), one translation unit per list unit and dtype.
GEN_DIR := $(BUILD)/gen/sm90
SM90_LIST := src/sm90/instances/list.txt
SM90_GEN := src/sm90/instances/gen.sh
SM90_UNITS := $(shell awk '!/^[ \t]*\#/ && NF {print $$1}' $(SM90_LIST) | sort -u)
GEN_CU := $(foreach u,$(SM90_UNITS),$(GEN_DIR)/$(u)_bf16.cu $(GEN_DIR)/$(u)_f16.cu)
ifeq ($(HAVE_CUDA),1)
CU_SRCS := $(wildcard src/sm80/*.cu src/gpu_ref/*.cu src/mem/*.cu src/sm90/*.cu src/sm100/*.cu)
override CFLAGS += -DIGEMM_HAVE_CUDA=1 -I$(CUDA_HOME)/include
CUDA_LIBS := -L$(CUDA_HOME)/lib64 -lcudart_static -lrt
LIB_CXX := -lstdc++
GEN_OBJS := $(GEN_CU:%.cu=%.o) $(GEN_DIR)/index.o
else
CU_SRCS :=
CUDA_LIBS :=
GEN_OBJS :=
endif

LIB_OBJS := $(C_SRCS:%.c=$(BUILD)/%.o) $(CU_SRCS:%.cu=$(BUILD)/%.o) $(GEN_OBJS)
LIB := $(BUILD)/libigemm.so
CLI := $(BUILD)/igemm
TESTS := $(BUILD)/igemm_tests
TEST_SRCS := $(wildcard tests/*.c)
# The CLI's sources compile to build/cli/*.o; the C tests link all of them except main.o.
CLI_SRCS := $(wildcard cli/*.c)
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/%.o)
CLI_TEST_OBJS := $(filter-out $(BUILD)/cli/main.o,$(CLI_OBJS))
CLI_HDRS := $(wildcard cli/*.h)
HDRS := include/igemm.h $(wildcard src/*.h src/*/*.h src/*/*.cuh src/*/*/*.cuh)

.PHONY: all lib run test test-c test-py gpu-test install clean sass probes banner ladder torchop torchop-auto sm100-auto
all: $(LIB) $(CLI) $(TESTS) torchop-auto sm100-auto
lib: $(LIB)

# said once, before the first compile of a build that has CUDA work to do
banner:
	@if [ "$(HAVE_CUDA)" = 1 ] && [ ! -f $(LIB) ]; then \
	  echo "igemm $(VERSION): building the library with CUDA ($(words $(CU_SRCS) $(GEN_CU)) CUDA units, $(NPROC) jobs;" \
	       "a first build takes ~4 min on 2 cores; HAVE_CUDA=0 builds the CPU-only library in seconds)"; fi

$(BUILD)/%.o: %.c $(HDRS) | banner
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

# sm_90a objects: ptxas's report is kept beside the object; serialized wgmma fails the build
# (C7510-C7520: e.g. a run-time branch around a wgmma, or accumulators written by other
# instructions inside a wgmma pipeline stage: a silent 5-25% slowdown of every mainloop of the
# instance; docs/decisions.md "wgmma-serialization")
define SM90_COMPILE
	@mkdir -p $(dir $@)
	@echo "  NVCC    $< (sm_90a)"
	$(Q)$(NVCC) $(NVCCFLAGS) $(GEN_SM90) -Xptxas -v -c $< -o $@ 2> $(@:.o=.ptxas.txt) || (cat $(@:.o=.ptxas.txt); exit 1)
	@grep -iE "warning|error|spill" $(@:.o=.ptxas.txt) | grep -v " 0 bytes spill" | head -20 || true
	@if grep -q "wgmma.mma_async instructions are serialized" $(@:.o=.ptxas.txt); then \
	  grep "serialized" $(@:.o=.ptxas.txt) | head -5; rm -f $@; \
	  echo "error: ptxas serialized wgmma in $<"; exit 1; fi
endef

$(BUILD)/src/sm90/%.o: src/sm90/%.cu $(HDRS) | banner
	$(SM90_COMPILE)

$(BUILD)/src/sm100/%.o: src/sm100/%.cu $(HDRS) | banner
	@mkdir -p $(dir $@)
	@echo "  NVCC    $< (sm_100a)"
	$(Q)$(NVCC) $(NVCCFLAGS) $(GEN_SM100) -Xptxas -v,--warning-as-error -c $< -o $@ 2> $(@:.o=.ptxas.txt) || (cat $(@:.o=.ptxas.txt); exit 1)
	@if grep -E "[1-9][0-9]* bytes spill" $(@:.o=.ptxas.txt); then rm -f $@; echo "error: spills in $<"; exit 1; fi

$(GEN_DIR)/.stamp: $(SM90_LIST) $(SM90_GEN)
	@mkdir -p $(GEN_DIR)
	@echo "  GEN     $(GEN_DIR) from $(SM90_LIST)"
	$(Q)sh $(SM90_GEN) $(SM90_LIST) $(GEN_DIR)
	@touch $@

$(GEN_CU) $(GEN_DIR)/index.c: $(GEN_DIR)/.stamp ;

$(GEN_DIR)/%.o: $(GEN_DIR)/%.cu $(HDRS) | banner
	$(SM90_COMPILE)

$(GEN_DIR)/index.o: $(GEN_DIR)/index.c src/sm90/instances.h
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) -Isrc -c $< -o $@

$(BUILD)/%.o: %.cu $(HDRS) | banner
	@mkdir -p $(dir $@)
	@echo "  NVCC    $<"
	$(Q)$(NVCC) $(NVCCFLAGS) $(GEN_GENERIC) -c $< -o $@

$(LIB): $(LIB_OBJS)
	@echo "  LD      $@ (soname $(SONAME))"
	$(Q)$(CC) -shared -o $@ $^ $(CUDA_LIBS) $(LIB_CXX) $(LDLIBS) -Wl,-soname,$(SONAME) -Wl,--no-undefined
	@ln -sf libigemm.so $(BUILD)/$(SONAME)

$(BUILD)/cli/%.o: cli/%.c include/igemm.h $(CLI_HDRS)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) -fvisibility=default -Icli -c $< -o $@

$(CLI): $(CLI_OBJS) $(LIB)
	@echo "  LD      $@"
	$(Q)$(CC) $(CFLAGS) -o $@ $(CLI_OBJS) -L$(BUILD) -ligemm -Wl,-rpath,'$$ORIGIN' -Wl,-rpath,'$$ORIGIN/../lib' $(CUDA_LIBS) $(LDLIBS)

# The C tests link the library's objects statically (build/libigemm.a), so that they can call
# its internal layers (the planner's heuristics: tests/test_heuristics.c) as well as the API.
ARCHIVE := $(BUILD)/libigemm.a
$(ARCHIVE): $(LIB_OBJS)
	@rm -f $@
	@echo "  AR      $@"
	$(Q)ar rcs $@ $^

$(TESTS): $(TEST_SRCS) $(CLI_TEST_OBJS) $(ARCHIVE) include/igemm.h $(wildcard src/*.h src/*/*.h) tests/test.h $(wildcard tests/*.h) $(CLI_HDRS)
	@echo "  LD      $@"
	$(Q)$(CC) $(CFLAGS) -fvisibility=default -Itests -Isrc -Icli -o $@ $(TEST_SRCS) $(CLI_TEST_OBJS) $(ARCHIVE) $(CUDA_LIBS) $(LIB_CXX) $(LDLIBS)

run: $(CLI)
	./$(CLI) run

# Python test environment: a local venv with numpy and pytest (installed by this Makefile).
VENV := .venv
$(VENV)/.ok: python/requirements-test.txt
	$(PYTHON) -m venv $(VENV) || $(PYTHON) -m venv --without-pip $(VENV)
	$(VENV)/bin/python -m pip install -q --disable-pip-version-check -r python/requirements-test.txt
	@touch $@

test-c: $(TESTS) $(CLI)
	./$(TESTS)

test-py: $(LIB) $(VENV)/.ok
	IGEMM_LIBRARY=$(abspath $(LIB)) PYTHONPATH=$(abspath python) $(VENV)/bin/python -m pytest -q python/tests

test: test-c test-py

# SASS opcode counts of the Hopper and Blackwell objects (CUOBJDUMP: any cuobjdump, e.g. the
# nvidia-cuda-cuobjdump wheel's where the toolkit has none)
CUOBJDUMP ?= $(CUDA_HOME)/bin/cuobjdump
sass: $(LIB_OBJS)
	@for f in $(BUILD)/src/sm90/*.o $(GEN_DIR)/*.o; do echo "== $$f"; $(CUOBJDUMP) --dump-sass $$f | grep -oE "HGMMA|UTMALDG|UTMASTG|UBLKCP|LDL|STL|SYNCS" | sort | uniq -c; done
	@for f in $(BUILD)/src/sm100/family_*.o; do echo "== $$f"; $(CUOBJDUMP) --dump-sass $$f | grep -oE "UTCHMMA|UTCBAR|LDTM|UTCATOMSWS[A-Z_.]*|UTMALDG[A-Z0-9_.]*|UTMASTG[A-Z0-9_.]*|UGETNEXTWORKID[A-Z_.]*|LDL|STL" | sort | uniq -c; done

install: $(LIB) $(CLI)
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 include/igemm.h $(DESTDIR)$(PREFIX)/include/
	install -m 755 $(LIB) $(DESTDIR)$(PREFIX)/lib/libigemm.so.$(VERSION)
	cd $(DESTDIR)$(PREFIX)/lib && ln -sf libigemm.so.$(VERSION) $(SONAME) && ln -sf $(SONAME) libigemm.so
	install -m 755 $(CLI) $(DESTDIR)$(PREFIX)/bin/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' pkg/igemm.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/igemm.pc

# the GEMM ladder (examples/gemm_ladder/: ten standalone Hopper programs, docs/gemm_ladder.md)
# into build/ladder/; run each (sm_90 GPU) as build/ladder/stepNN_name [--sizes 4096,8192]
# (sm100_*.cu: the Blackwell steps, built for sm_100a; they run on a B200 only)
LADDER_SRCS := $(wildcard examples/gemm_ladder/step*.cu)
LADDER100_SRCS := $(wildcard examples/gemm_ladder/sm100_*.cu)
LADDER_BINS := $(LADDER_SRCS:examples/gemm_ladder/%.cu=$(BUILD)/ladder/%) \
               $(LADDER100_SRCS:examples/gemm_ladder/%.cu=$(BUILD)/ladder/%)
LADDER_DEPS := examples/gemm_ladder/ladder.cuh examples/gemm_ladder/ladder_ws.cuh examples/gemm_ladder/ladder_sm100.cuh $(wildcard src/ptx/*.cuh src/sm100/*.h)
# The C++ kernel of torch.ops.igemm.conv2d (python/igemm/csrc/conv2d_op.cpp), against the installed
# torch; _torch.py loads build/igemm_torch_op.so when it is there (else its Python kernel).
TORCH_OP := $(BUILD)/igemm_torch_op.so
torchop: $(TORCH_OP)
# part of `make all` where torch imports (a failed build of it leaves the Python kernel, and says so)
torchop-auto: $(LIB)
	@if $(PYTHON) scripts/torch_ext_flags.py cflags > /dev/null 2>&1; then \
	  $(MAKE) --no-print-directory torchop || echo "igemm: $(TORCH_OP) did not build: torch.ops.igemm.conv2d keeps its Python kernel"; fi
$(TORCH_OP): python/igemm/csrc/conv2d_op.cpp scripts/torch_ext_flags.py
	@mkdir -p $(@D)
	$(Q)flags=$$($(PYTHON) scripts/torch_ext_flags.py cflags) && ldf=$$($(PYTHON) scripts/torch_ext_flags.py ldflags) && \
	  $(CXX) -std=c++20 -O2 -shared -fPIC -fvisibility=hidden $$flags -o $@ $< $$ldf

ladder: $(LADDER_BINS)
# part of `make all` with CUDA 12.8+: the Blackwell programs (a few seconds), ptxas warnings (spills
# included) as errors, so that the sm_100a code keeps compiling clean where no B200 runs it
sm100-auto:
	@if [ "$(HAVE_CUDA)" = 1 ]; then \
	  if $(NVCC) --list-gpu-arch 2>/dev/null | grep -qx compute_100; then \
	    $(MAKE) --no-print-directory $(LADDER100_SRCS:examples/gemm_ladder/%.cu=$(BUILD)/ladder/%); \
	  else echo "igemm: $(NVCC) has no compute_100 (CUDA < 12.8): the Blackwell programs are not built"; fi; fi
$(BUILD)/ladder/step%: examples/gemm_ladder/step%.cu $(LADDER_DEPS)
	@mkdir -p $(dir $@)
	$(NVCC) -std=c++17 -O3 -lineinfo -gencode arch=compute_90a,code=sm_90a -Xptxas -warn-spills -o $@ $< -lcuda
$(BUILD)/ladder/sm100_%: examples/gemm_ladder/sm100_%.cu $(LADDER_DEPS)
	@mkdir -p $(dir $@)
	$(NVCC) -std=c++17 -O3 -lineinfo -gencode arch=compute_100a,code=sm_100a -Xptxas -warn-spills,--warning-as-error -o $@ $< -lcuda

# the diagnostic probes (dev/probes/) into build/probes/
probes: $(LIB)
	$(MAKE) -C dev/probes BUILD=$(abspath $(BUILD)) CUDA_HOME=$(CUDA_HOME) NVCC=$(NVCC)

clean:
	rm -rf $(BUILD)
