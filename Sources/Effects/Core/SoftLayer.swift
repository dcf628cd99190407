import Raster
import Timing

extension GraphicsContext {
  /// Draws a soft layer at the moments `clock` gives for it (`Clock.samples(for:)`): once, at the
  /// time within the loop, or in the crossfade at the end of a loop twice, mixed by weight. Drawing
  /// at the time within the loop, not the clock's own, is what makes the frame at the loop's length
  /// frame 0 again for a layer whose rates the plan left alone.
  ///
  /// With `isolated`, a single moment is drawn through a layer too, as a canvas faded as a whole
  /// needs (docs/SWIFTUI-SEMANTICS.md, View modifiers); a crossfade always is. Isolated content
  /// must draw with source-over only: where nothing fades the group, it is drawn straight
  /// (`drawSourceOverLayer`).
  public func drawSoftLayer(
    _ layer: String, clock: Clock, isolated: Bool = false, _ content: (inout GraphicsContext, Clock) -> Void
  ) {
    let samples = clock.samples(for: layer)
    if samples.count > 1 {
      drawBlended(weights: samples.map(\.weight)) { i, context in content(&context, samples[i].clock) }
    } else if isolated {
      drawSourceOverLayer { content(&$0, samples[0].clock) }
    } else {
      var context = self
      content(&context, samples[0].clock)
    }
  }

  /// `drawSoftLayer` of a layer that is one mesh gradient (`drawMesh`), to the same bits: a
  /// crossfade's moments are painted and mixed together a few rows at a time
  /// (`drawBlended(meshes:weights:)`) instead of through a layer each.
  public func drawSoftMesh(_ layer: String, clock: Clock, _ mesh: (Clock) -> MeshGradient) {
    let samples = clock.samples(for: layer)
    if samples.count > 1 {
      drawBlended(meshes: samples.map { mesh($0.clock) }, weights: samples.map(\.weight))
    } else {
      drawMesh(mesh(samples[0].clock))
    }
  }
}
