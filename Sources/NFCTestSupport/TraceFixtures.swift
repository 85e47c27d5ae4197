public import Foundation
public import NFCTags
import NFCCore

/// A reader trace kept as a regression test under `Tests/Fixtures/traces/` (its README): the
/// trace `NAME.jsonl`, the nfctool arguments that recorded it (`NAME.args`, one a line, without
/// `--device` and `--trace`) and what that command printed (`NAME.stdout`). A test runs the
/// arguments with `--device replay:` ``tracePath`` and compares the output: the answers the
/// platform code must handle are the ones the recorded reader gave.
///
/// Traces built from public captures of real chips (`captures/`, its README naming each
/// source) are fixtures too (``captures``), named `captures/NAME`.
/// ``problems(status:standardOutput:standardError:)`` is the verdict every fixture test gives: a
/// replay must end with the recorded exit status (`NAME.status` when there is one, else 0),
/// print the recorded output and use the whole trace (a replay that stops short leaves answers
/// unchecked).
public struct TraceFixture: Sendable, Hashable, CustomStringConvertible {
    /// The directory of the fixtures: `Tests/Fixtures/traces`.
    public static let directory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tests/Fixtures/traces")

    /// The fixture's name: its file name without `.jsonl`, with its subdirectory of
    /// ``root`` (`captures/nfcpy-ntag213-info`).
    public let name: String
    /// The directory the fixture's files are in (``directory`` unless a test made its own).
    public let root: URL

    /// The fixture `name` (`ntag215-read-url`) of `root`.
    public init(_ name: String, in root: URL = TraceFixture.directory) {
        self.name = name
        self.root = root
    }

    /// Every fixture of ``directory`` (every `*.jsonl`), by name; empty when the directory
    /// cannot be read (a test over them then checks that some were found). These were recorded
    /// through a reader (pn532-emulator can play them back).
    public static var all: [TraceFixture] { fixtures(in: "") }

    /// Every fixture of `directory/captures`: traces built from public captures of real chips.
    public static var captures: [TraceFixture] { fixtures(in: "captures/") }

    private static func fixtures(in subdirectory: String) -> [TraceFixture] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent(subdirectory).path)) ?? []
        return names.filter { $0.hasSuffix(".jsonl") }.sorted().map { TraceFixture(subdirectory + String($0.dropLast(".jsonl".count))) }
    }

    /// The trace's path.
    public var tracePath: String { root.appendingPathComponent(name + ".jsonl").path }

    /// `--device replay:` ``tracePath``'s value.
    public var deviceString: String { "replay:" + tracePath }

    /// The arguments that recorded it (`NAME.args`, one a line).
    /// - Throws: when the file cannot be read.
    public func arguments() throws -> [String] {
        let text = try String(contentsOf: root.appendingPathComponent(name + ".args"), encoding: .utf8)
        return text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    /// What the recorded command printed (`NAME.stdout`).
    /// - Throws: when the file cannot be read.
    public func expectedOutput() throws -> String {
        try String(contentsOf: root.appendingPathComponent(name + ".stdout"), encoding: .utf8)
    }

    /// The exit status the recorded command ended with: `NAME.status` when there is one (a
    /// fixture of a check that fails, such as `verify --expect-genuine` on a chip whose signature
    /// is not NXP's), else 0.
    /// - Throws: when `NAME.status` exists but does not hold a number.
    public func expectedStatus() throws -> Int32 {
        let url = root.appendingPathComponent(name + ".status")
        guard FileManager.default.fileExists(atPath: url.path) else { return 0 }
        let text = try String(contentsOf: url, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let status = Int32(text) else { throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: url.path]) }
        return status
    }

    /// The trace, parsed.
    /// - Throws: a file error, or ``ReaderTraceError`` when it does not parse.
    public func trace() throws -> ReaderTrace {
        try ReaderTrace.parse(try FileAccess.read(tracePath, limit: 64 << 20))
    }

    /// What is wrong with a replay of the fixture that exited with `status`, printed
    /// `standardOutput` and `standardError`: empty when it passed. A replay fails when it does
    /// not exit with ``expectedStatus()``, when its output differs from ``expectedOutput()``, when it diverged,
    /// and when it ended with exchanges of the trace left (nfctool's warning "replay ended at
    /// exchange N of M: the rest of the trace was not used").
    public func problems(status: Int32, standardOutput: String, standardError: String) -> [String] {
        var problems: [String] = []
        do {
            let expected = try expectedStatus()
            if status != expected { problems.append("exit status \(status), not \(expected): \(standardError)") }
        } catch {
            problems.append("cannot read \(name).status: \(error)")
        }
        do {
            let expected = try expectedOutput()
            if standardOutput != expected { problems.append("the output differs from \(name).stdout:\n\(standardOutput)") }
        } catch {
            problems.append("cannot read \(name).stdout: \(error)")
        }
        for line in standardError.split(separator: "\n") where line.contains("the rest of the trace was not used") || line.contains("replay diverged") {
            problems.append(String(line))
        }
        return problems
    }

    /// The fixture's name.
    public var description: String { name }
}
