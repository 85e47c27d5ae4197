import Foundation
import NFCCore
import NFCTestSupport
import Testing
import VirtualTags

/// A `write` on an NTAG213/215/216 whose dynamic lock bits lock some of the pages from 16 on, in
/// a fresh nfctool process on a tag file this test prepares (seeded by another nfctool process,
/// then one dynamic lock bit set in the file's memory): a message whose pages end below the
/// locked group is written; one reaching a locked page is refused with exit 5 (read-only), the
/// message naming the page, and the tag file left byte for byte as it was. Before the fix the
/// length page was zeroed and the pages below the group written, then the first locked page
/// answered NAK: exit 1 and a half-written tag with the old message lost.
/// Dynamic lock bit n is bit n mod 8 of byte n / 8 of the dynamic lock page and locks pages
/// 16 + n·k onwards, k = 2 on NTAG213, 16 on NTAG215/216 (NTAG213/215/216 data sheet 8.5.3).
@Suite("NTAG21x write against the dynamic lock bits: fits below the locked pages, or refused with nothing written", .tags(.endToEnd), .timeLimit(.minutes(5)))
struct NTAGDynamicLockWriteTests {
    /// One chip, the lock byte 0 value set in its tag file, a text and how `write --text` must end.
    struct Case: Sendable, CustomTestStringConvertible {
        let chip: String
        let lockPage: Int
        let lockByte0: UInt8
        let textLength: Int
        let status: Int32
        /// The locked page the refusal must name (status 5).
        let namedPage: Int
        var testDescription: String { "\(chip), lock byte 0 \(Hex.encode([lockByte0])), \(textLength)-character text: exit \(status)" }
    }

    static let cases: [Case] = [
        // NTAG215 (page 82h), bit 0: pages 16–31. The reported defect: 200 characters, refused at page 16.
        Case(chip: "ntag215", lockPage: 0x82, lockByte0: 0x01, textLength: 200, status: 5, namedPage: 16),
        // Bit 1: pages 32–47. 60 characters end at page 21 (one READ of the lock page, then written);
        // 200 characters reach page 32.
        Case(chip: "ntag215", lockPage: 0x82, lockByte0: 0x02, textLength: 60, status: 0, namedPage: 0),
        Case(chip: "ntag215", lockPage: 0x82, lockByte0: 0x02, textLength: 200, status: 5, namedPage: 32),
        // NTAG216 (page E2h): the same groups of 16 pages.
        Case(chip: "ntag216", lockPage: 0xE2, lockByte0: 0x02, textLength: 60, status: 0, namedPage: 0),
        Case(chip: "ntag216", lockPage: 0xE2, lockByte0: 0x02, textLength: 200, status: 5, namedPage: 32),
        // NTAG213 (page 28h), bit 2: pages 20–21 (2 pages a bit). 40 characters end at page 17;
        // 100 reach page 20.
        Case(chip: "ntag213", lockPage: 0x28, lockByte0: 0x04, textLength: 40, status: 0, namedPage: 0),
        Case(chip: "ntag213", lockPage: 0x28, lockByte0: 0x04, textLength: 100, status: 5, namedPage: 20),
    ]

    @Test("write on an NTAG21x with a dynamic lock bit set: below the locked pages written, reaching them refused (exit 5, page named) with the tag file unchanged",
          arguments: cases)
    func writeAgainstDynamicLockBits(_ testCase: Case) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("tag.json")
        let device = "sim:\(testCase.chip)?file=\(file.path)&leave-after=\(HostileTagTests.commandBound)&poll-wait=0"
        let seed = try await runBuiltNFCTool(["write", "--text", "old message", "--device", device, "--timeout", "2"], timeout: 60)
        try #require(seed.status == 0, "\(seed.output)")
        // Set the dynamic lock bit in the tag file's memory, then let TagFile write it its own way.
        var json = try HostileTagTests.state(file)
        var memory = HostileTagTests.memory(json)
        let lockAddress = testCase.lockPage * 4
        try #require(memory.count > lockAddress + 3)
        memory[lockAddress] |= testCase.lockByte0
        json["memory"] = Hex.encode(memory, uppercase: (json["memory"] as? String)?.contains(where: \.isUppercase) ?? false)
        try JSONSerialization.data(withJSONObject: json).write(to: file)
        try TagFile(path: file.path).save(try TagFile(path: file.path).load())
        let before = try Data(contentsOf: file)

        let text = String(repeating: "a", count: testCase.textLength)
        let run = try await runBuiltNFCTool(["write", "--text", text, "--device", device, "--timeout", "2"], timeout: 60)
        #expect(!run.timedOut)
        #expect(run.status == testCase.status, "\(run.output)")
        let after = HostileTagTests.memory(try HostileTagTests.state(file))
        if testCase.status == 0 {
            // The tag file holds the new text in user memory, and the lock byte as it was.
            let user = Array(after[16..<lockAddress])
            let bytes = Array(text.utf8)
            #expect(user.indices.contains { start in start + bytes.count <= user.count && Array(user[start..<(start + bytes.count)]) == bytes },
                    "the text is not in the tag file")
            #expect(after[lockAddress] == memory[lockAddress])
        } else {
            #expect(try Data(contentsOf: file) == before, "the refused write changed the tag file")
            #expect(run.standardError.contains("page \(testCase.namedPage) is locked by the dynamic lock bits"), "\(run.output)")
        }
    }
}
