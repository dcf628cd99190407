import Raster

extension Weather {
  /// A kind of weather the background can draw.
  public enum Kind: String, CaseIterable, Sendable, Codable {
    case clearDay, clearNight, cloudy, rain, thunderstorm, snow, fog

    /// The name of the weather, for a label next to it.
    public var title: String {
      switch self {
      case .clearDay: "Clear"
      case .clearNight: "Clear Night"
      case .cloudy: "Cloudy"
      case .rain: "Rain"
      case .thunderstorm: "Thunderstorm"
      case .snow: "Snow"
      case .fog: "Fog"
      }
    }

    /// Frames a second the seed draws at: falling rain and snow need every frame; slow clouds,
    /// fog, the sun and the stars do with half.
    public var framesPerSecond: Int {
      switch self {
      case .rain, .thunderstorm, .snow: 60
      case .clearDay, .clearNight, .cloudy, .fog: 30
      }
    }

    /// The sky's colors at the top and at the bottom of the screen.
    public var skyColors: (top: Color, bottom: Color) {
      switch self {
      case .clearDay: (Color(red: 0.11, green: 0.38, blue: 0.80), Color(red: 0.46, green: 0.72, blue: 0.96))
      case .clearNight: (Color(red: 0.02, green: 0.03, blue: 0.13), Color(red: 0.10, green: 0.13, blue: 0.34))
      case .cloudy: (Color(red: 0.33, green: 0.40, blue: 0.52), Color(red: 0.62, green: 0.68, blue: 0.76))
      case .rain: (Color(red: 0.14, green: 0.19, blue: 0.27), Color(red: 0.33, green: 0.40, blue: 0.49))
      case .thunderstorm: (Color(red: 0.06, green: 0.07, blue: 0.13), Color(red: 0.20, green: 0.22, blue: 0.34))
      case .snow: (Color(red: 0.36, green: 0.44, blue: 0.58), Color(red: 0.70, green: 0.76, blue: 0.85))
      case .fog: (Color(red: 0.46, green: 0.49, blue: 0.56), Color(red: 0.70, green: 0.72, blue: 0.75))
      }
    }
  }
}
