/// A value an animation can move: it adds, subtracts and scales, like SwiftUI's
/// `VectorArithmetic`. Colors animate as `SIMD4<Double>` in the carrier of `ColorInterpolation`.
public protocol AnimatableValue: Equatable, Sendable {
  static var zero: Self { get }
  static func + (lhs: Self, rhs: Self) -> Self
  static func - (lhs: Self, rhs: Self) -> Self
  /// The value times `factor`.
  func scaled(by factor: Double) -> Self
}

extension Double: AnimatableValue {
  public func scaled(by factor: Double) -> Double { self * factor }
}

extension SIMD2: AnimatableValue where Scalar == Double {
  public func scaled(by factor: Double) -> SIMD2<Double> { self * factor }
}

extension SIMD4: AnimatableValue where Scalar == Double {
  public func scaled(by factor: Double) -> SIMD4<Double> { self * factor }
}
