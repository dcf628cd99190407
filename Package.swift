// swift-tools-version:6.0
import PackageDescription

// No unsafe flags: a package that depends on Loopsmith cannot build one with them. The Makefile's
// release builds pass -enforce-exclusivity=unchecked on the command line (docs/ARCHITECTURE.md,
// Library).
let package = Package(
  name: "Loopsmith",
  platforms: [.macOS(.v14)],
  products: [
    .executable(name: "loopsmith", targets: ["loopsmith"]),
    .library(name: "Loopsmith", targets: ["Loopsmith"]),
    .library(name: "LoopsmithCLI", targets: ["LoopsmithCLI"]),  // for fuzz/: the argument parser
    .library(name: "LoopsmithEffects", targets: ["Effects", "Raster", "Timing"]),
    .library(name: "LoopsmithVideo", targets: ["Video"]),  // for fuzz/: the box walker and the frame readers
  ],
  targets: [
    .systemLibrary(
      name: "CLibAV", pkgConfig: "libavformat",
      providers: [.apt(["libavcodec-dev", "libavformat-dev", "libswscale-dev", "libavutil-dev", "libswresample-dev"])]),
    .target(name: "CHints"),  // CPU hints Swift cannot spell (prefetch)
    .target(name: "Raster", dependencies: ["CHints"]),
    .target(name: "Timing"),  // curves, clocks, loop plans; no pixels
    .target(name: "Effects", dependencies: ["Raster", "Timing"]),
    .target(name: "Video", dependencies: ["CLibAV", "CHints", "Raster"]),
    .target(name: "Loopsmith", dependencies: ["Raster", "Effects", "Timing", "Video"]),
    // The command line: arguments, help, terminal progress and exit codes, over the core above.
    .target(name: "LoopsmithCLI", dependencies: ["Loopsmith", "Effects", "Timing", "Video"]),
    .executableTarget(name: "loopsmith", dependencies: ["LoopsmithCLI"]),
    // `make bench`: frames a second and peak memory per effect; a benchmark, not a test.
    .executableTarget(name: "loopsmith-bench", dependencies: ["Loopsmith", "Video", "Effects", "Raster"]),

    // An abort's stack printed by the test process itself (Tests/run-suite.sh names its frames).
    .target(name: "_TestCrashTrace", path: "Tests/_TestCrashTrace"),
    .target(name: "_TestSupport", dependencies: ["Raster", "CLibAV", "_TestCrashTrace"], path: "Tests/_TestSupport"),
    .testTarget(name: "RasterTests", dependencies: ["Raster", "_TestSupport"]),
    .testTarget(name: "TimingTests", dependencies: ["Timing"]),
    .testTarget(name: "EffectsTests", dependencies: ["Effects", "Raster", "Timing", "_TestSupport"]),
    .testTarget(name: "VideoTests", dependencies: ["Video", "Raster", "_TestSupport"]),
    .testTarget(
      name: "LoopsmithTests", dependencies: ["Loopsmith", "Video", "Effects", "Raster", "Timing", "_TestSupport"]),
    .testTarget(
      name: "LoopsmithCLITests",
      dependencies: ["LoopsmithCLI", "Loopsmith", "Effects", "Video", "_TestSupport", "_TestCrashTrace"]),
  ],
  swiftLanguageModes: [.v5]
)
