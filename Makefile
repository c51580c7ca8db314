# igemm — build, test, run, install.
#   make            library (build/libigemm.so), CLI (build/igemm), C tests (build/igemm_tests)
#   make run        the main job: igemm run (a real ResNet-50 layer on the GPU; CPU reference without one)
#   make test       C tests + Python tests (sets up .venv with numpy and pytest itself)
#   make install PREFIX=/usr/local
# CUDA is found at $(CUDA_HOME); without nvcc the library builds CPU-only (reference path).

CUDA_HOME ?= /usr/local/cuda
NVCC ?= $(CUDA_HOME)/bin/nvcc
PREFIX ?= /usr/local
PYTHON ?= python3
BUILD := build

HAVE_CUDA ?= $(shell test -x $(NVCC) && echo 1 || echo 0)

CC ?= cc
CFLAGS ?= -O2 -g
CFLAGS += -std=c11 -Wall -Wextra -Wno-unused-parameter -Wno-format-truncation -fPIC -fvisibility=hidden -Iinclude -D_GNU_SOURCE
LDLIBS := -lm -lpthread -ldl

# Generic kernels: sm_80 SASS + sm_90 SASS + compute_80 PTX (JIT for anything newer).
GEN_GENERIC := -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_80,code=compute_80
# Hopper kernels: wgmma / setmaxnreg need the arch-specific sm_90a target.
GEN_SM90 := -gencode arch=compute_90a,code=sm_90a
NVCCFLAGS ?= -O3 -lineinfo
NVCCFLAGS += -std=c++17 -Xcompiler -fPIC,-fvisibility=hidden -Iinclude --expt-relaxed-constexpr -Xptxas -warn-spills

C_SRCS := $(wildcard src/*.c src/ref/*.c src/common/*.c src/sm90/*.c)
ifeq ($(HAVE_CUDA),1)
CU_SRCS := $(wildcard src/sm80/*.cu src/gpu_ref/*.cu src/sm90/*.cu)
CFLAGS += -DIGEMM_HAVE_CUDA=1 -I$(CUDA_HOME)/include
CUDA_LIBS := -L$(CUDA_HOME)/lib64 -lcudart_static -lrt
LIB_CXX := -lstdc++
else
CU_SRCS :=
CUDA_LIBS :=
endif

LIB_OBJS := $(C_SRCS:%.c=$(BUILD)/%.o) $(CU_SRCS:%.cu=$(BUILD)/%.o)
LIB := $(BUILD)/libigemm.so
CLI := $(BUILD)/igemm
TESTS := $(BUILD)/igemm_tests
TEST_SRCS := $(wildcard tests/*.c)
# The CLI's sources compile to build/cli/*.o; the C tests link all of them except main.o.
CLI_SRCS := $(wildcard cli/*.c)
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/%.o)
CLI_TEST_OBJS := $(filter-out $(BUILD)/cli/main.o,$(CLI_OBJS))
CLI_HDRS := $(wildcard cli/*.h)
HDRS := include/igemm.h $(wildcard src/*.h src/*/*.h src/*/*.cuh)

.PHONY: all lib run test test-c test-py gpu-test install clean sass
all: $(LIB) $(CLI) $(TESTS)
lib: $(LIB)

$(BUILD)/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/src/sm90/%.o: src/sm90/%.cu $(HDRS)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) $(GEN_SM90) -Xptxas -v -c $< -o $@ 2> $(BUILD)/src/sm90/$*.ptxas.txt || (cat $(BUILD)/src/sm90/$*.ptxas.txt; exit 1)
	@grep -iE "warning|error|spill" $(BUILD)/src/sm90/$*.ptxas.txt | grep -v " 0 bytes spill" | head -20 || true
	@# ptxas serialising a kernel's wgmma (C7510-C7520: e.g. a run-time branch around a wgmma, or
	@# accumulators written by other instructions inside a wgmma pipeline stage) is a silent 5-25%
	@# slowdown of every mainloop of the instance (docs/perf.md S17-7): fail the build instead
	@if grep -q "wgmma.mma_async instructions are serialized" $(BUILD)/src/sm90/$*.ptxas.txt; then \
	  grep "serialized" $(BUILD)/src/sm90/$*.ptxas.txt | head -5; rm -f $@; \
	  echo "error: ptxas serialized wgmma in $<"; exit 1; fi

$(BUILD)/%.o: %.cu $(HDRS)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) $(GEN_GENERIC) -c $< -o $@

$(LIB): $(LIB_OBJS)
	$(CC) -shared -o $@ $^ $(CUDA_LIBS) $(LIB_CXX) $(LDLIBS) -Wl,-soname,libigemm.so.0 -Wl,--no-undefined
	@ln -sf libigemm.so $(BUILD)/libigemm.so.0

$(BUILD)/cli/%.o: cli/%.c include/igemm.h $(CLI_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fvisibility=default -Icli -c $< -o $@

$(CLI): $(CLI_OBJS) $(LIB)
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJS) -L$(BUILD) -ligemm -Wl,-rpath,'$$ORIGIN' -Wl,-rpath,'$$ORIGIN/../lib' $(CUDA_LIBS) $(LDLIBS)

# The C tests link the library's objects statically (build/libigemm.a), so that they can call
# its internal layers (the planner's heuristics: tests/test_heuristics.c) as well as the API.
ARCHIVE := $(BUILD)/libigemm.a
$(ARCHIVE): $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(TESTS): $(TEST_SRCS) $(CLI_TEST_OBJS) $(ARCHIVE) include/igemm.h $(wildcard src/*.h src/*/*.h) tests/test.h $(wildcard tests/*.h) $(CLI_HDRS)
	$(CC) $(CFLAGS) -fvisibility=default -Itests -Isrc -Icli -o $@ $(TEST_SRCS) $(CLI_TEST_OBJS) $(ARCHIVE) $(CUDA_LIBS) $(LIB_CXX) $(LDLIBS)

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

sass: $(LIB_OBJS)
	@for f in $(BUILD)/src/sm90/*.o; do $(CUDA_HOME)/bin/cuobjdump --dump-sass $$f | grep -oE "HGMMA|UTMALDG|UTMASTG|UBLKCP|LDL|STL|SYNCS" | sort | uniq -c; done

install: $(LIB) $(CLI)
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 include/igemm.h $(DESTDIR)$(PREFIX)/include/
	install -m 755 $(LIB) $(DESTDIR)$(PREFIX)/lib/libigemm.so.$(shell sed -n 's/#define IGEMM_VERSION_MAJOR //p' include/igemm.h).$(shell sed -n 's/#define IGEMM_VERSION_MINOR //p' include/igemm.h).$(shell sed -n 's/#define IGEMM_VERSION_PATCH //p' include/igemm.h)
	cd $(DESTDIR)$(PREFIX)/lib && ln -sf libigemm.so.0.1.0 libigemm.so.0 && ln -sf libigemm.so.0 libigemm.so
	install -m 755 $(CLI) $(DESTDIR)$(PREFIX)/bin/
	sed -e 's|@PREFIX@|$(PREFIX)|' tools/igemm.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/igemm.pc

clean:
	rm -rf $(BUILD)
