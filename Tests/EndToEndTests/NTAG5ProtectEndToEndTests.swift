import Foundation
import NFCTestSupport
import Testing

/// `nfctool protect`/`unprotect`/`info` on the NTAG 5 chips in fresh processes on the
/// simulator's tag files, passwords from files. The files are judged by a reader written here
/// from the tag-file layout (docs/simulator.md: memory then a lock byte per block; the ICODE
/// security attributes `icodePasswords` and `icodeProtection`, whose bytes 3 and 4 are the
/// protection pointer and condition) and by ``T5TJudge`` for the message, not by NFCTags.
@Suite("NTAG 5 protect and unprotect in fresh nfctool processes", .tags(.endToEnd), .serialized, .timeLimit(.minutes(4)))
struct NTAG5ProtectEndToEndTests {
    /// What the test reads from a tag file.
    struct TagFile {
        var raw: Data
        var attributes: [String: String]
        var text: String?

        init(path: String, blocks: Int) throws {
            raw = try Data(contentsOf: URL(fileURLWithPath: path))
            let json = try #require(try JSONSerialization.jsonObject(with: raw) as? [String: Any])
            attributes = json["attributes"] as? [String: String] ?? [:]
            text = try T5TJudge.TagFile(path: path, blocks: blocks).judged?.text
        }

        /// Protection pointer and condition (bytes 3 and 4 of `icodeProtection`); the factory
        /// `FF 00` when the attribute is absent.
        var pointerAndCondition: [UInt8] {
            guard let text = attributes["icodeProtection"] else { return [0xFF, 0x00] }
            return Array(NFCTestSupport.hex(text).dropFirst(3).prefix(2))
        }

        /// `id=value` pairs of `icodePasswords`.
        var passwords: [String: String] {
            Dictionary(uniqueKeysWithValues: (attributes["icodePasswords"] ?? "").split(separator: ",").compactMap { item in
                let pair = item.split(separator: "=")
                return pair.count == 2 ? (String(pair[0]), String(pair[1])) : nil
            })
        }
    }

    @Test("protect --read-protect --password-file: --plan lists every step without the password, info shows the read and write protection, a write is refused, a wrong password exits 9 with the file unchanged, unprotect opens it", arguments: [("ntag5-link", 512), ("ntag5", 128)])
    func protectRoundTrip(model: String, blocks: Int) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("\(model).json").path
        let passwords = directory.appendingPathComponent("ntag5.pwd").path
        let wrong = directory.appendingPathComponent("wrong.pwd").path
        try "0A0B0C0D:01020304\n".write(toFile: passwords, atomically: true, encoding: .utf8)
        try "0A0B0C0D:99999999".write(toFile: wrong, atomically: true, encoding: .utf8)
        let device = "sim:\(model)?file=\(file)"
        let write = try await runBuiltNFCTool(["write", "--device", device, "--text", "NTAG 5 guarded"])
        #expect(write.status == 0, "\(write.output)")

        let plan = try await runBuiltNFCTool(["protect", "--device", device, "--password-file", passwords, "--read-protect", "--plan"])
        #expect(plan.status == 0, "\(plan.output)")
        for step in ["SET PASSWORD", "WRITE PASSWORD", "PROTECT PAGE"] { #expect(plan.output.contains(step), "\(step): \(plan.output)") }
        #expect(!plan.output.contains("0A0B0C0D") && !plan.output.contains("01020304"), "no password in the plan")
        #expect(try TagFile(path: file, blocks: blocks).pointerAndCondition == [0xFF, 0x00], "--plan sends nothing that changes the chip")

        let protect = try await runBuiltNFCTool(["protect", "--device", device, "--password-file", passwords, "--read-protect"])
        #expect(protect.status == 0, "\(protect.output)")
        #expect(!protect.output.contains("0A0B0C0D") && !protect.output.contains("01020304"))
        let protected = try TagFile(path: file, blocks: blocks)
        #expect(protected.pointerAndCondition == [0x00, 0x30], "pointer 00, high part read and write protected")
        #expect(protected.passwords["01"] == "0A0B0C0D" && protected.passwords["02"] == "01020304", "\(protected.passwords)")
        #expect(protected.text == "NTAG 5 guarded")

        let info = try await runBuiltNFCTool(["info", "--device", device])
        #expect(info.output.contains("read-protected: blocks 0–\(blocks - 1)"), "\(info.output)")
        let refused = try await runBuiltNFCTool(["write", "--device", device, "--text", "not without the password"])
        #expect(refused.status != 0, "\(refused.output)")
        #expect(try TagFile(path: file, blocks: blocks).raw == protected.raw, "a refused write changes nothing")

        let wrongRun = try await runBuiltNFCTool(["unprotect", "--device", device, "--password-file", wrong, "--timeout", "1"])
        #expect(wrongRun.status == 9, "\(wrongRun.output)")
        #expect(try TagFile(path: file, blocks: blocks).raw == protected.raw, "a wrong password changes nothing")

        let unprotect = try await runBuiltNFCTool(["unprotect", "--device", device, "--password-file", passwords])
        #expect(unprotect.status == 0, "\(unprotect.output)")
        let open = try TagFile(path: file, blocks: blocks)
        #expect(open.pointerAndCondition == [0x00, 0x00], "\(open.attributes)")
        #expect(open.passwords.values.allSatisfy { $0 == "00000000" }, "\(open.passwords)")
        let read = try await runBuiltNFCTool(["read", "--device", device])
        #expect(read.output.contains("NTAG 5 guarded"), "\(read.output)")
        let again = try await runBuiltNFCTool(["write", "--device", device, "--text", "open again"])
        #expect(again.status == 0, "\(again.output)")
    }

    @Test("--lock-password on an NTAG 5 asks for --yes (exit 64, the file unchanged); with --yes the passwords are locked (mask 03)")
    func irreversibleNeedsYes() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("boost.json").path
        let passwords = directory.appendingPathComponent("ntag5.pwd").path
        try "0A0B0C0D:01020304".write(toFile: passwords, atomically: true, encoding: .utf8)
        let device = "sim:ntag5-boost?file=\(file)"
        let write = try await runBuiltNFCTool(["write", "--device", device, "--text", "boost"])
        #expect(write.status == 0, "\(write.output)")
        let before = try TagFile(path: file, blocks: 512)
        let asked = try await runBuiltNFCTool(["protect", "--device", device, "--password-file", passwords, "--lock-password"])
        #expect(asked.status == 64, "\(asked.output)")
        #expect(try TagFile(path: file, blocks: 512).raw == before.raw)
        let done = try await runBuiltNFCTool(["protect", "--device", device, "--password-file", passwords, "--from-block", "8", "--lock-password", "--yes"])
        #expect(done.status == 0, "\(done.output)")
        let after = try TagFile(path: file, blocks: 512)
        let protection = NFCTestSupport.hex(try #require(after.attributes["icodeProtection"]))
        // Locked-password mask 02 (write; reads not protected), privacy 0, 64-bit 0, pointer 08, condition 20.
        #expect(Array(protection.prefix(5)) == [0x02, 0x00, 0x00, 0x08, 0x20], "\(protection)")
    }
}
