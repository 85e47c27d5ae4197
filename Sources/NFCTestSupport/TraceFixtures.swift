public import Foundation
public import NFCTags
import NFCCore

/// A reader trace kept as a regression test under `Tests/Fixtures/traces/` (its README): the
/// trace `NAME.jsonl`, the nfctool arguments that recorded it (`NAME.args`, one a line, without
/// `--device` and `--trace`) and what that command printed (`NAME.stdout`). A test runs the
/// arguments with `--device replay:` ``tracePath`` and compares the output: the answers the
/// platform code must handle are the ones the recorded reader gave.
public struct TraceFixture: Sendable, Hashable, CustomStringConvertible {
    /// The directory of the fixtures: `Tests/Fixtures/traces`.
    public static let directory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tests/Fixtures/traces")

    /// The fixture's name: its file name without `.jsonl`.
    public let name: String

    /// The fixture `name` (`ntag215-read-url`).
    public init(_ name: String) { self.name = name }

    /// Every fixture of ``directory`` (every `*.jsonl`), by name; empty when the directory
    /// cannot be read (a test over them then checks that some were found).
    public static var all: [TraceFixture] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".jsonl") }.sorted().map { TraceFixture(String($0.dropLast(".jsonl".count))) }
    }

    /// The trace's path.
    public var tracePath: String { Self.directory.appendingPathComponent(name + ".jsonl").path }

    /// `--device replay:` ``tracePath``'s value.
    public var deviceString: String { "replay:" + tracePath }

    /// The arguments that recorded it (`NAME.args`, one a line).
    /// - Throws: when the file cannot be read.
    public func arguments() throws -> [String] {
        let text = try String(contentsOf: Self.directory.appendingPathComponent(name + ".args"), encoding: .utf8)
        return text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    /// What the recorded command printed (`NAME.stdout`).
    /// - Throws: when the file cannot be read.
    public func expectedOutput() throws -> String {
        try String(contentsOf: Self.directory.appendingPathComponent(name + ".stdout"), encoding: .utf8)
    }

    /// The trace, parsed.
    /// - Throws: a file error, or ``ReaderTraceError`` when it does not parse.
    public func trace() throws -> ReaderTrace {
        try ReaderTrace.parse(try FileAccess.read(tracePath, limit: 64 << 20))
    }

    /// The fixture's name.
    public var description: String { name }
}
