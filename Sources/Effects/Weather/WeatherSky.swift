import Raster

// MARK: - Sky

/// The sky: a gradient from its top color to its bottom color over the whole screen.
enum WeatherSky {
  static func draw(in context: GraphicsContext, top: Color, bottom: Color) {
    let size = context.size
    context.fill(
      Path(rect: Rect(x: 0, y: 0, width: size.width, height: size.height)),
      with: .linearGradient(
        Gradient(colors: [top, bottom]), start: Point(size.width / 2, 0),
        end: Point(size.width / 2, size.height)))
  }
}
