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
        tagFile = try TagFile(path: file)
        #expect(tagFile.registers == [0x00, 0x07, 0x06, 0x0B, 0x00, 0x0F, 0x00])
        #expect(tagFile.passwords == [bytes, zero, bytes, zero], "password 3 back to zeros, 0 kept while area 2 is protected")
    }
}
