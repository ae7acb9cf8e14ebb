# tavlei: every target sets up PyTorch 2.13.0 (for libtorch) on first use, then builds with it.
# The venv lives outside the checkout so fresh clones (and CI) reuse it. Override with TAVLEI_VENV.
# Its path is defined here alone: recipes and `make -s env` export it, and the Rust code's default
# (`nn::onnx::venv`, for a shell without it) is tested to be this one.

TORCH_VERSION := 2.13.0
TAVLEI_VENV ?= $(HOME)/.cache/tavlei/torch-$(TORCH_VERSION)
export TAVLEI_VENV
NUMPY_VERSION := 2.4.6
# numpy: the tests read the NumPy export back with numpy itself
TORCH_STAMP := $(TAVLEI_VENV)/.torch-$(TORCH_VERSION)-numpy-$(NUMPY_VERSION)-installed
# ONNX export (`tavlei export-onnx`, `make test-onnx`): onnx writes and checks the file,
# onnxruntime runs it; torch's TorchScript exporter needs nothing more (no onnxscript).
ONNX_VERSION := 1.23.2
ONNXRUNTIME_VERSION := 1.31.1
ONNX_STAMP := $(TAVLEI_VENV)/.onnx-$(ONNX_VERSION)-onnxruntime-$(ONNXRUNTIME_VERSION)-installed
# The Ray cluster driver (cluster/tavlei_cluster.py, `make test-cluster`): 2.60 has token
# authentication (RAY_AUTH_MODE=token, from 2.52) and installs on the venv's Python 3.11.
RAY_VERSION := 2.60.0
RAY_STAMP := $(TAVLEI_VENV)/.ray-$(RAY_VERSION)-installed

# torch-sys finds libtorch through the venv's python; build.rs adds an rpath to it. The venv goes
# on the PATH once: a sub-make adding it again would change PATH, which build.rs watches, and
# rebuild the crate.
export LIBTORCH_USE_PYTORCH := 1
ifeq ($(findstring $(TAVLEI_VENV)/bin:,$(PATH)),)
export PATH := $(TAVLEI_VENV)/bin:$(PATH)
endif

CARGO ?= cargo
RUN_ARGS ?=
# One profile for everything: the tests, the binary and the slow tests share the release
# artefacts, so the dependencies are built (optimised) once.
TEST := $(CARGO) test --release --workspace

# `$(call install,TOOL,PACKAGE)`: installs Debian's PACKAGE when TOOL is missing and this runs as
# root; never fails. `$(call have,TOOL,PACKAGE)`: true when TOOL is on the PATH (installed first
# where it can be); otherwise one line says what is missing and the part is skipped (false),
# unless TAVLEI_NO_SKIP is set (.ci/run sets it), which makes the skip a failure.
install = { command -v $(1) >/dev/null || { [ "$$(id -u)" = 0 ] && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(2) >/dev/null; } || true; }
have = { $(call install,$(1),$(2)); command -v $(1) >/dev/null || { echo "make $@: skipped: $(1) is missing (install Debian's $(2) as root, then rerun make $@)"; [ -z "$$TAVLEI_NO_SKIP" ] || exit 1; false; }; }


.PHONY: all setup build test test-rules test-extras-setup test-browser screenshot load-test test-htp test-onnx setup-onnx test-play setup-ray test-cluster measure-cluster fuzz run bench bench-network bench-inference fmt clippy clean-venv env

all: build

setup: $(TORCH_STAMP)

$(TORCH_STAMP):
	@echo "tavlei: installing PyTorch $(TORCH_VERSION) and numpy $(NUMPY_VERSION) into $(TAVLEI_VENV) (once, about 2 minutes, 4.7 GB)"
	python3 -m venv $(TAVLEI_VENV)
	$(TAVLEI_VENV)/bin/pip install --quiet --disable-pip-version-check torch==$(TORCH_VERSION) numpy==$(NUMPY_VERSION)
	touch $@

build: setup
	$(CARGO) build --release

test: setup
	$(CARGO) fmt --all --check
	$(CARGO) clippy --release --workspace --all-targets -- -D warnings
	$(TEST) --exclude tavlei-rules
	$(MAKE) test-extras-setup
	@# side by side (their installs done above, one at a time), each one's output kept together:
	@# the cluster test, the longest, first in line for the cores, the others niced around it
	nice -n 10 $(MAKE) --jobs=5 --output-sync=target test-rules test-browser test-htp test-onnx test-play & \
	others=$$!; $(MAKE) test-cluster; cluster=$$?; wait $$others && [ $$cluster = 0 ]

# The rules crate's own tests (its move generator against perft counts and a reference
# implementation, every rule on concrete positions), alone: `cargo test -p tavlei-rules`.
test-rules:
	$(CARGO) test --release -p tavlei-rules

# Complete Copenhagen games against hnefatafl.org's reference engine through the Hnefatafl Text
# Protocol (its binary built once from crates.io into the cache, about a minute).
HTP_ROOT ?= $(HOME)/.cache/tavlei/htp
HTP_REFERENCE := $(HTP_ROOT)/bin/hnefatafl-text-protocol
$(HTP_REFERENCE):
	$(CARGO) install hnefatafl-copenhagen --version 6.4.1 --no-default-features --bin hnefatafl-text-protocol --root $(HTP_ROOT)
test-htp: setup $(HTP_REFERENCE)
	TAVLEI_HTP_REFERENCE=$(HTP_REFERENCE) $(TEST) --test htp -- --ignored --nocapture

# What the slow parts of `make test` need, installed one at a time (apt and pip each take a lock).
# (after HTP_REFERENCE: make expands a rule's prerequisites as it reads them)
test-extras-setup: setup-onnx setup-ray $(HTP_REFERENCE)
	@$(call install,chromium,chromium); $(call install,tmux,tmux)

# ONNX export against tch through onnxruntime (the packages installed once into the venv, ~15 s).
setup-onnx: $(ONNX_STAMP)
$(ONNX_STAMP): $(TORCH_STAMP)
	$(TAVLEI_VENV)/bin/pip install --quiet --disable-pip-version-check onnx==$(ONNX_VERSION) onnxruntime==$(ONNXRUNTIME_VERSION)
	touch $@
test-onnx: setup-onnx
	TAVLEI_PYTHON=$(TAVLEI_VENV)/bin/python $(TEST) --test onnx -- --ignored --nocapture

# Ray for the cluster driver (installed once into the venv, ~15 s).
setup-ray: $(RAY_STAMP)
$(RAY_STAMP): $(TORCH_STAMP)
	$(TAVLEI_VENV)/bin/pip install --quiet --disable-pip-version-check ray==$(RAY_VERSION)
	touch $@
# Two Ray nodes on this machine, in a network namespace with only loopback (and a PID namespace
# that ends whatever Ray leaves): balance and self-play through the driver equal the local runs
# byte for byte, also with the second node killed mid-job (about 40 s). Without root the
# namespaces are a user's own (`unshare --user --map-root-user`) where the kernel allows it.
NAMESPACES = $$(if [ "$$(id -u)" = 0 ]; then echo unshare; elif unshare --user --map-root-user true 2>/dev/null; then echo unshare --user --map-root-user; fi)
test-cluster: build setup-ray
	@ns="$(NAMESPACES)"; if [ -z "$$ns" ]; then echo "make $@: skipped: this kernel gives no user namespaces without root (run it as root)"; [ -z "$$TAVLEI_NO_SKIP" ] || exit 1; \
	else timeout 600 $$ns --net --pid --fork --mount-proc bash cluster/test_cluster.sh $${CARGO_TARGET_DIR:-target}/release/tavlei $(TAVLEI_VENV); fi
# The figures of cluster/MEASURED.md: a pure-MCTS balance study on one core locally and on two
# one-core Ray nodes, and Ray's start-up time.
measure-cluster: build setup-ray
	timeout 1200 $(NAMESPACES) --net --pid --fork --mount-proc bash cluster/measure.sh $${CARGO_TARGET_DIR:-target}/release/tavlei $(TAVLEI_VENV)

# The game viewer and `tavlei serve`'s page in headless Chromium (Debian's package, installed here
# on first use as root). `make screenshot` remakes docs/serve.png from the page's test.
test-browser: setup
	@if $(call have,chromium,chromium); then TAVLEI_CHROMIUM=$$(command -v chromium) $(TEST) --test viewer --test serve_browser -- --ignored; fi

# `tavlei serve` under 50 games at once for 30 s (figures in the output; TAVLEI_LOAD_OUT=FILE
# keeps them as JSON).
load-test: setup
	$(TEST) --test serve_load -- --ignored --nocapture

screenshot: setup
	TAVLEI_CHROMIUM=$$(command -v chromium) TAVLEI_SCREENSHOT=$(CURDIR)/docs/serve.png $(TEST) --test serve_browser -- --ignored

# `tavlei play` as a person plays it, in a detached tmux session (Debian's package, installed here
# on first use as root).
test-play: setup
	@if $(call have,tmux,tmux); then $(TEST) --test play_tmux -- --ignored; fi

# The fuzz properties of tests/fuzz.rs with many more cases than `make test` gives them (256).
FUZZ_CASES ?= 20000
fuzz: setup
	PROPTEST_CASES=$(FUZZ_CASES) $(CARGO) test --release --test fuzz

# The main job: a short self-play pipeline on Brandubh (about 2.5 minutes on 2 cores), then the
# direct measurements, the closing ladder, a balance table and the report. Rerunning resumes; delete $(RUN_DIR) to redo it.
RUN_DIR ?= runs/make-run
run: build
	./target/release/tavlei pipeline --config configs/pipeline/brandubh.toml --run-dir $(RUN_DIR) $(RUN_ARGS)

bench: setup
	$(CARGO) bench

# Network search speed (simulations per second, one thread, leaf batching 1/4/8/16) on an idle
# machine and beside one busy process, one after the other in the same run.
bench-network: setup
	$(CARGO) bench --bench network_search -- --save-baseline idle
	sh -c 'while :; do :; done' & busy=$$!; \
	  $(CARGO) bench --bench network_search -- --save-baseline loaded; status=$$?; \
	  kill $$busy; exit $$status

# The shipped networks' forward pass in PyTorch on one thread: the module, batch norm folded,
# channels-last, bf16 and a frozen TorchScript module, at batch 1, 8 and 64.
bench-inference: setup
	for n in brandubh:7 tavlei:9 copenhagen:11; do \
	  $(TAVLEI_VENV)/bin/python benches/inference_torch.py models/$${n%%:*}.safetensors --board-size $${n##*:} || exit 1; \
	done

fmt:
	$(CARGO) fmt

# Prints the exports that let plain `cargo build/test/run` work in your shell: eval "$(make -s env)"
env:
	@echo 'export LIBTORCH_USE_PYTORCH=1'
	@echo 'export TAVLEI_VENV=$(TAVLEI_VENV)'
	@echo 'export PATH=$(TAVLEI_VENV)/bin:$$PATH'

clean-venv:
	rm -rf $(TAVLEI_VENV)
