import Foundation
import NDEF
import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

/// MIFARE Ultralight AES through real libnfc (`pn532_uart`) and the PN532 emulator, each step a
/// fresh nfctool process: `info` names the chip, `protect --keys` writes the DataProtKey pages
/// byte-reversed (judged by reading the tag file's bytes here), a read-protected tag refuses a
/// read without the key and with a wrong one (exit 9, pages unchanged), reads and writes with it,
/// and `unprotect` opens it again; a recorded trace holds no key byte.
@Suite("MIFARE Ultralight AES through real libnfc and the PN532 emulator", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(10)))
struct UltralightAESThroughLibNFCTests {
    static let keyHex = KeyedUltralightThroughLibNFC.keyHex

    static func nfctool(_ arguments: [String], _ emulator: EmulatorProcess) async throws -> ToolRun {
        try await KeyedUltralightThroughLibNFC.nfctool(arguments, emulator)
    }

    static func tagFile(_ directory: URL, message: NDEFMessage) throws -> String {
        let tag = UltralightAESTag(uid: [0x04, 0x41, 0x45, 0x53, 0x00, 0x00, 0x02])
        #expect(tag.setNDEFMessage(try message.encodedForTag()))
        let path = directory.appendingPathComponent("ulaes.json").path
        try TagFile(path: path).save(tag.tagState)
        return path
    }

    /// The 60 pages of the tag file (the failure count after them left out).
    static func pages(_ path: String) throws -> [UInt8] { Array(try Hex.decode(try TagFile(path: path).load().memory).prefix(240)) }

    @Test("info, protect --keys, read and write with the key, wrong key refused, unprotect: each a fresh nfctool")
    func protectReadWriteUnprotect() async throws {
        let run = try await KeyedUltralightThroughLibNFC(
            model: "ultralight-aes", url: "https://example.com/aes", keyComment: "Ultralight AES DataProtKey", makeTagFile: Self.tagFile)
        defer { run.emulator.stop(); try? FileManager.default.removeItem(at: run.directory) }
        let (dir, file, keyFile, wrongFile, emulator) = (run.directory, run.tagFile, run.keyFile, run.wrongKeyFile, run.emulator)
        try await run.infoAndPlan(modelName: "MIFARE Ultralight AES (MF0AES20)", cipher: "AES", keyPageBytes: "FF EE DD CC") {
            try Self.pages(file)[0x29 * 4 + 3] == 0x3C
        }

        let trace = dir.appendingPathComponent("protect.jsonl").path
        let protect = try await Self.nfctool(["protect", "--keys", keyFile.path, "--read-protect", "--trace", trace], emulator)
        #expect(protect.status == 0, "\(protect.output)")
        #expect(!protect.output.contains(Self.keyHex))
        let pages = try Self.pages(file)
        #expect(Array(pages[0x30 * 4..<0x34 * 4]) == (try Hex.decode("FFEEDDCCBBAA99887766554433221100")))
        #expect(pages[0x29 * 4 + 3] == 0x04 && pages[0x2A * 4] & 0x80 == 0x80)
        let grep = try await runTool("/usr/bin/grep", ["-ciE", "00112233|44556677|8899AABB|CCDDEEFF|FFEEDDCC|BBAA9988|77665544|33221100", trace], environment: [:])
        #expect(grep.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "the trace holds key bytes")

        let noKey = try await Self.nfctool(["read"], emulator)
        #expect(noKey.status == 9, "\(noKey.output)")
        let writeNoKey = try await Self.nfctool(["write", "--url", "https://example.com/x"], emulator)
        #expect(writeNoKey.status == 9, "\(writeNoKey.output)")
        #expect(writeNoKey.output.contains("--keys"), "\(writeNoKey.output)")
        let wrong = try await Self.nfctool(["write", "--url", "https://example.com/x", "--keys", wrongFile.path], emulator)
        #expect(wrong.status == 9, "\(wrong.output)")
        #expect(try Self.pages(file) == pages, "a wrong key changed the tag")

        let write = try await Self.nfctool(["write", "--url", "https://example.org/new", "--keys", keyFile.path], emulator)
        #expect(write.status == 0, "\(write.output)")
        let read = try await Self.nfctool(["read", "--keys", keyFile.path], emulator)
        #expect(read.status == 0, "\(read.output)")
        #expect(read.output.contains("https://example.org/new"), "\(read.output)")

        let unprotect = try await Self.nfctool(["unprotect", "--keys", keyFile.path], emulator)
        #expect(unprotect.status == 0, "\(unprotect.output)")
        let open = try await Self.nfctool(["read"], emulator)
        #expect(open.status == 0, "\(open.output)")
        let after = try Self.pages(file)
        #expect(after[0x29 * 4 + 3] == 0x3C && after[0x2A * 4] & 0x80 == 0)
        #expect(Array(after[0x30 * 4..<0x34 * 4]) == [UInt8](repeating: 0, count: 16))
    }

    @Test("lock: --plan and a refusal without --yes write nothing; lock --yes sets CC3 0F, FF FF and CFGLCK in the tag file; a long message is refused, exit 10")
    func lock() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try Self.tagFile(dir, message: NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: "https://example.com/l")]))
        let emulator = try await EmulatorProcess.start(["--tag", "ultralight-aes:\(file)"])
        defer { emulator.stop() }
        let before = try Self.pages(file)

        let plan = try await Self.nfctool(["lock", "--plan"], emulator)
        #expect(plan.status == 0, "\(plan.output)")
        let unconfirmed = try await Self.nfctool(["lock"], emulator)
        #expect(unconfirmed.status == 64, "\(unconfirmed.output)")
        #expect(try Self.pages(file) == before, "--plan or an unconfirmed lock wrote")

        let lock = try await Self.nfctool(["lock", "--yes"], emulator)
        #expect(lock.status == 0, "\(lock.output)")
        let after = try Self.pages(file)
        #expect(after[15] == 0x0F && after[10] == 0xFF && after[11] == 0xFF, "\(Hex.encode(Array(after[8..<16])))")
        #expect(after[0x2A * 4] & 0x40 == 0x40, "CFGLCK")
        #expect(Array(after[16..<(0x28 * 4)]) == Array(before[16..<(0x28 * 4)]), "the message changed")
        let write = try await Self.nfctool(["write", "--url", "https://example.com/x"], emulator)
        #expect(write.status != 0, "\(write.output)")

        let longFile = dir.appendingPathComponent("long.json").path
        let long = UltralightAESTag(uid: [0x04, 0x41, 0x45, 0x53, 0x00, 0x00, 0x03])
        #expect(long.setNDEFMessage(try NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: "https://example.com/" + String(repeating: "b", count: 60))]).encodedForTag()))
        try TagFile(path: longFile).save(long.tagState)
        let second = try await EmulatorProcess.start(["--tag", "ultralight-aes:\(longFile)"])
        defer { second.stop() }
        let longBefore = try Self.pages(longFile)
        let refused = try await Self.nfctool(["lock", "--yes"], second)
        #expect(refused.status == 10, "\(refused.output)")
        #expect(try Self.pages(longFile) == longBefore)
    }
}
