/// The effects in the order `loopsmith list` shows them.
let effectTypes: [any Effect.Type] = [
  ColorOrbs.self,
  AuroraMesh.self,
  BlobMorphLoader.self,
  VoiceOrb.self,
  Weather.self,
]
