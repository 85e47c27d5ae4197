import Foundation
import NFCTestSupport
import Testing

/// Writing and reading NDEF on a partly password-protected Type 5 tag (ICODE SLIX-S, NTAG 5,
/// ST25TV02K, ST25DV04K) through `nfctool` in fresh processes on the simulator's tag files: the
/// file's bytes are compared before and after, and the message is read back by another process.
@Suite("Type 5 writes and reads over password-protected blocks in fresh nfctool processes", .tags(.endToEnd), .timeLimit(.minutes(4)))
struct Type5PasswordProtectedWriteTests {
    /// A chip, how it is protected, and the first block protection begins at.
    struct Case: Sendable, CustomStringConvertible {
        var model: String
        var password: String
        var protect: [String]
        var firstProtected: Int
        var description: String { model }
        /// What `unprotect` takes to open it again: the area, where one is named.
        var unprotect: [String] { protect.first == "--area" ? Array(protect.prefix(2)) : [] }
    }

    static let cases: [Case] = [
        Case(model: "icode-slix-s", password: "C0FFEE42", protect: ["--from-block", "8"], firstProtected: 8),
        Case(model: "ntag5", password: "C0FFEE42", protect: ["--from-block", "8"], firstProtected: 8),
        Case(model: "st25tv02k", password: "C0FFEE42", protect: ["--area", "2"], firstProtected: 32),
        Case(model: "st25dv04k", password: "8899AABBCCDDEEFF", protect: ["--area", "2", "--from-block", "16"], firstProtected: 16),
    ]

    /// A tag file holding `text`, and a password file.
    static func setUp(_ model: String, text: String, password: String) async throws -> (directory: URL, file: String, device: String, password: String) {
        let directory = try temporaryDirectory()
        let file = directory.appendingPathComponent("\(model).json").path
        let passwordFile = directory.appendingPathComponent("tag.pwd").path
        try "\(password)\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        let device = "sim:\(model)?file=\(file)"
        let write = try await runBuiltNFCTool(["write", "--device", device, "--text", text])
        #expect(write.status == 0, "\(write.output)")
        return (directory, file, device, passwordFile)
    }

    static func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    /// ``setUp(_:text:password:)`` for `chip`, then protected as the case says.
    static func protected(_ chip: Case, text: String) async throws -> (directory: URL, file: String, device: String, password: String) {
        let prepared = try await setUp(chip.model, text: text, password: chip.password)
        let protect = try await runBuiltNFCTool(["protect", "--device", prepared.device, "--password-file", prepared.password] + chip.protect)
        #expect(protect.status == 0, "\(protect.output)")
        return prepared
    }

    @Test("a message reaching password-protected blocks exits 9 naming the first protected block, the tag file byte-identical and the old message still read; a message below them is written", arguments: cases)
    func writeOverProtectedBlocks(_ chip: Case) async throws {
        let (directory, file, device, _) = try await Self.protected(chip, text: "old message")
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try Self.bytes(file)

        // 131 bytes of NDEF from byte 6: past block 32, within a SLIX-S's 150 bytes.
        let long = String(repeating: "too long for the open blocks ", count: 4) + "and more"
        let refused = try await runBuiltNFCTool(["write", "--device", device, "--text", long])
        #expect(refused.status == 9, "\(refused.output)")
        #expect(refused.standardError.contains("block \(chip.firstProtected) needs a password"), "\(refused.standardError)")
        #expect(refused.standardError.contains("nothing was written"), "\(refused.standardError)")
        #expect(try Self.bytes(file) == before, "the refused write changed the tag file")
        let read = try await runBuiltNFCTool(["read", "--device", device])
        #expect(read.status == 0 && read.standardOutput.contains("old message"), "\(read.output)")

        let json = try await runBuiltNFCTool(["write", "--device", device, "--text", long, "--json"])
        #expect(json.status == 9 && json.standardOutput.contains("\"passwordRequired\""), "\(json.output)")
        #expect(try Self.bytes(file) == before)

        let short = try await runBuiltNFCTool(["write", "--device", device, "--text", "fits low"])
        #expect(short.status == 0, "\(short.output)")
        let again = try await runBuiltNFCTool(["read", "--device", device])
        #expect(again.status == 0 && again.standardOutput.contains("fits low"), "\(again.output)")
    }

    @Test("lock and write --lock on a partly password-protected tag exit 9 naming the first protected block, with the tag file byte-identical (no CC write access changed, no block locked: never a half-done lock); after unprotect the lock goes through", arguments: cases)
    func lockOverProtectedBlocks(_ chip: Case) async throws {
        let (directory, file, device, password) = try await Self.protected(chip, text: "keep me writable")
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try Self.bytes(file)
        let lock = try await runBuiltNFCTool(["lock", "--device", device, "--yes"])
        #expect(lock.status == 9, "\(lock.output)")
        #expect(lock.standardError.contains("block \(chip.firstProtected) needs a password to be locked"), "\(lock.standardError)")
        #expect(try Self.bytes(file) == before, "the refused lock changed the tag file")
        let writeLock = try await runBuiltNFCTool(["write", "--device", device, "--text", "new", "--lock", "--yes"])
        #expect(writeLock.status == 9, "\(writeLock.output)")
        #expect(writeLock.standardError.components(separatedBy: "nothing was written").count == 2, "\(writeLock.standardError)")
        #expect(try Self.bytes(file) == before, "the refused write --lock changed the tag file")
        let read = try await runBuiltNFCTool(["read", "--device", device, "--json"])
        #expect(read.standardOutput.contains("keep me writable") && !read.standardOutput.contains("readOnly"), "\(read.output)")

        let unprotect = try await runBuiltNFCTool(["unprotect", "--device", device, "--password-file", password] + chip.unprotect)
        #expect(unprotect.status == 0, "\(unprotect.output)")
        let locked = try await runBuiltNFCTool(["lock", "--device", device, "--yes"])
        #expect(locked.status == 0, "\(locked.output)")
    }

    @Test("format --force and erase on a tag protected from block 0 exit 9 with the tag file byte-identical", arguments: ["icode-slix-s", "st25tv02k"])
    func formatAndEraseRefused(model: String) async throws {
        let (directory, file, device, password) = try await Self.setUp(model, text: "keep me", password: "C0FFEE42")
        defer { try? FileManager.default.removeItem(at: directory) }
        let protect = try await runBuiltNFCTool(["protect", "--device", device, "--password-file", password])
        #expect(protect.status == 0, "\(protect.output)")
        let before = try Self.bytes(file)
        for command in [["format", "--force", "--yes"], ["erase"]] {
            let run = try await runBuiltNFCTool(command + ["--device", device])
            #expect(run.status == 9, "\(command): \(run.output)")
            #expect(try Self.bytes(file) == before, "\(command) changed the tag file")
        }
        let read = try await runBuiltNFCTool(["read", "--device", device])
        #expect(read.status == 0 && read.standardOutput.contains("keep me"), "\(read.output)")
    }

    @Test("SLIX-S read-protected from block 8: a short message in blocks 1–5 is read (the read-ahead's refusal falls back); a message reaching the protected blocks exits 9 (passwordRequired)")
    func readBelowReadProtection() async throws {
        let (directory, _, device, password) = try await Self.setUp("icode-slix-s", text: "short", password: "C0FFEE42")
        defer { try? FileManager.default.removeItem(at: directory) }
        let protect = try await runBuiltNFCTool(["protect", "--device", device, "--password-file", password, "--from-block", "8", "--read-protect"])
        #expect(protect.status == 0, "\(protect.output)")
        let read = try await runBuiltNFCTool(["read", "--device", device])
        #expect(read.status == 0 && read.standardOutput.contains("short"), "\(read.output)")

        let (other, _, longDevice, otherPassword) = try await Self.setUp(
            "icode-slix-s", text: String(repeating: "reaches block 8 ", count: 4), password: "C0FFEE42")
        defer { try? FileManager.default.removeItem(at: other) }
        let guarded = try await runBuiltNFCTool(["protect", "--device", longDevice, "--password-file", otherPassword, "--from-block", "8", "--read-protect"])
        #expect(guarded.status == 0, "\(guarded.output)")
        let refused = try await runBuiltNFCTool(["read", "--device", longDevice, "--json"])
        #expect(refused.status == 9 && refused.standardOutput.contains("\"passwordRequired\""), "\(refused.output)")
        #expect(refused.standardOutput.contains("read-protected"), "\(refused.output)")
    }

    @Test("SLIX-S protect --from-block 5 reports block 4 (its page) in text and --json, and a fresh info agrees")
    func slixSPageAligned() async throws {
        let (directory, _, device, password) = try await Self.setUp("icode-slix-s", text: "page", password: "C0FFEE42")
        defer { try? FileManager.default.removeItem(at: directory) }
        let protect = try await runBuiltNFCTool(["protect", "--device", device, "--password-file", password, "--from-block", "5"])
        #expect(protect.status == 0 && protect.standardOutput.contains("blocks 4 on need the password"), "\(protect.output)")
        #expect(protect.standardOutput.contains("rounded down"), "\(protect.output)")
        let json = try await runBuiltNFCTool(
            ["protect", "--device", device, "--password-file", password, "--current-password-file", password, "--from-block", "5", "--json"])
        #expect(json.status == 0, "\(json.output)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        #expect(object["firstProtectedBlock"] as? Int == 4, "\(json.standardOutput)")
        let info = try await runBuiltNFCTool(["info", "--device", device])
        #expect(info.status == 0 && info.standardOutput.contains("write-protected: blocks 4–39"), "\(info.output)")
    }

    @Test("unprotect with a malformed password file names the chip's own format and exits 64", arguments: [
        ("icode-slix-s", "READ:WRITE"), ("st25dv04k", "16 hex digits"), ("st25tv02k", "8 hex digits with two areas"),
    ])
    func malformedPasswordFile(model: String, format: String) async throws {
        let (directory, file, device, password) = try await Self.setUp(model, text: "any", password: "not hex")
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try Self.bytes(file)
        let run = try await runBuiltNFCTool(["unprotect", "--device", device, "--password-file", password])
        #expect(run.status == 64 && run.standardError.contains(format) && !run.standardError.contains("PACK"), "\(run.output)")
        #expect(try Self.bytes(file) == before)
    }
}
