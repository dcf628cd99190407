// swift-tools-version:6.0
import PackageDescription

// libFuzzer targets for `make fuzz`: built with `-sanitize=fuzzer` (coverage for every module,
// libFuzzer's main in each executable), debug so that internal API is testable and every
// overflow and bounds check is on. See fuzz/README.md.
let package = Package(
  name: "LoopsmithFuzz",
  dependencies: [.package(name: "Loopsmith", path: "..")],
  targets: [
    .target(name: "FuzzDriver", path: "Sources/FuzzDriver"),
    .executableTarget(
      name: "fuzz-preset", dependencies: ["FuzzDriver", .product(name: "Loopsmith", package: "Loopsmith")],
      path: "Sources/FuzzPreset"),
    .executableTarget(
      name: "fuzz-arguments",
      dependencies: [
        "FuzzDriver", .product(name: "Loopsmith", package: "Loopsmith"),
        .product(name: "LoopsmithCLI", package: "Loopsmith"),
      ],
      path: "Sources/FuzzArguments"),
    .executableTarget(
      name: "fuzz-raster", dependencies: ["FuzzDriver", .product(name: "LoopsmithEffects", package: "Loopsmith")],
      path: "Sources/FuzzRaster"),
    .executableTarget(
      name: "fuzz-boxes", dependencies: ["FuzzDriver", .product(name: "LoopsmithVideo", package: "Loopsmith")],
      path: "Sources/FuzzBoxes"),
    .executableTarget(
      name: "fuzz-media", dependencies: ["FuzzDriver", .product(name: "LoopsmithVideo", package: "Loopsmith")],
      path: "Sources/FuzzMedia"),
  ],
  swiftLanguageModes: [.v5]
)
