import Foundation
import NFCTestSupport
import Testing
@testable import NFCToolCore

/// `write`, `protect --plan`: every check before the first write, and "nothing was written"
/// only when true. Judged from outside: the built nfctool in a fresh process, and the tag
/// file's bytes before and after.
@Suite("write and protect check everything before writing: the built nfctool on a tag file", .tags(.endToEnd), .timeLimit(.minutes(10)))
struct WriteChecksEndToEndTests {
    /// A fresh directory, removed by the caller, and `sim:MODEL?file=DIR/tag.json` with the file
    /// created by a first `read` (a new tag of the model).
    static func tag(_ model: String) async throws -> (directory: URL, device: String, file: URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctool-wchk-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("tag.json")
        let device = "sim:\(model)?file=\(file.path)"
        _ = try await runBuiltNFCTool(["read", "--device", device])
        #expect(FileManager.default.fileExists(atPath: file.path))
        return (directory, device, file)
    }

    @Test("write --format of a message too big for a blank Ultralight exits 6, says nothing was written, and the tag file is unchanged (no CC)")
    func formatThenTooBig() async throws {
        let (directory, device, file) = try await Self.tag("ultralight")
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try Data(contentsOf: file)
        let run = try await runBuiltNFCTool([
            "write", "--format", "--yes", "--url", "https://example.com/" + String(repeating: "a", count: 100), "--device", device, "--json",
        ])
        #expect(run.status == 6)
        #expect(run.standardError.contains("too big"))
        #expect(run.standardError.contains("nothing was written"))
        #expect(try Data(contentsOf: file) == before)
        // The tag still reads as blank: no capability container was written.
        #expect(try await runBuiltNFCTool(["read", "--device", "sim:?file=\(file.path)"]).status == 4)
    }

    /// CC3 says writable but a static lock bit locks page 8: the tear-safe order wrote the length
    /// page first (L = 0), then the WRITE to page 8 was refused, leaving the tag empty for good.
    @Test("write to an NTAG213 whose static lock bits lock a page the message changes: exit 5, nothing written, the old message still reads")
    func staticLockBitsRefuseBeforeWriting() async throws {
        let (directory, device, file) = try await Self.tag("ntag213")
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try await runBuiltNFCTool(["write", "--url", "https://e.io/a", "--device", device]).status == 0)
        // Lock byte 1 (address 11) bit 0: page 8, which holds "/a" and the Terminator TLV.
        var state = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        var memory = try #require(state["memory"] as? String)
        let lockByte = memory.index(memory.startIndex, offsetBy: 22)
        memory.replaceSubrange(lockByte..<memory.index(lockByte, offsetBy: 2), with: "01")
        state["memory"] = memory
        try JSONSerialization.data(withJSONObject: state).write(to: file)
        let before = try Data(contentsOf: file)
        let run = try await runBuiltNFCTool(["write", "--url", "https://e.io/abcdefgh", "--device", "sim:?file=\(file.path)"])
        #expect(run.status == 5, "\(run.standardError)")
        #expect(run.standardError.contains("page 8 is locked by the static lock bits"), "\(run.standardError)")
        #expect(try Data(contentsOf: file) == before)
        let read = try await runBuiltNFCTool(["read", "--device", "sim:?file=\(file.path)", "--raw"])
        #expect(read.standardOutput == "d101075504652e696f2f61\n")
    }

    @Test("write --format with a {mirror:uid} URL on a blank Ultralight (no mirror) exits 10 and leaves the tag file unchanged")
    func formatThenMirrorOnUltralight() async throws {
        let (directory, device, file) = try await Self.tag("ultralight")
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try Data(contentsOf: file)
        let run = try await runBuiltNFCTool(["write", "--format", "--yes", "--url", "https://e.io/?u={mirror:uid}", "--device", device])
        #expect(run.status == 10)
        #expect(run.standardError.contains("nothing was written"))
        #expect(try Data(contentsOf: file) == before)
    }

    @Test("write --format of a message that fits a blank Ultralight formats and writes it (the check does not stop a good write)")
    func formatThenWrite() async throws {
        let (directory, device, file) = try await Self.tag("ultralight")
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try await runBuiltNFCTool(["write", "--format", "--yes", "--url", "https://e.io", "--device", device])
        #expect(run.status == 0)
        #expect(run.standardOutput.hasPrefix("Formatted the "))
        let read = try await runBuiltNFCTool(["read", "--device", "sim:?file=\(file.path)", "--raw"])
        #expect(read.status == 0)
        #expect(read.standardOutput == "d101055504652e696f\n")
    }

    @Test("write --format and batch --format without --yes and without a terminal exit 64 before touching the blank tag: its CC is one-time programmable")
    func formatNeedsYes() async throws {
        let (directory, device, file) = try await Self.tag("ultralight")
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try Data(contentsOf: file)
        let write = try await runBuiltNFCTool(["write", "--format", "--url", "https://e.io", "--device", device])
        #expect(write.status == 64, "\(write.output)")
        #expect(write.standardError.contains("one-time programmable") && write.standardError.contains("--yes"), "\(write.standardError)")
        let batch = try await runBuiltNFCTool([
            "batch", "--format", "--url", "https://e.io/{n}", "--device", device, "--count", "1",
            "--ledger", directory.appendingPathComponent("l.db").path,
        ])
        #expect(batch.status == 64, "\(batch.output)")
        #expect(batch.standardError.contains("one-time programmable") && batch.standardError.contains("--yes"), "\(batch.standardError)")
        #expect(try Data(contentsOf: file) == before)
        // --plan needs no --yes: it writes nothing.
        #expect(try await runBuiltNFCTool(["write", "--format", "--url", "https://e.io", "--device", device, "--plan"]).status == 0)
        #expect(try Data(contentsOf: file) == before)
    }

    @Test("write --format answered 'n' on a terminal leaves the blank Ultralight's tag file unchanged (no CC)")
    func formatDeclined() async throws {
        let (directory, device, file) = try await Self.tag("ultralight")
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try Data(contentsOf: file)
        let io = CapturedIO(standardInput: Array("n\n".utf8), isStandardInputTerminal: true)
        let status = await runTool(
            arguments: ["write", "--format", "--url", "https://e.io", "--device", device], environment: [:], io: io)
        #expect(status == .failure)
        #expect(io.standardError.contains("one-time programmable"), "\(io.standardError)")
        #expect(io.standardError.hasSuffix("Error: not confirmed; nothing was written\n"), "\(io.standardError)")
        #expect(try Data(contentsOf: file) == before)
    }

    @Test("write --format --lock answered 'n' on a terminal leaves the blank Ultralight's tag file unchanged (no CC)")
    func formatLockDeclined() async throws {
        let (directory, device, file) = try await Self.tag("ultralight")
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try Data(contentsOf: file)
        let io = CapturedIO(standardInput: Array("n\n".utf8), isStandardInputTerminal: true)
        let status = await runTool(
            arguments: ["write", "--format", "--lock", "--url", "https://e.io", "--device", device], environment: [:], io: io)
        #expect(status == .failure)
        #expect(io.standardError.hasSuffix("Error: not confirmed; nothing was written\n"))
        #expect(try Data(contentsOf: file) == before)
    }

    @Test("write --lock --yes on a Type 4 tag (no permanent lock) exits 10 and the NDEF file is unchanged")
    func lockOnType4() async throws {
        let (directory, device, file) = try await Self.tag("type4")
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try Data(contentsOf: file)
        let run = try await runBuiltNFCTool(["write", "--url", "https://a.example", "--lock", "--yes", "--device", device])
        #expect(run.status == 10)
        #expect(run.standardError.contains("nothing was sent"))
        #expect(try Data(contentsOf: file) == before)
        let read = try await runBuiltNFCTool(["read", "--device", "sim:?file=\(file.path)", "--json"])
        #expect(!read.standardOutput.contains("a.example"))
    }

    @Test("protect --plan with a wrong --current-password-file exits 9 (authentication), not a plan of 0 writes")
    func protectPlanWrongCurrentPassword() async throws {
        let (directory, device, _) = try await Self.tag("ntag215")
        defer { try? FileManager.default.removeItem(at: directory) }
        let right = directory.appendingPathComponent("right.pwd")
        let wrong = directory.appendingPathComponent("wrong.pwd")
        let new = directory.appendingPathComponent("new.pwd")
        try "11223344:AABB".write(to: right, atomically: true, encoding: .utf8)
        try "99999999:AABB".write(to: wrong, atomically: true, encoding: .utf8)
        try "55667788:CCDD".write(to: new, atomically: true, encoding: .utf8)
        #expect(try await runBuiltNFCTool(["protect", "--device", device, "--password-file", right.path]).status == 0)
        let refused = try await runBuiltNFCTool([
            "protect", "--plan", "--device", device, "--password-file", new.path, "--current-password-file", wrong.path,
        ])
        #expect(refused.status == 9, "stdout: \(refused.standardOutput) stderr: \(refused.standardError)")
        #expect(!refused.standardOutput.contains("Plan for"))
        let planned = try await runBuiltNFCTool([
            "protect", "--plan", "--device", device, "--password-file", new.path, "--current-password-file", right.path,
        ])
        #expect(planned.status == 0)
        #expect(planned.standardOutput.hasPrefix("Plan for protect"))
    }
}

/// `batch`: the same checks before each tag's first write.
@Suite("batch checks everything before writing a tag: the built nfctool on tag files", .tags(.endToEnd), .timeLimit(.minutes(10)))
struct BatchWriteChecksEndToEndTests {
    @Test("batch --lock on a Type 4 tag fails that tag with nothing written: its NDEF file does not hold the URL")
    func lockOnType4() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctool-wchk-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let tags = directory.appendingPathComponent("tags")
        let run = try await runBuiltNFCTool([
            "batch", "--device", "sim:type4*1?dir=\(tags.path)", "--url", "https://a.example", "--lock", "--yes",
            "--max-failures", "1", "--ledger", directory.appendingPathComponent("l.db").path, "-t", "1",
        ])
        #expect(run.status != 0)
        #expect(run.standardError.contains("cannot be locked") || run.standardOutput.contains("cannot be locked"), "\(run.standardOutput) \(run.standardError)")
        let files = try FileManager.default.contentsOfDirectory(atPath: tags.path).filter { $0.hasSuffix(".json") }
        #expect(files.count == 1)
        for file in files {
            let read = try await runBuiltNFCTool(["read", "--device", "sim:?file=\(tags.appendingPathComponent(file).path)", "--json"])
            #expect(read.status == 0)
            #expect(!read.standardOutput.contains("a.example"), "\(read.standardOutput)")
        }
    }

    @Test("batch --format of a message too big for a blank Ultralight fails that tag and writes no CC: it still reads as holding no NDEF")
    func formatThenTooBig() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctool-wchk-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let tags = directory.appendingPathComponent("tags")
        let run = try await runBuiltNFCTool([
            "batch", "--device", "sim:ultralight*1?dir=\(tags.path)", "--url", "https://example.com/" + String(repeating: "a", count: 100),
            "--format", "--yes", "--max-failures", "1", "--ledger", directory.appendingPathComponent("l.db").path, "-t", "1",
        ])
        #expect(run.status != 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: tags.path).filter { $0.hasSuffix(".json") }
        #expect(files.count == 1)
        for file in files {
            #expect(try await runBuiltNFCTool(["read", "--device", "sim:?file=\(tags.appendingPathComponent(file).path)"]).status == 4)
        }
    }
}
