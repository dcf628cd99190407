import Effects
import Foundation
import Testing
import _TestSupport

@testable import Loopsmith

/// The strict readers every file and flag goes through: decimal numbers, JSON without duplicate
/// keys, paths confined to their folder, HTML escaped for its context.
@Suite struct StrictInputTests {
  @Test(arguments: ["0", "-1", "+2", "2.5", ".5", "5.", "1e3", "1E-3", "-0.25e+2", "007"])
  func decimalNumbersAreRead(text: String) {
    #expect(DecimalText.double(text) == Double(text))
  }

  @Test(arguments: [
    "0x10", "0X1p3", "inf", "-inf", "Infinity", "nan", "NaN", "1e999", "-1e400", "", " 1", "1 ", "1e", "e1", ".", "-",
    "1.2.3", "1_000", "١٢", "0b1", "1,5",
  ])
  func anythingElseIsNotANumber(text: String) {
    #expect(DecimalText.double(text) == nil, "\(text)")
  }

  @Test func wholeNumbersAreDigitsOnly() {
    #expect(DecimalText.int("42") == 42 && DecimalText.int("-3") == -3)
    for text in ["0x10", "1.0", "1e3", "", "+", "99999999999999999999", "4 "] {
      #expect(DecimalText.int(text) == nil, "\(text)")
    }
  }

  @Test func levelLinesAreDecimalAndErrorsNeverQuoteTheLine() throws {
    #expect(try LevelTrack(csv: "t,l\n0,0.5\n1,1\n").levels == [0.5, 1])
    for (text, line, column) in [
      ("0,0\n0x1,0.5\n", 2, 1), ("0,0\n1, inf\n", 2, 4), ("0,0\n1,2,hunter2\n", 2, 5), ("a\nPASSWORD=hunter2\n", 2, 1),
    ] {
      do {
        _ = try LevelTrack(csv: text)
        Issue.record("\(text) was read")
      } catch let e as LevelTrackError {
        #expect((e.line, e.column) == (line, column), "\(text)")
        #expect(
          !e.description.contains("hunter2") && !e.description.contains("0x1") && !e.description.contains("inf"), "\(e)"
        )
      }
    }
  }

  // MARK: - JSON

  static func jsonError(_ text: String) -> String? {
    do {
      try StrictJSON.check(Data(text.utf8), file: "f.json")
      return nil
    } catch {
      return "\(error)"
    }
  }

  @Test(arguments: [
    (#"{"a": 1, "a": 2}"#, "f.json: duplicate key 'a' at line 1, column 10"),
    ("{\n  \"p\": {\"x\": [1, {\"k\": 1, \"k\": 2}]}\n}", "duplicate key 'p.x[1].k' at line 2, column 27"),
    // Swift's strings compare canonically equivalent text as equal, so JSONSerialization's
    // dictionary would keep one of these two: a duplicate.
    (#"{"é": 2, "e\u0301": 3}"#, "at line 1, column 10; expected each key once"),
    (#"{"a": 1, "\u0061": 2}"#, "duplicate key 'a' at line 1, column 10"),
    (#"{"a": 1e999}"#, "not valid JSON at line 1, column 7: a number too large"),
    (#"{"a": 0x10}"#, "not valid JSON at line 1, column 8: expected ',' or '}'"),
    (#"{"a": NaN}"#, "not valid JSON at line 1, column 7: expected a value"),
    (#"{"a": 01}"#, "leading zero"),
    (#"{"a": 1,}"#, "expected a key in double quotes"),
    (#"{"a": "x"} trailing"#, "expected the end of the file"),
    ("{\"a\": \"tab\there\"}", "a control character inside a string"),
    (String(repeating: "[", count: 300) + String(repeating: "]", count: 300), "nested deeper than 256 levels"),
  ])
  func strictJSONFindsEveryProblemWithItsPlace(text: String, expected: String) {
    let error = Self.jsonError(text)
    #expect(error?.contains(expected) == true, "\(error ?? "no error")")
  }

  @Test func strictJSONAcceptsWhatTheGrammarAllows() {
    for text in [
      #"{"a": [1, -0.5e-3, true, false, null, "\u00e9\n\"", {}], "b": {"a": 1}, "é": 2, "e": 3}"#, "[]", " 5 ", #""x""#,
      "\u{FEFF}{}",
    ] {
      #expect(Self.jsonError(text) == nil, "\(text)")
    }
  }

  @Test func aSyntaxErrorNeverQuotesTheFile() {
    for text in [
      "{\"effect\": hunter2}", "SECRET_TOKEN=hunter2", "{\"a\": 1, hunter2: 1}", "{\"a\": \"hunter2\" \"b\"}",
    ] {
      let error = Self.jsonError(text) ?? ""
      #expect(
        error.contains("not valid JSON at line 1") && !error.contains("hunter2") && !error.contains("SECRET"),
        "\(error)")
    }
  }

  // MARK: - Paths

  @Test func pathsFromFilesStayInTheirFolder() throws {
    let dir = TemporaryDirectory()
    let folder = dir.path("presets")
    try FileManager.default.createDirectory(atPath: folder + "/levels", withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(atPath: folder + "/out", withDestinationPath: "/etc")
    try FileManager.default.createSymbolicLink(atPath: folder + "/inner", withDestinationPath: folder + "/levels")
    #expect(
      try Confinement.path("levels/voice.csv", in: folder, field: "levels", file: "p.json") == folder
        + "/levels/voice.csv")
    #expect(
      try Confinement.path("inner/voice.csv", in: folder, field: "levels", file: "p.json") == folder
        + "/inner/voice.csv")
    #expect(
      try Confinement.path("not-yet/there.csv", in: folder, field: "levels", file: "p.json") == folder
        + "/not-yet/there.csv")
    for (value, rule) in [
      ("../secret.env", "a path with '..'"), ("levels/../../x", "a path with '..'"),
      ("/etc/shadow", "an absolute path"),
      ("~/x", "an absolute path"), ("", "an empty path"), ("a\0b", "NUL"), ("a\\..\\b", "backslash"),
      ("out/shadow", "leaves the folder through a symbolic link"),
    ] {
      #expect(throws: InputError.self, "\(value)") {
        try Confinement.path(value, in: folder, field: "levels", file: "p.json")
      }
      do { _ = try Confinement.path(value, in: folder, field: "levels", file: "p.json") } catch {
        #expect("\(error)".hasPrefix("p.json: 'levels': ") && "\(error)".contains(rule), "\(error)")
      }
    }
  }

  @Test func temporariesAreOwnedByTheProcessInTheirName() {
    #expect(BatchFolder.owner(ofTemporary: ".a.mp4.1234-5.loopsmith-tmp") == 1234)
    #expect(BatchFolder.owner(ofTemporary: ".a.b.mp4.77-xY9.loopsmith-tmp") == 77)
    #expect(BatchFolder.owner(ofTemporary: ".manifest.json.9-w.loopsmith-tmp") == 9)
    for name in [
      "a.mp4", ".a.mp4.loopsmith-tmp", ".a.mp4.x-1.loopsmith-tmp", ".a.mp4.-1.loopsmith-tmp",
      "a.mp4.12-1.loopsmith-tmp", ".a.0-1.loopsmith-tmp",
    ] {
      #expect(BatchFolder.owner(ofTemporary: name) == nil, "\(name)")
    }
  }

  // MARK: - HTML

  @Test func theGalleryEscapesEveryStringForItsContext() {
    let hostile = "x'><script>alert(1)</script>\"&#?%é\u{1}`"
    func entry(_ preset: String, path: String?, status: BatchEntry.Status) -> BatchEntry {
      var e = BatchEntry(preset: preset, presetFile: hostile, status: status)
      (e.path, e.format, e.codecs, e.error, e.width, e.height) = (path, "mp4", hostile, hostile, 16, 16)
      return e
    }
    var link = entry("e", path: "javascript:alert(1).txt", status: .rendered)
    link.format = "txt"  // no video, no image: a link
    let html = Gallery.html(
      BatchManifest(entries: [
        entry(hostile, path: hostile + ".mp4", status: .rendered), entry("b" + hostile, path: nil, status: .failed),
        entry("c", path: "javascript:alert(1).mp4", status: .rendered), entry("d", path: hostile, status: .failed),
        link,
      ]), dir: "/nonexistent")
    #expect(!html.contains("<script") && !html.contains("'>") && !html.contains("\u{1}"), "\(html)")
    #expect(html.contains("x&#39;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&quot;&amp;#?%é\u{FFFD}&#96;"))
    // The URL: each character that means something in a URL percent-encoded (a '/' separates
    // folders), under ./ so that no name reads as a scheme.
    #expect(
      html.contains(#"src="./x%27%3E%3Cscript%3Ealert%281%29%3C/script%3E%22%26%23%3F%25%C3%A9%01%60.mp4""#), "\(html)")
    #expect(html.contains(#"type="video/mp4; codecs=&quot;x&#39;&gt;&lt;script&gt;"#))
    #expect(html.contains(#"src="./javascript%3Aalert%281%29.mp4""#), "\(html)")
    #expect(html.contains(#"<a href="./javascript%3Aalert%281%29.txt">"#), "\(html)")
    #expect(Gallery.url("posters/a#b?c.png") == "./posters/a%23b%3Fc.png")
  }
}
