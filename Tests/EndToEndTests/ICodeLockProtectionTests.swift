import Foundation
import NFCTestSupport
import Testing

/// `nfctool protect --lock-protection` (LOCK PAGE PROTECTION CONDITION, `B7`) in fresh
/// processes on the simulator's tag files. Frames are checked against the request format of
/// NXP's reader library (`phalICode_LockPageProtectionCondition`: flags, `B7`, IC manufacturer
/// code `04`, UID least significant byte first, one byte: the page number, on a SLIX2 the
/// protection pointer, as docs/tags.md says it assumes); the tag files are read here from
/// their documented layout (docs/simulator.md: `icodeProtection` = locked-password mask,
/// privacy, 64-bit, pointer, extended status, locked-condition mask low and high byte, then one
/// status per SLIX-S page), not through VirtualTags.
@Suite("protect --lock-protection in fresh nfctool processes", .tags(.endToEnd), .timeLimit(.minutes(3)))
struct ICodeLockProtectionTests {
    struct TagFile {
        var raw: Data
        var uid: [UInt8]
        var protection: [UInt8]

        init(path: String) throws {
            raw = try Data(contentsOf: URL(fileURLWithPath: path))
            let json = try #require(try JSONSerialization.jsonObject(with: raw) as? [String: Any])
            uid = NFCTestSupport.hex(try #require(json["uid"] as? String))
            let attributes = json["attributes"] as? [String: String] ?? [:]
            protection = attributes["icodeProtection"].map { NFCTestSupport.hex($0) } ?? []
        }

        /// The locked-condition mask (bytes 5 and 6): SLIX-S page n is bit n; SLIX2 bits 0 low, 1 high page.
        var lockedConditions: UInt16 { protection.count >= 7 ? UInt16(protection[5]) | UInt16(protection[6]) << 8 : 0 }
    }

    static func setUp(_ model: String, password: String) async throws -> (directory: URL, file: String, device: String, passwords: String) {
        let directory = try temporaryDirectory()
        let file = directory.appendingPathComponent("\(model).json").path
        let device = "sim:\(model)?file=\(file)"
        let write = try await runBuiltNFCTool(["write", "--device", device, "--text", "locked for good"])
        #expect(write.status == 0, "\(write.output)")
        let passwords = directory.appendingPathComponent("icode.pwd").path
        try password.write(toFile: passwords, atomically: true, encoding: .utf8)
        return (directory, file, device, passwords)
    }

    /// The `transceive` commands of a trace file, as bytes (docs/traces.md).
    static func commands(_ trace: String) throws -> [[UInt8]] {
        let text = try String(contentsOfFile: trace, encoding: .utf8)
        return try text.split(separator: "\n").dropFirst().compactMap { line in
            let event = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            guard event["call"] as? String == "transceive", let command = event["command"] as? String else { return nil }
            // A redacted password byte is `**`: read as 00 (the command code stays visible).
            return NFCTestSupport.hex(command.replacingOccurrences(of: "*", with: "0"))
        }
    }

    @Test("SLIX2 --from-block 8 --lock-protection --yes: one B7 frame 22 B7 04 UID 08, after PROTECT PAGE and before the read-back; the file's condition mask 0003; info in a fresh process shows every block condition-locked")
    func slix2() async throws {
        let (directory, file, device, passwords) = try await Self.setUp("slix2", password: "0A0B0C0D")
        defer { try? FileManager.default.removeItem(at: directory) }
        let trace = directory.appendingPathComponent("lock.jsonl").path
        let done = try await runBuiltNFCTool(
            ["protect", "--device", device, "--password-file", passwords, "--from-block", "8", "--lock-protection", "--yes", "--trace", trace])
        #expect(done.status == 0 && done.output.contains("condition is locked"), "\(done.output)")
        let after = try TagFile(path: file)
        let uidOnAir = Array(after.uid.reversed())
        let sent = try Self.commands(trace)
        let locks = sent.filter { $0.count > 1 && $0[1] == 0xB7 }
        #expect(locks == [[0x22, 0xB7, 0x04] + uidOnAir + [0x08]], "\(locks)")
        let b6 = try #require(sent.lastIndex { $0.count > 1 && $0[1] == 0xB6 })
        let b7 = try #require(sent.firstIndex { $0.count > 1 && $0[1] == 0xB7 })
        let lastB8 = try #require(sent.lastIndex { $0.count > 1 && $0[1] == 0xB8 })
        #expect(b6 < b7 && b7 < lastB8, "PROTECT PAGE, then B7, then the status read back")
        #expect(sent[b6] == [0x22, 0xB6, 0x04] + uidOnAir + [0x08, 0x20])
        // Pointer 08, high page write-protected (20), low and high page conditions locked.
        #expect(Array(after.protection.prefix(5)) == [0x00, 0x00, 0x00, 0x08, 0x20], "\(after.protection)")
        #expect(after.lockedConditions == 0x0003)
        let info = try await runBuiltNFCTool(["info", "--device", device])
        #expect(info.status == 0 && info.output.contains("condition locked: blocks 0–79"), "\(info.output)")
    }

    @Test("SLIX-S --read-protect --from-block 8 --lock-protection --yes: B7 for pages 2–9 after all eight PROTECT PAGE; the file's mask 03FC")
    func slixS() async throws {
        let (directory, file, device, passwords) = try await Self.setUp("icode-slix-s", password: "11223344:55667788")
        defer { try? FileManager.default.removeItem(at: directory) }
        let trace = directory.appendingPathComponent("lock.jsonl").path
        let done = try await runBuiltNFCTool(
            ["protect", "--device", device, "--password-file", passwords, "--read-protect", "--from-block", "8", "--lock-protection", "--yes", "--trace", trace])
        #expect(done.status == 0, "\(done.output)")
        let after = try TagFile(path: file)
        let uidOnAir = Array(after.uid.reversed())
        let sent = try Self.commands(trace)
        let locks = sent.filter { $0.count > 1 && $0[1] == 0xB7 }
        #expect(locks == (2..<10).map { [0x22, 0xB7, 0x04] + uidOnAir + [UInt8($0)] }, "\(locks)")
        let lastB6 = try #require(sent.lastIndex { $0.count > 1 && $0[1] == 0xB6 })
        let firstB7 = try #require(sent.firstIndex { $0.count > 1 && $0[1] == 0xB7 })
        #expect(lastB6 < firstB7, "every page protected before any is locked")
        #expect(after.lockedConditions == 0x03FC, "\(after.protection)")
        #expect(Array(after.protection.suffix(10)) == [0, 0] + [UInt8](repeating: 0x11, count: 8))
        let info = try await runBuiltNFCTool(["info", "--device", device])
        #expect(info.output.contains("condition locked: blocks 8–39"), "\(info.output)")
    }

    @Test("--plan lists LOCK PAGE PROTECTION CONDITION and leaves the file byte-identical; without --yes exit 64, nothing sent, the file byte-identical", arguments: ["slix2", "icode-slix-s"])
    func planAndYes(model: String) async throws {
        let (directory, file, device, passwords) = try await Self.setUp(model, password: "0A0B0C0D")
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try TagFile(path: file).raw
        let plan = try await runBuiltNFCTool(["protect", "--device", device, "--password-file", passwords, "--from-block", "8", "--lock-protection", "--plan"])
        #expect(plan.status == 0 && plan.output.contains("LOCK PAGE PROTECTION CONDITION"), "\(plan.output)")
        #expect(try TagFile(path: file).raw == before)
        let trace = directory.appendingPathComponent("asked.jsonl").path
        let asked = try await runBuiltNFCTool(["protect", "--device", device, "--password-file", passwords, "--from-block", "8", "--lock-protection", "--trace", trace])
        #expect(asked.status == 64 && asked.output.contains("--yes"), "\(asked.output)")
        #expect(try TagFile(path: file).raw == before)
        let sent = (try? Self.commands(trace)) ?? []
        #expect(sent.allSatisfy { $0.count < 2 || ![0xB3, 0xB4, 0xB6, 0xB7].contains($0[1]) }, "\(sent)")
    }

    @Test("unprotect after --lock-protection exits 5 naming the locked condition, the file byte-identical; protect asking reads protected too is refused the same way before anything is written; the same protect run again succeeds", arguments: ["slix2", "icode-slix-s"])
    func unprotectRefused(model: String) async throws {
        let (directory, file, device, passwords) = try await Self.setUp(model, password: "0A0B0C0D")
        defer { try? FileManager.default.removeItem(at: directory) }
        let done = try await runBuiltNFCTool(["protect", "--device", device, "--password-file", passwords, "--from-block", "8", "--lock-protection", "--yes"])
        #expect(done.status == 0, "\(done.output)")
        let locked = try TagFile(path: file).raw
        let trace = directory.appendingPathComponent("unprotect.jsonl").path
        let unprotect = try await runBuiltNFCTool(["unprotect", "--device", device, "--password-file", passwords, "--trace", trace])
        #expect(unprotect.status == 5 && unprotect.output.contains("protection condition is locked"), "\(unprotect.output)")
        #expect(try TagFile(path: file).raw == locked)
        #expect(try Self.commands(trace).allSatisfy { $0.count < 2 || ![0xB3, 0xB4, 0xB6].contains($0[1]) }, "no password given, nothing written")
        let moved = try await runBuiltNFCTool(
            ["protect", "--device", device, "--password-file", passwords, "--current-password-file", passwords, "--from-block", "8", "--read-protect", "--lock-protection", "--yes"])
        #expect(moved.status == 5, "\(moved.output)")
        #expect(try TagFile(path: file).raw == locked)
        let again = try await runBuiltNFCTool(
            ["protect", "--device", device, "--password-file", passwords, "--current-password-file", passwords, "--from-block", "8", "--lock-protection", "--yes"])
        #expect(again.status == 0, "\(again.output)")
        let read = try await runBuiltNFCTool(["read", "--device", device])
        #expect(read.output.contains("locked for good"), "\(read.output)")
    }

    @Test("protect without --lock-protection on a chip whose condition is locked, asking another protection (reads too, new read password): exit 5 before any password is written, the file byte-identical", arguments: ["slix2", "icode-slix-s"])
    func protectRefusedOnLockedCondition(model: String) async throws {
        let (directory, file, device, passwords) = try await Self.setUp(model, password: "0A0B0C0D")
        defer { try? FileManager.default.removeItem(at: directory) }
        let done = try await runBuiltNFCTool(["protect", "--device", device, "--password-file", passwords, "--from-block", "8", "--lock-protection", "--yes"])
        #expect(done.status == 0, "\(done.output)")
        let locked = try TagFile(path: file).raw
        let new = directory.appendingPathComponent("new.pwd").path, current = directory.appendingPathComponent("current.pwd").path
        try "01020304:0A0B0C0D".write(toFile: new, atomically: true, encoding: .utf8)
        try "00000000:0A0B0C0D".write(toFile: current, atomically: true, encoding: .utf8)
        let run = try await runBuiltNFCTool(
            ["protect", "--device", device, "--password-file", new, "--current-password-file", current, "--read-protect", "--from-block", "8"])
        #expect(run.status == 5 && run.output.contains("protection condition of block"), "\(run.output)")
        #expect(try TagFile(path: file).raw == locked, "the read password not changed")
    }

    @Test("--lock-protection is refused with exit 10 on chips without page protection (ICODE SLIX, SLIX-L, NTAG213), the file byte-identical", arguments: ["icode-slix", "icode-slix-l", "ntag213"])
    func refusedWithoutPageProtection(model: String) async throws {
        let (directory, file, device, passwords) = try await Self.setUp(model, password: "0A0B0C0D")
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        let run = try await runBuiltNFCTool(["protect", "--device", device, "--password-file", passwords, "--lock-protection", "--yes"])
        #expect(run.status == 10, "\(run.output)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
    }

    @Test("NTAG 5 boost: --lock-protection sends B7 with the pointer, the file's condition mask 0003; unprotect then exits 5 with the file byte-identical")
    func ntag5() async throws {
        let (directory, file, device, passwords) = try await Self.setUp("ntag5-boost", password: "0A0B0C0D")
        defer { try? FileManager.default.removeItem(at: directory) }
        let trace = directory.appendingPathComponent("lock.jsonl").path
        let done = try await runBuiltNFCTool(
            ["protect", "--device", device, "--password-file", passwords, "--from-block", "8", "--lock-protection", "--yes", "--trace", trace])
        #expect(done.status == 0, "\(done.output)")
        let after = try TagFile(path: file)
        #expect(try Self.commands(trace).filter { $0.count > 1 && $0[1] == 0xB7 } == [[0x22, 0xB7, 0x04] + Array(after.uid.reversed()) + [0x08]])
        #expect(after.lockedConditions == 0x0003, "\(after.protection)")
        let unprotect = try await runBuiltNFCTool(["unprotect", "--device", device, "--password-file", passwords])
        #expect(unprotect.status == 5, "\(unprotect.output)")
        #expect(try TagFile(path: file).raw == after.raw)
    }
}
