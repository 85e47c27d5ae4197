import Foundation
import NFCCore
import NFCTestSupport
import Testing
import VirtualTags

/// A `write` on a MIFARE Ultralight C (MF0ICU2) whose lock byte 2 (page 28h byte 0) locks some
/// of pages 10h–27h, in a fresh nfctool process on a tag file this test prepares: a message whose
/// pages lie below the locked group is written; one reaching a locked page is refused with exit 5
/// (read-only) and the tag file left byte for byte as it was (before the fix, pages below the
/// locked group were written, the first locked page refused: exit 9 and a half-written tag).
/// Lock byte 2's bits as Proxmark3's `client/src/cmdhfmfu.c` reads them (bits 1, 2, 3, 5, 6, 7:
/// the 4-page groups 10h–13h … 24h–27h; bits 0 and 4 block-locking bits).
@Suite("Ultralight C write against lock byte 2: fits below the locked pages, or refused with nothing written", .tags(.endToEnd), .timeLimit(.minutes(3)))
struct UltralightCLockByte2WriteTests {
    /// One lock byte 2 value, a URL and the status `write --url` must end with.
    struct Case: Sendable, CustomTestStringConvertible {
        let lockByte2: UInt8
        let url: String
        let status: Int32
        var testDescription: String { "lock byte 2 \(Hex.encode([lockByte2])), \(url.count)-character URL: exit \(status)" }
    }

    /// A 95-byte message: the NDEF TLV and its Terminator run from page 04h through page 1Ch.
    static let long = "https://x.example/" + String(repeating: "a", count: 80)
    /// A 124-byte message: through page 23h.
    static let longer = "https://x.example/" + String(repeating: "b", count: 109)

    /// Lock byte 2: page 28h byte 0 (MF0ICU2 7.5.3).
    static let lockByte2Address = 0x28 * 4

    static let cases: [Case] = [
        // Bit 1: pages 10h–13h. A short message (pages 04h–08h) is written; the 95-byte one is not.
        Case(lockByte2: 0x02, url: "https://x.example", status: 0),
        Case(lockByte2: 0x02, url: long, status: 5),
        // Bit 6: pages 20h–23h. The 95-byte message ends at page 1Ch; the 124-byte one reaches 20h.
        Case(lockByte2: 0x40, url: long, status: 0),
        Case(lockByte2: 0x40, url: longer, status: 5),
        // Bit 7: pages 24h–27h only, with both block-locking bits (0, 4): the 124-byte message is written.
        Case(lockByte2: 0x91, url: longer, status: 0),
        // The block-locking bits alone lock no page.
        Case(lockByte2: 0x11, url: longer, status: 0),
    ]

    @Test("write on an Ultralight C with lock byte 2 set: below the locked pages written, reaching them refused (exit 5) with the tag file unchanged",
          arguments: cases)
    func writeAgainstLockByte2(_ testCase: Case) async throws {
        let state = UltralightHostileImageTests.ultralightC(
            cc: UltralightHostileImageTests.cc144, user: UltralightHostileImageTests.good,
            [Self.lockByte2Address: [testCase.lockByte2, 0x00, 0x00, 0x00]])
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("tag.json")
        try TagFile(path: file.path).save(state)
        let before = try Data(contentsOf: file)
        let device = "sim:?file=\(file.path)&leave-after=\(HostileTagTests.commandBound)&poll-wait=0"
        let run = try await runBuiltNFCTool(["write", "--url", testCase.url, "--device", device, "--timeout", "2"], timeout: 60)
        #expect(!run.timedOut)
        #expect(run.status == testCase.status, "\(run.output)")
        let after = try Data(contentsOf: file)
        let memory = HostileTagTests.memory(try HostileTagTests.state(file))
        if testCase.status == 0 {
            // The tag file holds the new message: an NDEF TLV at page 4 whose URI record carries
            // the URL's text after the "https://" prefix code.
            let text = Array(testCase.url.dropFirst("https://".count).utf8)
            let user = Array(memory[16..<160])
            #expect(user.first == 0x03)
            #expect(user.count > 1 && Int(user[1]) == 5 + text.count)
            #expect(user.count >= 7 + text.count && Array(user[7..<(7 + text.count)]) == text)
            // Lock byte 2 as it was.
            #expect(memory[Self.lockByte2Address] == testCase.lockByte2)
        } else {
            #expect(after == before, "the refused write changed the tag file")
            #expect(run.standardError.contains("lock byte 2"), "\(run.output)")
        }
    }
}

/// `read` on a MIFARE Ultralight C whose CC page is read-protected (AUTH0 03h, AUTH1 00h) in a
/// fresh nfctool process: without the key it asks for the key (exit 9) rather than saying the tag
/// holds no NDEF (exit 4, before the fix); with the factory key it reads the message; an
/// unprotected tag whose CC is blank still holds no NDEF (exit 4).
@Suite("Ultralight C with a read-protected CC page: the key is asked for, not 'no NDEF'", .tags(.endToEnd), .timeLimit(.minutes(3)))
struct UltralightCReadProtectedCCTests {
    @Test("read: AUTH0 03h + AUTH1 00h without the key exits 9, with it reads the URI; a blank open tag exits 4")
    func readProtectedCC() async throws {
        let protected = UltralightHostileImageTests.ultralightC(
            cc: UltralightHostileImageTests.cc144, user: UltralightHostileImageTests.good,
            [0x2A * 4: [0x03, 0x00, 0x00, 0x00], 0x2B * 4: [0x00, 0x00, 0x00, 0x00]])
        let blank = UltralightHostileImageTests.ultralightC(cc: [0, 0, 0, 0], user: UltralightHostileImageTests.user([]))
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyFile = directory.appendingPathComponent("factory.key")
        try "\(UltralightHostileImageTests.ultralightCFactoryKey)\n".write(to: keyFile, atomically: true, encoding: .utf8)
        for (name, state, extra, status) in [("protected", protected, [String](), Int32(9)),
                                             ("protected-key", protected, ["--keys", keyFile.path], Int32(0)),
                                             ("blank", blank, [String](), Int32(4))] {
            let file = directory.appendingPathComponent("\(name).json")
            try TagFile(path: file.path).save(state)
            let before = try Data(contentsOf: file)
            let device = "sim:?file=\(file.path)&leave-after=\(HostileTagTests.commandBound)&poll-wait=0"
            let run = try await runBuiltNFCTool(["read"] + extra + ["--device", device, "--timeout", "2"], timeout: 60)
            #expect(!run.timedOut)
            #expect(run.status == status, "\(name): \(run.output)")
            if status == 0 { #expect(run.output.contains("example.com"), "\(name): \(run.output)") }
            #expect(try Data(contentsOf: file) == before, "\(name): read changed the tag file")
        }
    }
}
