import Foundation
import NFCTestSupport
import Testing

/// `nfctool read` on a Type 2 tag whose capability container refuses read access (CC3 upper
/// nibble not 0, NFC Forum Type 2 Tag 1.2, 5.4): exit 4 as for any tag without NDEF, but the
/// message says why — CC3 and its byte — instead of "not formatted for NDEF".
@Suite("read on a Type 2 tag whose CC refuses read access", .tags(.endToEnd), .timeLimit(.minutes(2)))
struct Type2ReadAccessRefusedTests {
    @Test("CC3 = F0: exit 4, the message names CC3's read access and its byte (15), not \"not formatted\"")
    func ccRefusesRead() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("ntag213.json").path
        // An NTAG213 whose CC (page 3) is E1 10 12 F0, then an NDEF TLV holding an empty record.
        var memory = [UInt8](repeating: 0, count: 180)
        memory.replaceSubrange(0..<16, with: [0x04, 0x53, 0x49, 0x96, 0x4D, 0x00, 0x00, 0x01, 0x4C, 0x48, 0x00, 0x00, 0xE1, 0x10, 0x12, 0xF0])
        memory.replaceSubrange(16..<22, with: [0x03, 0x03, 0xD0, 0x00, 0x00, 0xFE])
        // Pages 40–44: dynamic lock bytes, CFG0 (AUTH0 FF: no password), CFG1, PWD, PACK.
        memory.replaceSubrange(160..<180, with: [0x00, 0x00, 0x00, 0xBD, 0x04, 0x00, 0x00, 0xFF, 0x00, 0x05, 0x00, 0x00,
                                                 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00])
        let json = """
            {"authenticationFailures": 0, "counters": [0], "memory": "\(memory.map { String(format: "%02x", $0) }.joined())", "model": "ntag213", "uid": "0453494d000001"}
            """
        try json.write(toFile: file, atomically: true, encoding: .utf8)
        let read = try await runBuiltNFCTool(["read", "--device", "sim:ntag213?file=\(file)"])
        #expect(read.status == 4, "\(read.output)")
        #expect(read.output.contains("CC3") && read.output.contains("read access"), "\(read.output)")
        #expect(!read.output.contains("not formatted"), "\(read.output)")
    }
}
