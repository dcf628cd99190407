import Effects

extension RenderRequest {
  package static func effectType(_ name: String) throws -> any Effect.Type {
    guard let t = EffectRegistry.type(named: name) else {
      let hint = didYouMean(name, in: EffectRegistry.names)
      throw InputError(
        "unknown effect '\(name)'; expected one of \(EffectRegistry.names.joined(separator: ", ")).\(hint)")
    }
    return t
  }

  /// The row of `type`'s parameter table named `name`.
  package static func parameter(_ name: String, of type: any Effect.Type) throws -> ParameterSpec {
    guard let spec = type.info.parameter(named: name) else {
      let names = type.info.parameters.map(\.name)
      throw InputError(
        "unknown parameter '\(name)' for \(type.info.name); expected one of \(names.joined(separator: ", ")).\(didYouMean(name, in: names))"
      )
    }
    return spec
  }
}
