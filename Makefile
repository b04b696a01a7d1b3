GO ?= go

.PHONY: build test test-short bench fuzz vet fmt-check clean dev-binaries gpu-check

build:
	$(GO) build -buildvcs=auto -o bin/ecmul ./cmd/ecmul

test:
	$(GO) test -p 1 ./...

test-short:
	$(GO) test -short ./...

bench:
	$(GO) test -run '^$$' -bench . -benchtime 3x ./...

# fuzz runs every fuzz target of the module for FUZZTIME each, one after
# the other (the seed corpora alone run in make test).
FUZZTIME ?= 10m
fuzz:
	scripts/fuzz.sh $(FUZZTIME)

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

clean:
	rm -rf bin/

# dev-binaries cross-builds, without cgo, what a GPU host without Go runs:
# the CLI and the test binaries of the gpu, root and ecdsa packages (in .dev/).
dev-binaries:
	CGO_ENABLED=0 $(GO) build -buildvcs=true -o .dev/ecmul ./cmd/ecmul
	CGO_ENABLED=0 $(GO) test -c -o .dev/gpu.test ./internal/gpu
	CGO_ENABLED=0 $(GO) test -c -o .dev/ecmul.test .
	CGO_ENABLED=0 $(GO) test -c -o .dev/ecdsa.test ./ecdsa

# gpu-check runs on the GPU host: verifies the kernels against the CPU twin
# and the references, benchmarks beside gECC, and runs compute-sanitizer
# (REBUILD=1 rebuilds the kernels with nvcc first).
gpu-check:
	scripts/gpu-check.sh all

# experiment runs on the GPU host: the benchmark sweep behind the README's
# figures, then the charts; results in bench/<device>/, or in OUT=dir.
.PHONY: experiment
experiment:
	scripts/experiment.sh $(OUT)

# Kernels: the CUDA fatbin that internal/kernels embeds, and its dev tools.
# nvcc is needed for kernels, kernels-fatbin and kernels-harness; Go for
# kernels, kernels-hash, kernels-check and kernels-mutant; a C++20 compiler
# for kernels-emulate, kernels-check and kernels-mutant.

.PHONY: kernels kernels-fatbin kernels-hash kernels-harness kernels-emulate kernels-check kernels-mutant

NVCC ?= nvcc
CXX ?= g++
KERNEL_SOURCES := $(wildcard internal/kernels/*.cu internal/kernels/*.cuh)
KERNEL_GENCODE := -gencode arch=compute_80,code=sm_80 -gencode arch=compute_86,code=sm_86 \
	-gencode arch=compute_89,code=sm_89 -gencode arch=compute_90,code=sm_90 \
	-gencode arch=compute_90,code=compute_90
# KERNEL_COMPRESS compresses the fatbin's images, which the driver unpacks as
# it loads the module: on an H200 (bench/h200/2026-11-28-c3-fatbin) size took
# the fatbin from 24.3 MB to 4.4 MB and left the engine's open time as it
# was; balance compressed nothing. Set it empty for an uncompressed build.
KERNEL_COMPRESS ?= --compress-mode=size
KERNEL_NVCCFLAGS := -std=c++17 -O3 --threads 0 -Xptxas -v $(KERNEL_COMPRESS)
CUDA_LIBS ?= -L/usr/local/cuda/lib64/stubs -lcuda

# kernels rebuilds the fatbin and records the hash of the sources it came from.
kernels: kernels-fatbin kernels-hash

kernels-fatbin: internal/kernels/ecmul.fatbin

internal/kernels/ecmul.fatbin: $(KERNEL_SOURCES)
	$(NVCC) $(KERNEL_NVCCFLAGS) --fatbin $(KERNEL_GENCODE) -o $@ internal/kernels/ecmul.cu

kernels-hash:
	cd internal/kernels && go run hash.go

# kernels-harness builds the GPU harness (bit-exactness and timing on a GPU).
kernels-harness: internal/kernels/harness/harness

internal/kernels/harness/harness: internal/kernels/harness/harness.cu internal/kernels/harness/vectors.h internal/kernels/schedule_gen.cuh
	$(NVCC) -std=c++17 -O2 -o $@ internal/kernels/harness/harness.cu $(CUDA_LIBS)

# kernels-emulate builds the CPU emulation of the kernel (bit-exactness without a GPU).
kernels-emulate: internal/kernels/harness/emulate

# On x86-64 the emulation switches between its fibers' stacks itself, which
# shadow stacks (-fcf-protection, on by default in some compilers) forbid.
EMULATE_CXXFLAGS := -std=c++20 -O2 -fno-strict-aliasing -Wall -Wno-unknown-pragmas -pthread \
	$(if $(filter x86_64,$(shell uname -m)),-fcf-protection=none)

internal/kernels/harness/emulate: internal/kernels/harness/emulate.cpp internal/kernels/harness/vectors.h $(KERNEL_SOURCES)
	$(CXX) $(EMULATE_CXXFLAGS) -o $@ internal/kernels/harness/emulate.cpp

# kernels-check runs every entry point of the kernel source on the CPU
# emulation against the CPU twin, on vectors written in the same run
# (KERNELS_CHECK_ITEMS items per curve, schedule and channel width).
kernels-check:
	scripts/kernels-check.sh

# kernels-mutant shows kernels-check failing on wrong edits to the kernel's
# arithmetic, each applied to a copy of the sources.
kernels-mutant:
	scripts/kernels-mutant.sh
