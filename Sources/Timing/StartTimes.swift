/// When each of a run of steps starts: the sum of the durations before it. A duration that is
/// negative or not a number counts as 0 s.
func startTimes(_ durations: [Double]) -> [Double] {
  var starts: [Double] = []
  starts.reserveCapacity(durations.count)
  var time = 0.0
  for duration in durations {
    starts.append(time)
    time += duration.isFinite ? max(duration, 0) : 0
  }
  return starts
}
