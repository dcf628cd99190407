# Loopsmith: `make demo` sets up, builds and renders a loop; `make test` sets up and runs every test.
SWIFT      ?= swift
PREFIX     ?= /usr/local
BUILD_DIR  := .build/release
LOOPSMITH  := $(BUILD_DIR)/loopsmith
DEPS_PKGS  := libavcodec-dev libavformat-dev libswscale-dev libavutil-dev libswresample-dev pkg-config
PC_MODULES := libavcodec libavformat libswscale libavutil libswresample
SUDO       := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps build demo test test-gallery schema install renders bench clean

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

## install: copy the release binary to $(PREFIX)/bin
install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(LOOPSMITH) $(DESTDIR)$(PREFIX)/bin/loopsmith

clean:
	rm -rf .build renders
