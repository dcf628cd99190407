# Loopsmith: `make demo` sets up, builds and renders a loop; `make test` sets up and runs every test.
SWIFT      ?= swift
PREFIX     ?= /usr/local
BUILD_DIR  := .build/release
LOOPSMITH  := $(BUILD_DIR)/loopsmith
DEPS_PKGS  := libavcodec-dev libavformat-dev libswscale-dev libavutil-dev libswresample-dev pkg-config
PC_MODULES := libavcodec libavformat libswscale libavutil libswresample
SUDO       := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps build demo test install renders bench clean

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

## install: copy the release binary to $(PREFIX)/bin
install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(LOOPSMITH) $(DESTDIR)$(PREFIX)/bin/loopsmith

## bench: build release and time every effect (render only, render+encode, encode only, memory);
## prints a table and writes bench/results.json. BENCH_RUNS, BENCH_FRAMES, BENCH_ONLY, BENCH_MEMORY=0.
bench: deps
	$(SWIFT) build -c release --product loopsmith
	$(SWIFT) build -c release --product loopsmith-bench
	$(BUILD_DIR)/loopsmith-bench

clean:
	rm -rf .build renders
