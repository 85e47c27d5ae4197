import Foundation
import NFCTestSupport
import Testing

/// `protect`/`unprotect --area` on a simulated ST25DV04K in fresh nfctool processes. The tag
/// file is read here from the image layout of docs/simulator.md (memory, a lock byte per block,
/// DSFID, AFI, flags, the 7 area registers RFA1SS ENDA1 RFA2SS ENDA2 RFA3SS ENDA3 RFA4SS, the 4
/// passwords), not by VirtualTags.
@Suite("ST25DV areas 2–4 from nfctool on the simulator", .tags(.endToEnd), .timeLimit(.minutes(3)))
struct ST25AreaCommandTests {
    struct TagFile {
        var raw: Data
        var registers: [UInt8]
        var passwords: [[UInt8]]

        init(path: String) throws {
            raw = try Data(contentsOf: URL(fileURLWithPath: path))
            let json = try #require(try JSONSerialization.jsonObject(with: raw) as? [String: Any])
            let image = NFCTestSupport.hex(try #require(json["memory"] as? String))
            try #require(image.count == 128 * 5 + 3 + 7 + 32)
            let start = 128 * 5 + 3
            registers = Array(image[start..<(start + 7)])
            passwords = (0..<4).map { Array(image[(start + 7 + $0 * 8)..<(start + 15 + $0 * 8)]) }
        }
    }

    @Test("--plan shows WRITE CONFIGURATION and WRITE PASSWORD without the password and writes nothing; area 3 cannot begin while area 2 is empty; after area 2 from block 64, --area 3 --from-block 96 protects area 3 with password 3; info shows every area on wrapped lines; a bad --from-block or --read-protect on area 1 exits 64 with nothing written; unprotect --area 3 opens it")
    func areaThree() async throws {
        let directory = try temporaryDirectory()
        let file = directory.appendingPathComponent("st25dv04k.json").path
        let password = directory.appendingPathComponent("st25.pwd").path
        try "8899AABBCCDDEEFF\n".write(toFile: password, atomically: true, encoding: .utf8)
        let device = "sim:st25dv04k?file=\(file)"
        let write = try await runBuiltNFCTool(["write", "--device", device, "--text", "in area 1"])
        #expect(write.status == 0, "\(write.output)")
        let before = try TagFile(path: file).raw

        let plan = try await runBuiltNFCTool(["protect", "--device", device, "--password-file", password, "--area", "2", "--from-block", "64", "--plan"])
        #expect(plan.status == 0 && plan.output.contains("WRITE CONFIGURATION") && plan.output.contains("WRITE PASSWORD"), "\(plan.output)")
        #expect(!plan.output.lowercased().contains("8899aabbccddeeff"), "\(plan.output)")
        #expect(try TagFile(path: file).raw == before, "--plan wrote nothing")
        for bad in [["--area", "3", "--from-block", "100"], ["--area", "1", "--read-protect"], ["--area", "5"], ["--area", "2", "--area-password", "4"]] {
            let refused = try await runBuiltNFCTool(["protect", "--device", device, "--password-file", password] + bad)
            #expect(refused.status == 64, "\(bad): \(refused.output)")
        }
        // Area 2 is empty as delivered (ENDA1 = ENDA2), so area 3 from block 96 leaves area 1 at 0–95.
        let protect = try await runBuiltNFCTool(["protect", "--device", device, "--password-file", password, "--area", "3", "--from-block", "96"])
        #expect(protect.status == 64, "area 3 cannot begin while area 2 ends at the last unit: \(protect.output)")
        #expect(try TagFile(path: file).raw == before)

        let two = try await runBuiltNFCTool(["protect", "--device", device, "--password-file", password, "--area", "2", "--from-block", "64"])
        #expect(two.status == 0, "\(two.output)")
        let three = try await runBuiltNFCTool(
            ["protect", "--device", device, "--password-file", password, "--current-password-file", password, "--area", "3", "--from-block", "96", "--read-protect"])
        #expect(three.status == 0, "\(three.output)")
        let bytes: [UInt8] = [0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF], zero = [UInt8](repeating: 0, count: 8)
        var tagFile = try TagFile(path: file)
        #expect(tagFile.registers == [0x00, 0x07, 0x06, 0x0B, 0x0B, 0x0F, 0x00])
        #expect(tagFile.passwords == [bytes, zero, bytes, bytes])
        let info = try await runBuiltNFCTool(["info", "--device", device])
        #expect(info.output.contains("area 2 (blocks 64–95): write needs password 2"), "\(info.output)")
        #expect(info.output.contains("area 3 (blocks 96–127): read and write need password 3"), "\(info.output)")
        #expect(info.output.split(separator: "\n").allSatisfy { $0.count <= 80 }, "\(info.output)")

        let unprotect = try await runBuiltNFCTool(["unprotect", "--device", device, "--password-file", password, "--area", "3"])
        #expect(unprotect.status == 0, "\(unprotect.output)")
        let sentence = unprotect.output.replacingOccurrences(of: "\n", with: " ")
        #expect(sentence.hasPrefix("Unprotected area 3 of the ST25DV04K") && sentence.contains("area 2 still needs a password to write"), "\(unprotect.output)")
        tagFile = try TagFile(path: file)
        #expect(tagFile.registers == [0x00, 0x07, 0x06, 0x0B, 0x00, 0x0F, 0x00])
        #expect(tagFile.passwords == [bytes, zero, bytes, zero], "password 3 back to zeros, 0 kept while area 2 is protected")
    }

    /// A new directory with a password file (`1234567812345678`) and a simulated ST25DV04K's
    /// tag file holding a short text, written by a fresh nfctool.
    static func writtenChip() async throws -> (directory: URL, file: String, password: String, device: String) {
        let directory = try temporaryDirectory()
        let file = directory.appendingPathComponent("st25dv04k.json").path
        let password = directory.appendingPathComponent("st25.pwd").path
        try "1234567812345678\n".write(toFile: password, atomically: true, encoding: .utf8)
        let device = "sim:st25dv04k?file=\(file)"
        #expect(try await runBuiltNFCTool(["write", "--device", device, "--text", "open"]).status == 0)
        return (directory, file, password, device)
    }

    @Test("an empty area is not reported protected: protect --area 3 (and 2, 4) without --from-block on a delivered ST25DV04K exits 64 naming the empty area, the tag file byte-identical; once area 2 holds blocks 64–127, protect --area 2 reports its first block 64 in JSON")
    func emptyArea() async throws {
        let (directory, file, password, device) = try await Self.writtenChip()
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try TagFile(path: file).raw
        for area in ["2", "3", "4"] {
            let refused = try await runBuiltNFCTool(["protect", "--device", device, "--password-file", password, "--area", area, "--yes", "--json"])
            #expect(refused.status == 64, "\(area): \(refused.output)")
            #expect(refused.output.contains("area \(area) holds no block"), "\(refused.output)")
            #expect(try TagFile(path: file).raw == before, "nothing written for area \(area)")
        }
        // A text that reaches past block 64 is still written without a password.
        let long = try await runBuiltNFCTool(["write", "--device", device, "--text", String(repeating: "a", count: 300)])
        #expect(long.status == 0, "\(long.output)")
        let moved = try await runBuiltNFCTool(["protect", "--device", device, "--password-file", password, "--area", "2", "--from-block", "64", "--yes"])
        #expect(moved.status == 0, "\(moved.output)")
        let opened = try await runBuiltNFCTool(["unprotect", "--device", device, "--password-file", password, "--area", "2"])
        #expect(opened.status == 0, "\(opened.output)")
        let again = try await runBuiltNFCTool(["protect", "--device", device, "--password-file", password, "--area", "2", "--yes", "--json"])
        #expect(again.status == 0, "\(again.output)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(again.standardOutput.utf8)) as? [String: Any])
        #expect(report["firstProtectedBlock"] as? Int == 64, "\(again.output)")
        #expect(try TagFile(path: file).registers[2] == 0x06, "RFA2SS: write needs password 2")
    }

    @Test("unprotect without --area while another area stays protected is not success: exit 9 naming the area, the tag file byte-identical and the area still guarded; with --area it is opened and the sentence names what is left")
    func otherAreaStillProtected() async throws {
        let (directory, file, password, device) = try await Self.writtenChip()
        defer { try? FileManager.default.removeItem(at: directory) }
        let protect = try await runBuiltNFCTool(["protect", "--device", device, "--password-file", password, "--area", "2", "--from-block", "64", "--yes"])
        #expect(protect.status == 0, "\(protect.output)")
        let before = try TagFile(path: file)
        let refused = try await runBuiltNFCTool(["unprotect", "--device", device, "--password-file", password, "--json"])
        #expect(refused.status == 9, "\(refused.output)")
        #expect(refused.output.replacingOccurrences(of: "\n", with: " ").contains("area 2 still needs a password to write"), "\(refused.output)")
        #expect(!refused.output.contains("no password or key is needed"), "\(refused.output)")
        #expect(try TagFile(path: file).raw == before.raw, "area 1 was open already: nothing changed")
        #expect(before.registers[2] == 0x06, "RFA2SS: write needs password 2")
        let opened = try await runBuiltNFCTool(["unprotect", "--device", device, "--password-file", password, "--area", "2", "--json"])
        #expect(opened.status == 0, "\(opened.output)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(opened.standardOutput.utf8)) as? [String: Any])
        #expect(report["protected"] as? Bool == false && report["stillProtectedAreas"] == nil, "\(opened.output)")
        #expect(try TagFile(path: file).registers[2] == 0x00)
    }
}
