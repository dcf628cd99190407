import Raster

/// Light or dark, as SwiftUI's color scheme.
public enum Appearance: String, CaseIterable, Sendable, Codable {
  case light, dark
}

/// Which system palette named colors resolve to (docs/SWIFTUI-SEMANTICS.md, Colours).
public enum PaletteVersion: String, CaseIterable, Sendable, Codable {
  case ios26, ios18
}

/// A named SwiftUI color, resolved per appearance and palette.
public enum SystemColor: String, CaseIterable, Sendable, Codable {
  case pink, purple, blue, teal, orange, indigo, cyan, white, black
  /// SwiftUI's other named colours: none of the seeds uses them, but a user's `colors=red,green` means them.
  case red, green, yellow, mint, brown, gray

  /// The sRGB color for an appearance and palette (docs/SWIFTUI-SEMANTICS.md, Colours).
  public func resolved(_ appearance: Appearance, _ palette: PaletteVersion) -> Color {
    let rgb: (Int, Int, Int)
    switch (self, palette, appearance) {
    case (.white, _, _): rgb = (255, 255, 255)
    case (.black, _, _): rgb = (0, 0, 0)
    case (.pink, _, .light): rgb = (255, 45, 85)
    case (.pink, _, .dark): rgb = (255, 55, 95)
    case (.purple, .ios26, .light): rgb = (203, 48, 224)
    case (.purple, .ios26, .dark): rgb = (219, 52, 242)
    case (.purple, .ios18, .light): rgb = (175, 82, 222)
    case (.purple, .ios18, .dark): rgb = (191, 90, 242)
    case (.blue, .ios26, .light): rgb = (0, 136, 255)
    case (.blue, .ios26, .dark): rgb = (0, 145, 255)
    case (.blue, .ios18, .light): rgb = (0, 122, 255)
    case (.blue, .ios18, .dark): rgb = (10, 132, 255)
    case (.teal, .ios26, .light): rgb = (0, 195, 208)
    case (.teal, .ios26, .dark): rgb = (0, 210, 224)
    case (.teal, .ios18, .light): rgb = (48, 176, 199)
    case (.teal, .ios18, .dark): rgb = (64, 200, 224)
    case (.orange, .ios26, .light): rgb = (255, 141, 40)
    case (.orange, .ios26, .dark): rgb = (255, 146, 48)
    case (.orange, .ios18, .light): rgb = (255, 149, 0)
    case (.orange, .ios18, .dark): rgb = (255, 159, 10)
    case (.indigo, .ios26, .light): rgb = (97, 85, 245)
    case (.indigo, .ios26, .dark): rgb = (109, 124, 255)
    case (.indigo, .ios18, .light): rgb = (88, 86, 214)
    case (.indigo, .ios18, .dark): rgb = (94, 92, 230)
    case (.cyan, .ios26, .light): rgb = (0, 192, 232)
    case (.cyan, .ios26, .dark): rgb = (60, 211, 254)
    case (.cyan, .ios18, .light): rgb = (50, 173, 230)
    case (.cyan, .ios18, .dark): rgb = (100, 210, 255)
    case (.red, .ios26, .light): rgb = (255, 56, 60)
    case (.red, .ios26, .dark): rgb = (255, 66, 69)
    case (.red, .ios18, .light): rgb = (255, 59, 48)
    case (.red, .ios18, .dark): rgb = (255, 69, 58)
    case (.green, _, .light): rgb = (52, 199, 89)
    case (.green, _, .dark): rgb = (48, 209, 88)
    case (.yellow, _, .light): rgb = (255, 204, 0)
    case (.yellow, .ios26, .dark): rgb = (255, 214, 0)
    case (.yellow, .ios18, .dark): rgb = (255, 214, 10)
    case (.mint, .ios26, .light): rgb = (0, 200, 179)
    case (.mint, .ios26, .dark): rgb = (0, 218, 195)
    case (.mint, .ios18, .light): rgb = (0, 199, 190)
    case (.mint, .ios18, .dark): rgb = (99, 230, 226)
    case (.brown, .ios26, .light): rgb = (172, 127, 94)
    case (.brown, .ios26, .dark): rgb = (183, 138, 102)
    case (.brown, .ios18, .light): rgb = (162, 132, 94)
    case (.brown, .ios18, .dark): rgb = (172, 142, 104)
    case (.gray, _, _): rgb = (142, 142, 147)
    }
    return Color(rgb255: rgb.0, rgb.1, rgb.2)
  }
}

/// A color as a parameter holds it: a system color resolved at render time, or literal sRGB.
public enum ColorValue: Hashable, Sendable, CustomStringConvertible {
  case system(SystemColor, opacity: Float = 1)
  case rgb(Color)

  public func resolved(_ env: RenderEnvironment) -> Color {
    switch self {
    case .system(let c, let opacity):
      var color = c.resolved(env.appearance, env.palette)
      color.alpha *= opacity
      return color
    case .rgb(let c): return c
    }
  }

  public var description: String {
    switch self {
    case .system(let c, let o): o == 1 ? c.rawValue : "\(c.rawValue)@\(o)"
    case .rgb(let c): c.hex
    }
  }
}

/// What the surroundings of a view decide: the environment values the seeds read.
public struct RenderEnvironment: Hashable, Sendable {
  public var appearance: Appearance = .dark
  public var palette: PaletteVersion = .ios26
  /// Right-to-left layout: the weather's sun moves to the top left (docs/SWIFTUI-SEMANTICS.md, Right to left).
  public var rightToLeft = false
  /// Reduce Motion: time held at 0, no lightning, the voice orb brightening instead of swelling.
  public var reduceMotion = false

  public init(
    appearance: Appearance = .dark, palette: PaletteVersion = .ios26,
    rightToLeft: Bool = false, reduceMotion: Bool = false
  ) {
    self.appearance = appearance
    self.palette = palette
    self.rightToLeft = rightToLeft
    self.reduceMotion = reduceMotion
  }
}
