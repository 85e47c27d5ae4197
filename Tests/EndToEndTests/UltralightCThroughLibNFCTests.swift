import Foundation
import NDEF
import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

/// MIFARE Ultralight C through real libnfc (`pn532_uart`) and the PN532 emulator, each step a
/// fresh nfctool process: `info` names the chip, `protect --keys` writes the key pages as the
/// MF0ICU2 datasheet lays them out (judged in the tag file), a read-protected tag refuses a read
/// without the key and with a wrong one (exit 9, nothing written), reads and writes with it,
/// and `unprotect` opens it again. libfreefare's `mifare-ultralight-info` names the chip.
@Suite("MIFARE Ultralight C through real libnfc and the PN532 emulator", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(10)))
struct UltralightCThroughLibNFCTests {
    static let keyHex = KeyedUltralightThroughLibNFC.keyHex

    static func nfctool(_ arguments: [String], _ emulator: EmulatorProcess) async throws -> ToolRun {
        try await KeyedUltralightThroughLibNFC.nfctool(arguments, emulator)
    }

    /// A tag file holding a factory Ultralight C, NDEF formatted with `message` (as a vendor
    /// delivers it).
    static func tagFile(_ directory: URL, message: NDEFMessage) throws -> String {
        let tag = UltralightCTag(uid: [0x04, 0x53, 0x49, 0x4D, 0x00, 0x00, 0x01])
        #expect(tag.setNDEFMessage(try message.encodedForTag()))
        let path = directory.appendingPathComponent("ulc.json").path
        try TagFile(path: path).save(tag.tagState)
        return path
    }

    static func memory(_ path: String) throws -> [UInt8] { try Hex.decode(try TagFile(path: path).load().memory) }

    @Test("info, protect --keys, read and write with the key, wrong key refused, unprotect: each a fresh nfctool")
    func protectReadWriteUnprotect() async throws {
        let run = try await KeyedUltralightThroughLibNFC(
            model: "ultralight-c", url: "https://example.com/ulc", keyComment: "Ultralight C key", makeTagFile: Self.tagFile)
        defer { run.emulator.stop(); try? FileManager.default.removeItem(at: run.directory) }
        let (file, keyFile, wrongFile, emulator) = (run.tagFile, run.keyFile, run.wrongKeyFile, run.emulator)
        try await run.infoAndPlan(modelName: "MIFARE Ultralight C", cipher: "3DES", keyPageBytes: "77 66 55 44") {
            try Self.memory(file)[0x2A * 4] == 0x30
        }

        let protect = try await Self.nfctool(["protect", "--keys", keyFile.path, "--read-protect"], emulator)
        #expect(protect.status == 0, "\(protect.output)")
        #expect(!protect.output.contains(Self.keyHex) && !protect.output.contains("7766554433221100"))
        let memory = try Self.memory(file)
        #expect(Array(memory[0x2C * 4..<0x30 * 4]) == (try Hex.decode("7766554433221100FFEEDDCCBBAA9988")))
        #expect(memory[0x2A * 4] == 0x04 && memory[0x2B * 4] == 0x00)

        let noKey = try await Self.nfctool(["read"], emulator)
        #expect(noKey.status == 9, "\(noKey.output)")
        let writeNoKey = try await Self.nfctool(["write", "--url", "https://example.com/x"], emulator)
        #expect(writeNoKey.status == 9, "\(writeNoKey.output)")
        #expect(writeNoKey.output.contains("--keys"), "\(writeNoKey.output)")
        let wrong = try await Self.nfctool(["write", "--url", "https://example.com/x", "--keys", wrongFile.path], emulator)
        #expect(wrong.status == 9, "\(wrong.output)")
        #expect(!wrong.output.contains("5A5A5A5A"))
        #expect(try Self.memory(file) == memory, "a wrong key changed the tag")

        let write = try await Self.nfctool(["write", "--url", "https://example.org/new", "--keys", keyFile.path], emulator)
        #expect(write.status == 0, "\(write.output)")
        let read = try await Self.nfctool(["read", "--keys", keyFile.path], emulator)
        #expect(read.status == 0, "\(read.output)")
        #expect(read.output.contains("https://example.org/new"), "\(read.output)")

        let unprotect = try await Self.nfctool(["unprotect", "--keys", keyFile.path], emulator)
        #expect(unprotect.status == 0, "\(unprotect.output)")
        let open = try await Self.nfctool(["read"], emulator)
        #expect(open.status == 0, "\(open.output)")
        let after = try Self.memory(file)
        #expect(after[0x2A * 4] == 0x30)
        #expect(Array(after[0x2C * 4..<0x30 * 4]) == Array("BREAKMEIFYOUCAN!".utf8))
    }

    @Test("a protect --keys trace recorded through libnfc holds no key byte and no AUTHENTICATE cryptogram (grep)")
    func protectTraceIsRedacted() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let keyFile = dir.appendingPathComponent("ulc.key")
        try "\(Self.keyHex)\n".write(to: keyFile, atomically: true, encoding: .utf8)
        let trace = dir.appendingPathComponent("protect.jsonl").path
        let emulator = try await EmulatorProcess.start(["--tag", "ultralight-c:\(dir.appendingPathComponent("ulc.json").path)"])
        defer { emulator.stop() }
        let protect = try await Self.nfctool(["protect", "--keys", keyFile.path, "--trace", trace], emulator)
        #expect(protect.status == 0, "\(protect.output)")
        let grep = try await runTool("/usr/bin/grep", ["-ciE", "0011223344556677|8899AABBCCDDEEFF|77665544|33221100|FFEEDDCC|BBAA9988", trace], environment: [:])
        #expect(grep.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        let text = try String(contentsOfFile: trace, encoding: .utf8)
        #expect(text.contains("\"command\":\"1A00\",\"answer\":\"AF****************\""))
        #expect(text.contains("\"command\":\"AF********************************\",\"answer\":\"00****************\""))
        #expect(text.contains("\"command\":\"A22C********\""))
    }

    @Test("format, write and lock a blank Ultralight C, each a fresh nfctool: the tag file holds the CC, the TLV and the lock bytes; a later write is refused")
    func formatWriteLock() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("blank.json").path
        try TagFile(path: file).save(UltralightCTag(uid: [0x04, 0x53, 0x49, 0x4D, 0x00, 0x00, 0x03]).tagState)
        let emulator = try await EmulatorProcess.start(["--tag", "ultralight-c:\(file)"])
        defer { emulator.stop() }
        let format = try await Self.nfctool(["format", "--yes"], emulator)
        #expect(format.status == 0, "\(format.output)")
        var memory = try Self.memory(file)
        #expect(Array(memory[12..<16]) == [0xE1, 0x10, 0x12, 0x00])
        #expect(Array(memory[16..<19]) == [0x03, 0x00, 0xFE])
        let write = try await Self.nfctool(["write", "--url", "https://example.com/ulc-lock"], emulator)
        #expect(write.status == 0, "\(write.output)")
        let lock = try await Self.nfctool(["lock", "--yes"], emulator)
        #expect(lock.status == 0, "\(lock.output)")
        memory = try Self.memory(file)
        #expect(memory[15] == 0x0F && memory[10] == 0xFF && memory[11] == 0xFF)
        #expect(memory[0x28 * 4] == 0xFF && memory[0x28 * 4 + 1] == 0x00)
        let read = try await Self.nfctool(["read"], emulator)
        #expect(read.output.contains("https://example.com/ulc-lock"), "\(read.output)")
        let again = try await Self.nfctool(["write", "--url", "https://example.com/other"], emulator)
        #expect(again.status != 0, "\(again.output)")
        #expect(try Self.memory(file) == memory, "a locked tag changed")
    }

    @Test("libfreefare's mifare-ultralight-info names the virtual Ultralight C", ExternalTool.mifareUltralightInfo.trait)
    func libfreefareNamesIt() async throws {
        let tool = try ExternalTool.mifareUltralightInfo.require()
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let emulator = try await EmulatorProcess.start(["--tag", "ultralight-c:\(dir.appendingPathComponent("ulc.json").path)"])
        defer { emulator.stop() }
        let run = try await runTool(tool, [], against: emulator, timeout: 20)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.lowercased().contains("ultralightc") || run.output.lowercased().contains("ultralight c"), "\(run.output)")
    }
}
