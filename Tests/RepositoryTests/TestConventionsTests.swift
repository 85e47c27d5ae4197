import Foundation
import Testing

/// The tests' own conventions (docs/architecture.md, "The test targets"): fake readers and hex
/// literals come from NFCTestSupport, so that an unexpected command or a malformed literal fails
/// the test the same way everywhere.
@Suite("tests use NFCTestSupport's fake reader and hex literals", .timeLimit(.minutes(1)))
struct TestConventionsTests {
    /// Every Swift file under Tests/, with its path from the package root.
    static func testSources() throws -> [(path: String, text: String)] {
        let tests = LayeringTests.root.appendingPathComponent("Tests")
        let enumerator = FileManager.default.enumerator(at: tests, includingPropertiesForKeys: nil)
        var files: [(String, String)] = []
        while let url = enumerator?.nextObject() as? URL {
            guard url.pathExtension == "swift" else { continue }
            let path = String(url.path.dropFirst(LayeringTests.root.path.count + 1))
            files.append((path, try String(contentsOf: url, encoding: .utf8)))
        }
        return files.sorted { $0.0 < $1.0 }
    }

    /// The `path: declaration` lines of `files` that match `pattern`.
    static func matches(_ pattern: String, in files: [(path: String, text: String)]) throws -> [String] {
        let regex = try NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines])
        return files.flatMap { file in
            regex.matches(in: file.text, range: NSRange(file.text.startIndex..., in: file.text)).compactMap { match in
                Range(match.range, in: file.text).map { "\(file.path): \(file.text[$0])" }
            }
        }
    }

    @Test("no test declares a reader of its own: ScriptedReader (a script, a table, a ScriptedTag, an interposer) covers them")
    func noAdHocReaders() throws {
        let files = try Self.testSources()
        #expect(files.count > 50, "Tests/ was not found: \(files.count) files")
        let readers = try Self.matches(#"^\s*(\w+\s+)*(actor|class|struct|enum)\s+\w+\s*(<[^>]*>)?\s*:[^{]*\bNFCReader\b"#, in: files)
        #expect(readers == [])
    }

    @Test("no test defines its own hex-literal helper: NFCTestSupport's hex fails the test on a bad literal")
    func noLocalHexHelpers() throws {
        let helpers = try Self.matches(#"^\s*(\w+\s+)*func\s+(hex|hexBytes)\(_\s+\w+:\s*String\)"#, in: try Self.testSources())
        #expect(helpers == [])
    }
}
