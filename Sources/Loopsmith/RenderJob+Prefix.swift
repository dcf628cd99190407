import Video

extension RenderJob {
  /// The same job cut to its first `frames` frames, each output promising that many: a short clip
  /// of a loop whose length is fixed by its quantum (weather's 6 s), for timing (`make bench`).
  public func prefix(_ frames: Int) -> RenderJob {
    precondition(frames >= 1, "a prefix of \(frames) frames must hold at least one")
    let n = min(frames, frameCount)
    let outputs = self.outputs.map { settings -> OutputSettings in
      var s = settings
      s.frameCount = n
      return s
    }
    return RenderJob(
      effectType: effectType, values: values, environment: environment, width: width, height: height, scale: scale,
      fps: fps, frameCount: n, fixedTime: fixedTime, plan: plan, outputs: outputs, threads: threads, levels: levels,
      transition: transition)
  }
}
