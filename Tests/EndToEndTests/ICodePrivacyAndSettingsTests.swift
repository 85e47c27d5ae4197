import Foundation
import NFCTestSupport
import Testing

/// ICODE privacy, EAS/AFI and DESTROY through `nfctool` in fresh processes on the simulator's
/// tag files. The files are judged by a reader written here from the tag-file layout of the
/// ICODE security attributes (docs/simulator.md: `icodeProtection` byte 1 = privacy;
/// `icodeEAS` bits 0 EAS, 1 EAS locked, 2 EAS protected, 3 AFI protected, 4 destroyed), not by
/// VirtualTags.
@Suite("ICODE privacy, EAS/AFI and DESTROY in fresh nfctool processes", .tags(.endToEnd), .timeLimit(.minutes(3)))
struct ICodePrivacyAndSettingsTests {
    /// What the test reads from a tag file.
    struct TagFile {
        var raw: Data
        var attributes: [String: String]

        init(path: String) throws {
            raw = try Data(contentsOf: URL(fileURLWithPath: path))
            let json = try #require(try JSONSerialization.jsonObject(with: raw) as? [String: Any])
            attributes = json["attributes"] as? [String: String] ?? [:]
        }

        /// Byte 1 of `icodeProtection`.
        var privacy: Bool { attributes["icodeProtection"].map { NFCTestSupport.hex($0) }.map { $0.count > 1 && $0[1] != 0 } ?? false }
        /// The `icodeEAS` bits.
        var easBits: UInt8 { attributes["icodeEAS"].map { NFCTestSupport.hex($0).first ?? 0 } ?? 0 }
    }

    static func setUp(_ model: String) async throws -> (directory: URL, file: String, device: String) {
        let directory = try temporaryDirectory()
        let file = directory.appendingPathComponent("\(model).json").path
        let device = "sim:\(model)?file=\(file)"
        let write = try await runBuiltNFCTool(["write", "--device", device, "--text", "hidden and back"])
        #expect(write.status == 0, "\(write.output)")
        return (directory, file, device)
    }

    static func environment(password: String) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["NFCTOOL_PASSWORD"] = password
        return environment
    }

    @Test("protect --privacy hides the tag (scan finds none, exit 2); unprotect --privacy with a wrong password exits 9 with the file unchanged; with the right one the tag is read again", arguments: ["slix2", "icode-slix-s", "icode-slix-l"])
    func privacyRoundTrip(model: String) async throws {
        let (directory, file, device) = try await Self.setUp(model)
        defer { try? FileManager.default.removeItem(at: directory) }
        let tool = try Executables.nfctool()
        let hide = try await runTool(tool, ["protect", "--device", device, "--privacy", "--yes"], environment: Self.environment(password: "5A5A1234"), timeout: 60)
        #expect(hide.status == 0, "\(hide.output)")
        #expect(try TagFile(path: file).privacy, "privacy set in the file")
        let scan = try await runTool(tool, ["scan", "--device", device, "--timeout", "1"], environment: Self.environment(password: ""), timeout: 60)
        #expect(scan.status == 2, "a tag in privacy mode answers no poll: \(scan.output)")
        let plan = try await runTool(tool, ["unprotect", "--device", device, "--privacy", "--plan"], environment: Self.environment(password: "5A5A1234"), timeout: 60)
        #expect(plan.status == 0 && plan.output.contains("GET RANDOM NUMBER") && !plan.output.contains("5A5A1234"), "\(plan.output)")
        let hidden = try TagFile(path: file)
        let wrong = try await runTool(tool, ["unprotect", "--device", device, "--privacy", "--timeout", "1"], environment: Self.environment(password: "5A5A1235"), timeout: 60)
        #expect(wrong.status == 9, "\(wrong.output)")
        #expect(try TagFile(path: file).raw == hidden.raw, "a wrong password changes nothing")
        let back = try await runTool(tool, ["unprotect", "--device", device, "--privacy", "--timeout", "2"], environment: Self.environment(password: "5A5A1234"), timeout: 60)
        #expect(back.status == 0 && back.output.contains("Left privacy mode"), "\(back.output)")
        #expect(try !TagFile(path: file).privacy)
        let read = try await runBuiltNFCTool(["read", "--device", device])
        #expect(read.status == 0 && read.output.contains("hidden and back"), "\(read.output)")
    }

    @Test("unprotect --privacy --trace records both unaddressed frames as transceiveUnselected calls, the privacy password redacted (read from the file), and a fresh process replays the trace")
    func privacyTraced() async throws {
        let (directory, file, device) = try await Self.setUp("slix2")
        defer { try? FileManager.default.removeItem(at: directory) }
        let tool = try Executables.nfctool()
        let hide = try await runTool(tool, ["protect", "--device", device, "--privacy", "--yes"], environment: Self.environment(password: "5A5A1234"), timeout: 60)
        #expect(hide.status == 0, "\(hide.output)")
        let trace = directory.appendingPathComponent("privacy.jsonl").path
        let back = try await runTool(
            tool, ["unprotect", "--device", device, "--privacy", "--timeout", "2", "--trace", trace], environment: Self.environment(password: "5A5A1234"), timeout: 60)
        #expect(back.status == 0 && back.output.contains("Left privacy mode"), "\(back.output)")
        #expect(try !TagFile(path: file).privacy)
        // The file, read line by line here: docs/traces.md's fields.
        let text = try String(contentsOfFile: trace, encoding: .utf8)
        #expect(!text.uppercased().contains("5A5A1234") && !text.uppercased().contains("34125A5A"), "no password in plain")
        let events = try text.split(separator: "\n").dropFirst().map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let unselected = events.filter { $0["call"] as? String == "transceiveUnselected" }
        #expect(unselected.map { $0["command"] as? String } == ["02B204", "02B30404********"], "\(unselected)")
        #expect((unselected.first?["answer"] as? String)?.count == 6, "flags 00 and 2 random bytes")
        #expect(unselected.last?["answer"] as? String == "00")
        // A fresh process plays it back (the random number is in the trace; the password matches any).
        let replay = try await runTool(
            tool, ["unprotect", "--device", "replay:" + trace, "--privacy", "--timeout", "2"], environment: Self.environment(password: "5A5A1234"), timeout: 60)
        #expect(replay.status == 0 && replay.output.contains("Left privacy mode"), "\(replay.output)")
    }

    @Test("EAS and AFI: --eas on, then --password eas-afi --protect-eas --protect-afi --yes; without --yes exit 64 and the file unchanged")
    func easAndAFI() async throws {
        let (directory, file, device) = try await Self.setUp("icode-slix")
        defer { try? FileManager.default.removeItem(at: directory) }
        let tool = try Executables.nfctool()
        let on = try await runTool(tool, ["protect", "--device", device, "--eas", "on"], environment: ProcessInfo.processInfo.environment, timeout: 60)
        #expect(on.status == 0, "\(on.output)")
        #expect(try TagFile(path: file).easBits == 0x01)
        let before = try TagFile(path: file)
        let asked = try await runTool(
            tool, ["protect", "--device", device, "--password", "eas-afi", "--protect-eas", "--protect-afi"],
            environment: Self.environment(password: "0BADCAFE"), timeout: 60)
        #expect(asked.status == 64, "\(asked.output)")
        #expect(try TagFile(path: file).raw == before.raw)
        let done = try await runTool(
            tool, ["protect", "--device", device, "--password", "eas-afi", "--protect-eas", "--protect-afi", "--yes"],
            environment: Self.environment(password: "0BADCAFE"), timeout: 60)
        #expect(done.status == 0, "\(done.output)")
        #expect(!done.output.contains("0BADCAFE"))
        let after = try TagFile(path: file)
        #expect(after.easBits == 0x0D, "EAS on, EAS and AFI protected")
        #expect(after.attributes["icodePasswords"] == "10=0BADCAFE")
        // EAS off without the password: refused (exit 1), nothing changed; with it: done.
        let refused = try await runTool(tool, ["protect", "--device", device, "--eas", "off"], environment: ProcessInfo.processInfo.environment, timeout: 60)
        #expect(refused.status != 0, "\(refused.output)")
        #expect(try TagFile(path: file).raw == after.raw)
        let off = try await runTool(tool, ["protect", "--device", device, "--eas", "off"], environment: Self.environment(password: "0BADCAFE"), timeout: 60)
        #expect(off.status == 0, "\(off.output)")
        #expect(try TagFile(path: file).easBits == 0x0C)
    }

    @Test("--eas-id: --plan lists WRITE EAS ID and changes nothing; a bad value is exit 64; written, the tag file holds it and info in a fresh process shows the EAS mode (EAS ALARM) and the EAS ID")
    func easID() async throws {
        let (directory, file, device) = try await Self.setUp("icode-slix-l")
        defer { try? FileManager.default.removeItem(at: directory) }
        let tool = try Executables.nfctool()
        let environment = ProcessInfo.processInfo.environment
        let before = try TagFile(path: file)
        let plan = try await runTool(tool, ["protect", "--device", device, "--eas-id", "BEEF", "--plan"], environment: environment, timeout: 60)
        #expect(plan.status == 0 && plan.output.contains("WRITE EAS ID"), "\(plan.output)")
        let bad = try await runTool(tool, ["protect", "--device", device, "--eas-id", "BEE"], environment: environment, timeout: 60)
        #expect(bad.status == 64, "\(bad.output)")
        #expect(try TagFile(path: file).raw == before.raw, "plan and refusal change nothing")
        let written = try await runTool(tool, ["protect", "--device", device, "--eas-id", "BEEF", "--eas", "on"], environment: environment, timeout: 60)
        #expect(written.status == 0 && written.output.contains("EAS ID BEEF"), "\(written.output)")
        let after = try TagFile(path: file)
        #expect(after.attributes["icodeEASID"] == "BEEF" && after.easBits == 0x01, "\(after.attributes)")
        let info = try await runBuiltNFCTool(["info", "--device", device])
        #expect(info.status == 0 && info.output.contains("on (EAS ALARM answered), EAS ID BEEF"), "\(info.output)")
    }

    @Test("DESTROY: --plan lists it (password hidden) and sends nothing; without --yes exit 64; with a wrong password exit 9; with the right one the tag never answers again")
    func destroy() async throws {
        let (directory, file, device) = try await Self.setUp("icode-slix-l")
        defer { try? FileManager.default.removeItem(at: directory) }
        let tool = try Executables.nfctool()
        let set = try await runTool(tool, ["protect", "--device", device, "--password", "destroy"], environment: Self.environment(password: "D0D0D0D0"), timeout: 60)
        #expect(set.status == 0, "\(set.output)")
        let armed = try TagFile(path: file)
        #expect(armed.attributes["icodePasswords"]?.contains("08=D0D0D0D0") == true, "\(armed.attributes)")
        let plan = try await runTool(tool, ["protect", "--device", device, "--destroy", "--plan"], environment: Self.environment(password: "D0D0D0D0"), timeout: 60)
        #expect(plan.status == 0 && plan.output.contains("DESTROY") && plan.output.contains("IRREVERSIBLE") && !plan.output.contains("D0D0D0D0"), "\(plan.output)")
        let asked = try await runTool(tool, ["protect", "--device", device, "--destroy"], environment: Self.environment(password: "D0D0D0D0"), timeout: 60)
        #expect(asked.status == 64, "\(asked.output)")
        let wrong = try await runTool(tool, ["protect", "--device", device, "--destroy", "--yes"], environment: Self.environment(password: "D0D0D0D1"), timeout: 60)
        #expect(wrong.status == 9, "\(wrong.output)")
        #expect(try TagFile(path: file).raw == armed.raw, "plan, refusal and wrong password change nothing")
        let gone = try await runTool(tool, ["protect", "--device", device, "--destroy", "--yes"], environment: Self.environment(password: "D0D0D0D0"), timeout: 60)
        #expect(gone.status == 0, "\(gone.output)")
        #expect(try TagFile(path: file).easBits & 0x10 != 0, "destroyed in the file")
        let scan = try await runTool(tool, ["scan", "--device", device, "--timeout", "1"], environment: ProcessInfo.processInfo.environment, timeout: 60)
        #expect(scan.status == 2, "\(scan.output)")
    }

    @Test("info names the passwords an ICODE chip has and says their state is unknown (no command reads it)", arguments: [
        ("icode-slix-l", "privacy, destroy, EAS/AFI"), ("icode-slix", "EAS/AFI"), ("slix2", "read, write, privacy, destroy, EAS/AFI"),
    ])
    func infoPasswords(model: String, passwords: String) async throws {
        let info = try await runBuiltNFCTool(["info", "--device", "sim:\(model)"])
        #expect(info.status == 0, "\(info.output)")
        #expect(info.output.contains("ICODE passwords: \(passwords) (state unknown)"), "\(info.output)")
    }
}
