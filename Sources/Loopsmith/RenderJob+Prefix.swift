import Video

extension RenderJob {
  /// The same job cut to its first `frames` frames, each output promising that many: a short clip
  /// of a loop whose length is fixed by its quantum (weather's 6 s), for timing (`make bench`).
  public func prefix(_ frames: Int) -> RenderJob {
    precondition(frames >= 1, "a prefix of \(frames) frames must hold at least one")
    let n = min(frames, frameCount)
    var job = self
    job.frameCount = n
    for i in job.outputs.indices { job.outputs[i].frameCount = n }
    // A timing clip: no notices to print, no posters, no size search or platform check.
    (job.notices, job.posters, job.maxBytes, job.platform) = ([], [], nil, nil)
    return job
  }
}
