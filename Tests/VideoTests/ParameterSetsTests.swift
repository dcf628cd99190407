import CLibAV
import Testing

@testable import Video

/// `join`'s comparison of HEVC extradata: an `hvcC` without its SEI arrays, and hostile records
/// compared whole instead of trapping.
@Suite struct ParameterSetsTests {
  /// An `hvcC` with a header of 22 bytes of 0x11, and arrays of (NAL unit type, units).
  static func record(_ arrays: [(UInt8, [[UInt8]])]) -> [UInt8] {
    var data: [UInt8] = [1] + [UInt8](repeating: 0x11, count: 21) + [UInt8(arrays.count)]
    for (type, units) in arrays {
      data += [0x80 | type, 0, UInt8(units.count)]
      for unit in units { data += [0, UInt8(unit.count)] + unit }
    }
    return data
  }

  @Test func seiArraysAreLeftOut() {
    let sets: [(UInt8, [[UInt8]])] = [(32, [[0x40, 1]]), (33, [[0x42, 1, 2]]), (34, [[0x44, 1]])]
    let a = Self.record(sets + [(39, [[0x4E, 1, 5, 0xAA]])])
    let b = Self.record(sets + [(39, [[0x4E, 1, 5, 0xBB, 0xCC]])])
    #expect(a != b)
    #expect(ParameterSets.comparable(a, codec: AV_CODEC_ID_HEVC) == Self.record(sets))
    #expect(
      ParameterSets.comparable(a, codec: AV_CODEC_ID_HEVC) == ParameterSets.comparable(b, codec: AV_CODEC_ID_HEVC))
    // Another PPS is another stream.
    let c = Self.record([(32, [[0x40, 1]]), (33, [[0x42, 1, 2]]), (34, [[0x44, 2]])])
    #expect(
      ParameterSets.comparable(c, codec: AV_CODEC_ID_HEVC) != ParameterSets.comparable(a, codec: AV_CODEC_ID_HEVC))
    // H.264's avcC is compared whole.
    #expect(ParameterSets.comparable(a, codec: AV_CODEC_ID_H264) == a)
  }

  @Test(arguments: [1, 10, 23, 26, 29, 30])
  func aRecordCutShortIsComparedWhole(length: Int) {
    let whole = Self.record([(33, [[0x42, 1, 2]]), (39, [[0x4E, 1]])])
    let cut = Array(whole.prefix(length))
    #expect(ParameterSets.hvcCWithoutSEI(cut) == nil || length == whole.count)
    #expect(ParameterSets.comparable(cut, codec: AV_CODEC_ID_HEVC) == cut)
  }

  @Test func lengthsPastTheEndAndTrailingBytesAreComparedWhole() {
    var huge = Self.record([(33, [[0x42, 1, 2]])])
    huge[25] = 0xFF  // 255 units where there is one
    #expect(ParameterSets.hvcCWithoutSEI(huge) == nil)
    #expect(ParameterSets.hvcCWithoutSEI(Self.record([(33, [[0x42]])]) + [0]) == nil)
    #expect(ParameterSets.hvcCWithoutSEI([0, 0, 0, 1] + [UInt8](repeating: 0, count: 30)) == nil)  // Annex B
  }
}
