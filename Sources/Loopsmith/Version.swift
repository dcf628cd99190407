/// The version `loopsmith --version` prints and manifests record.
public let loopsmithVersion = "0.1.0"
