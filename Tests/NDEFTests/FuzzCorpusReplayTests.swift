import Foundation
import NDEF
import Testing

/// Replays the fuzzer's inputs kept in the repository through the NDEF decoders.
///
/// `Tests/Fixtures/ndef/corpus/` holds the valid seed messages of `Scripts/fuzz-ndef`;
/// `Tests/Fixtures/ndef/crashes/` holds every input that once crashed the codec or broke a fuzz
/// property (see its README). Each file goes through strict and lenient decoding, and the same
/// properties the harness `Fuzz/NDEFFuzz/main.swift` checks, so a past crash stays fixed without
/// running the fuzzer.
@Suite("Fuzz corpus replay", .timeLimit(.minutes(5)))
struct FuzzCorpusReplayTests {
    /// `Tests/Fixtures/ndef`, found from this file's path.
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // NDEFTests
        .deletingLastPathComponent()  // Tests
        .appendingPathComponent("Fixtures/ndef", isDirectory: true)

    /// The inputs in one fixture directory, as "directory/file" paths relative to ``fixtures``.
    static func inputs(in directory: String) -> [String] {
        let url = fixtures.appendingPathComponent(directory, isDirectory: true)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.filter { $0 != "README.md" && !$0.hasPrefix(".") }.sorted().map { "\(directory)/\($0)" }
    }

    static let seeds = inputs(in: "corpus")
    static let pastCrashes = inputs(in: "crashes")

    static func read(_ input: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: fixtures.appendingPathComponent(input)))
    }

    @Test("The fixture directories are found and the seed corpus is not empty")
    func fixturesAreFound() {
        #expect(Self.seeds.count >= 10, "no seeds under \(Self.fixtures.path)/corpus")
        #expect(FileManager.default.fileExists(atPath: Self.fixtures.appendingPathComponent("crashes/README.md").path))
    }

    @Test("Every seed is a valid message that decodes strictly and round-trips", arguments: seeds)
    func seedDecodesStrictly(_ input: String) throws {
        let bytes = try Self.read(input)
        #expect(throws: Never.self) { try NDEFMessage(bytes: bytes) }
        try checkFuzzProperties(bytes)
    }

    @Test("Every input, seed or past crash, decodes strictly and leniently without trapping",
          arguments: seeds + pastCrashes)
    func replay(_ input: String) throws {
        try checkFuzzProperties(try Self.read(input))
    }

    /// The harness's properties: the decoders agree, a decoded message round-trips (unchunked
    /// and chunked), and salvaged records round-trip when they encode at all.
    func checkFuzzProperties(_ bytes: [UInt8]) throws {
        let lenient = NDEFMessage.decodeLeniently(bytes)
        let strict: NDEFMessage
        do {
            strict = try NDEFMessage(bytes: bytes)
        } catch {
            let first = try #require(lenient.warnings.first, "strict decoding failed with \(error); lenient saw nothing")
            #expect(first.code == error.code)
            #expect(first.offset == error.offset)
            if !lenient.message.records.isEmpty, let encoded = try? lenient.message.encoded() {
                #expect(try NDEFMessage(bytes: encoded) == lenient.message)
            }
            return
        }
        #expect(lenient.warnings.isEmpty)
        #expect(lenient.message == strict)
        for chunkSize in [nil, 1, 7] as [Int?] {
            let encoded = try strict.encoded(chunkSize: chunkSize)
            if chunkSize == nil { #expect(encoded.count == strict.length) }
            #expect(try NDEFMessage(bytes: encoded) == strict, "chunk size \(String(describing: chunkSize))")
        }
    }
}
