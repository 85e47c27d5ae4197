import Foundation
import Testing

/// `write`, `protect --plan`: every check before the first write, and "nothing was written"
/// only when true. Judged from outside: the built nfctool in a fresh process, and the tag
/// file's bytes before and after.
@Suite("write and protect check everything before writing: the built nfctool on a tag file", .timeLimit(.minutes(10)))
struct WriteChecksEndToEndTests {
    /// A fresh directory, removed by the caller, and `sim:MODEL?file=DIR/tag.json` with the file
    /// created by a first `read` (a new tag of the model).
    static func tag(_ model: String) throws -> (directory: URL, device: String, file: URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctool-wchk-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("tag.json")
        let device = "sim:\(model)?file=\(file.path)"
        _ = try runBuiltNFCTool(["read", "--device", device])
        #expect(FileManager.default.fileExists(atPath: file.path))
        return (directory, device, file)
    }

    @Test("write --format of a message too big for a blank Ultralight exits 6, says nothing was written, and the tag file is unchanged (no CC)")
    func formatThenTooBig() throws {
        let (directory, device, file) = try Self.tag("ultralight")
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try Data(contentsOf: file)
        let run = try runBuiltNFCTool([
            "write", "--format", "--url", "https://example.com/" + String(repeating: "a", count: 100), "--device", device, "--json",
        ])
        #expect(run.status == 6)
        #expect(run.standardError.contains("too big"))
        #expect(run.standardError.contains("nothing was written"))
        #expect(try Data(contentsOf: file) == before)
        // The tag still reads as blank: no capability container was written.
        #expect(try runBuiltNFCTool(["read", "--device", "sim:?file=\(file.path)"]).status == 4)
    }

    @Test("write --format with a {mirror:uid} URL on a blank Ultralight (no mirror) exits 10 and leaves the tag file unchanged")
    func formatThenMirrorOnUltralight() throws {
        let (directory, device, file) = try Self.tag("ultralight")
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try Data(contentsOf: file)
        let run = try runBuiltNFCTool(["write", "--format", "--url", "https://e.io/?u={mirror:uid}", "--device", device])
        #expect(run.status == 10)
        #expect(run.standardError.contains("nothing was written"))
        #expect(try Data(contentsOf: file) == before)
    }

    @Test("write --format of a message that fits a blank Ultralight formats and writes it (the check does not stop a good write)")
    func formatThenWrite() throws {
        let (directory, device, file) = try Self.tag("ultralight")
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try runBuiltNFCTool(["write", "--format", "--url", "https://e.io", "--device", device])
        #expect(run.status == 0)
        #expect(run.standardOutput.hasPrefix("Formatted the "))
        let read = try runBuiltNFCTool(["read", "--device", "sim:?file=\(file.path)", "--raw"])
        #expect(read.status == 0)
        #expect(read.standardOutput == "d101055504652e696f\n")
    }

    @Test("write --lock --yes on a Type 4 tag (no permanent lock) exits 10 and the NDEF file is unchanged")
    func lockOnType4() throws {
        let (directory, device, file) = try Self.tag("type4")
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try Data(contentsOf: file)
        let run = try runBuiltNFCTool(["write", "--url", "https://a.example", "--lock", "--yes", "--device", device])
        #expect(run.status == 10)
        #expect(run.standardError.contains("nothing was sent"))
        #expect(try Data(contentsOf: file) == before)
        let read = try runBuiltNFCTool(["read", "--device", "sim:?file=\(file.path)", "--json"])
        #expect(!read.standardOutput.contains("a.example"))
    }

    @Test("protect --plan with a wrong --current-password-file exits 9 (authentication), not a plan of 0 writes")
    func protectPlanWrongCurrentPassword() throws {
        let (directory, device, _) = try Self.tag("ntag215")
        defer { try? FileManager.default.removeItem(at: directory) }
        let right = directory.appendingPathComponent("right.pwd")
        let wrong = directory.appendingPathComponent("wrong.pwd")
        let new = directory.appendingPathComponent("new.pwd")
        try "11223344:AABB".write(to: right, atomically: true, encoding: .utf8)
        try "99999999:AABB".write(to: wrong, atomically: true, encoding: .utf8)
        try "55667788:CCDD".write(to: new, atomically: true, encoding: .utf8)
        #expect(try runBuiltNFCTool(["protect", "--device", device, "--password-file", right.path]).status == 0)
        let refused = try runBuiltNFCTool([
            "protect", "--plan", "--device", device, "--password-file", new.path, "--current-password-file", wrong.path,
        ])
        #expect(refused.status == 9, "stdout: \(refused.standardOutput) stderr: \(refused.standardError)")
        #expect(!refused.standardOutput.contains("Plan for"))
        let planned = try runBuiltNFCTool([
            "protect", "--plan", "--device", device, "--password-file", new.path, "--current-password-file", right.path,
        ])
        #expect(planned.status == 0)
        #expect(planned.standardOutput.hasPrefix("Plan for protect"))
    }
}
