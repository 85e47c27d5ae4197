import Foundation
import NFCTestSupport
import Testing
@testable import NFCToolCore
import NFCKit

/// The inspection and set-up commands: info, dump, verify, apdu, doctor. Help texts in whole,
/// then each command as a user runs it (the built nfctool) against the simulator.
@Suite("nfctool info, dump, verify, apdu and doctor", .timeLimit(.minutes(5)))
struct InspectionCommandTests {
    static let infoHelp = HelpSnapshot.help("info")

    static let dumpHelp = HelpSnapshot.help("dump")

    static let verifyHelp = HelpSnapshot.help("verify")

    static let apduHelp = HelpSnapshot.help("apdu")

    static let doctorHelp = HelpSnapshot.help("doctor")

    @Test("each command's --help is the whole text above", arguments: [
        ("info", InspectionCommandTests.infoHelp), ("dump", InspectionCommandTests.dumpHelp),
        ("verify", InspectionCommandTests.verifyHelp), ("apdu", InspectionCommandTests.apduHelp),
        ("doctor", InspectionCommandTests.doctorHelp),
    ])
    func help(command: String, text: String) async {
        let run = await runNFCTool([command, "--help"])
        #expect(run.status == .success)
        #expect(run.standardOutput == text)
        #expect(await runNFCTool(["help", command]).standardOutput == text)
    }

    // MARK: - info

    @Test("info names each simulated model, its platform, NDEF state and lock state", arguments: [
        ("ntag215", "NTAG215", "Type 2", "CC3: 00 (write access granted)"),
        ("classic1k", "MIFARE Classic 1K", "MIFARE Classic", "MAD: unknown"),
        ("felica-lite-s", "FeliCa Lite-S", "Type 3", "RWFlag: 01 (read-write)"),
        ("type4", "NFC Forum Type 4 tag", "Type 4", "CC write access: 00 (granted)"),
        ("slix2", "ICODE SLIX2", "Type 5", "locked blocks: 0 of 80"),
    ])
    func infoPerModel(model: String, chip: String, platform: String, lockLine: String) async throws {
        let run = try await runBuiltNFCTool(["info", "--device", "sim:\(model)", "--timeout", "2"])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains("  model:        \(chip)\n"))
        #expect(run.standardOutput.contains("  platform:     \(platform)\n"))
        #expect(run.standardOutput.contains("    \(lockLine)"))
        #expect(run.standardOutput.split(separator: "\n").allSatisfy { $0.count <= 80 })
    }

    @Test("info on a factory NTAG215: the whole report, with AUTH0, CFGLCK and the signature")
    func infoNTAG215Whole() async throws {
        let run = try await runBuiltNFCTool(["info", "--device", "sim:ntag215"])
        #expect(run.status == 0)
        let lines = run.standardOutput.split(separator: "\n").map(String.init)
        #expect(Array(lines.prefix(17)) == [
            "Tag on sim:ntag215",
            "  technology:   ISO 14443-3 A",
            "  UID:          04 53 49 4D 00 00 01",
            "  ATQA:         00 44",
            "  SAK:          00",
            "  model:        NTAG215",
            "  platform:     Type 2",
            "  memory:       504 bytes",
            "  NDEF:         read-write",
            "  capacity:     492 bytes",
            "  message:      0 bytes",
            "  lock:         read-write",
            "    CC3: 00 (write access granted)",
            "    static lock bytes: 00 00",
            "    dynamic lock bytes: 00 00 00",
            "    CFGLCK: clear",
            "  password:     none (AUTH0 FF)",
        ])
        let signature = try #require(lines.dropLast().last)
        #expect(signature.hasPrefix("  signature:    ") && signature.count == 16 + 64)
        // The simulator's stand-in signature is no valid NXP signature.
        #expect(lines.last == "  genuine:      no")
    }

    @Test("info on an Ultralight AES: the three counters (counter 2 refused without the key), the 48-byte signature over two lines and its verdict")
    func infoUltralightAES() async throws {
        let signature = "C9BBDA1B99EB6634CDFD8E3251AC5C4742EA5FA507B8A8A8B39B19AB7340D173331589C54C56C49F0CCA6DDBAC1E492A"
        let run = try await runBuiltNFCTool(["info", "--device", "sim:ultralight-aes?uid=045E4CC2451390&signature=\(signature)"])
        #expect(run.status == 0, "\(run.output)")
        let lines = run.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains("  counters:     0, 0, refused (needs the AES key)"), "\(run.output)")
        #expect(lines.contains("  signature:    " + signature.prefix(64)), "\(run.output)")
        #expect(lines.contains(String(repeating: " ", count: 16) + signature.dropFirst(64)), "\(run.output)")
        #expect(lines.contains("  genuine:      yes (NXP MIFARE Ultralight AES key)"), "\(run.output)")
        let blank = try await runBuiltNFCTool(["info", "--device", "sim:ultralight-aes"])
        #expect(blank.standardOutput.contains("  genuine:      no\n"), "\(blank.output)")
    }

    @Test("info --json has the same keys for every platform; a message's length is reported")
    func infoJSONKeys() async throws {
        var keySets: [Set<String>] = []
        for model in ["ntag215?ndef=D1010C55026578616D706C652E636F6D", "classic1k", "felica-lite-s", "type4", "slix2", "desfire-ev1"] {
            let run = try await runBuiltNFCTool(["info", "--json", "--device", "sim:\(model)"])
            #expect(run.status == 0)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
            keySets.append(Set(object.keys))
            let ndef = try #require(object["ndef"] as? [String: Any])
            #expect(Set(ndef.keys) == ["status", "capacity", "messageLength"])
            if model.hasPrefix("ntag215") { #expect(ndef["messageLength"] as? Int == 16) }
        }
        #expect(Set(keySets) == [[
            "reader", "readerName", "technology", "uid", "atqa", "sak", "ats", "pmm", "systemCode", "dsfid", "afi", "model",
            "platform", "memoryBytes", "ndef", "lock", "password", "mirror", "mirrorSettings", "nfcCounter", "nfcCounterSettings",
            "counters", "signature", "genuine", "signatureKey", "ntag424", "desfire", "desfireLight", "iso15693",
        ]])
    }

    @Test("info: no tag exits 2, a bad timeout 64, an unknown simulator model 64")
    func infoErrors() async throws {
        #expect(try await runBuiltNFCTool(["info", "--device", "sim:empty", "--timeout", "0.2"]).status == 2)
        #expect(try await runBuiltNFCTool(["info", "--timeout", "-1"]).status == 64)
        #expect(try await runBuiltNFCTool(["info", "--device", "sim:nosuchtag"]).status == 64)
        #expect(try await runBuiltNFCTool(["info", "extra"]).status == 64)
    }

    // MARK: - dump

    @Test("dump of an NTAG215 lists its 135 pages; --binary writes the same 540 bytes", arguments: [false, true])
    func dumpNTAG215(toFile: Bool) async throws {
        let device = "sim:ntag215?ndef=D1010C55026578616D706C652E636F6D"
        let listing = try await runBuiltNFCTool(["dump", "--device", device])
        #expect(listing.status == 0)
        let lines = listing.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first == "NTAG215 04 53 49 4D 00 00 01: 135 pages, 135 readable")
        #expect(lines[1] == "page   0: 04 53 49 96  |.SI.|  UID (UID0-UID2, BCC0)")
        #expect(lines[4] == "page   3: E1 10 3E 00  |..>.|  CC (OTP0-OTP3)")
        #expect(lines[5] == "page   4: 03 10 D1 01  |....|")
        #expect(lines[131] == "page 130: 00 00 00 BD  |....|  dynamic lock (LOCK2-LOCK4, RFUI)")
        #expect(lines[132] == "page 131: 04 00 00 FF  |....|  CFG0 (MIRROR, RFU, MIRROR_PAGE, AUTH0)")
        #expect(lines.count == 136)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dump-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("tag.mfd").path
        let binary = try await runBuiltNFCTool(["dump", "--device", device, "--binary", "--output", file])
        #expect(binary.status == 0)
        #expect(binary.standardError == "wrote 540 bytes to \(file)\n")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
        #expect(bytes.count == 540)
        #expect(Array(bytes[16..<20]) == [0x03, 0x10, 0xD1, 0x01])
        #expect(Array(bytes[12..<16]) == [0xE1, 0x10, 0x3E, 0x00])
    }

    @Test("dump of a MIFARE Ultralight C lists pages 00h–2Bh, lock, counter, AUTH0 and AUTH1 included, never the key pages (nfcpy's dump of one)")
    func dumpUltralightC() async throws {
        let listing = try await runBuiltNFCTool(["dump", "--device", "sim:ultralight-c"])
        #expect(listing.status == 0, "\(listing.standardError)")
        let lines = listing.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first == "MIFARE Ultralight C 04 53 49 4D 00 00 01: 44 pages, 44 readable")
        // AUTH0 (page 2Ah) reads 30h on a factory chip: no page needs authentication (MF0ICU2 7.5.8).
        #expect(lines.last == "page 43: 00 00 00 00  |....|")
        #expect(lines.contains("page 42: 30 00 00 00  |0...|"))
        #expect(lines.count == 45)
    }

    @Test("dump of a Classic 1K: 64 blocks; --binary is the 1024-byte .mfd with key A filled in")
    func dumpClassic() async throws {
        let listing = try await runBuiltNFCTool(["dump", "--device", "sim:classic1k"])
        #expect(listing.status == 0)
        #expect(listing.standardOutput.hasPrefix("MIFARE Classic 1K 53 49 4D 01: 64 blocks, 64 readable\n"))
        #expect(listing.standardOutput.contains("block  3: 00 00 00 00 00 00 FF 07 80 69 FF FF FF FF FF FF"))
        let binary = await runNFCTool(["dump", "--device", "sim:classic1k", "--binary"])
        #expect(binary.status == .success)
        #expect(binary.standardOutputBytes.count == 1024)
        #expect(Array(binary.standardOutputBytes[48..<64]) == [UInt8](repeating: 0xFF, count: 6) + [0xFF, 0x07, 0x80, 0x69] + [UInt8](repeating: 0xFF, count: 6))
        let json = try await runBuiltNFCTool(["dump", "--json", "--device", "sim:classic1k", "--key", "A0A1A2A3A4A5"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        #expect((object["units"] as? [Any])?.count == 64)
        #expect(object["unit"] as? String == "block")
    }

    @Test("dump of the other platforms: blocks or files", arguments: [
        ("felica-lite-s", "FeliCa Lite-S 01 2E 53 49 4D 00 00 01: 23 blocks"),
        ("slix2", "ICODE SLIX2 E0 04 01 08 53 49 4D 01: 80 blocks, 80 readable"),
        ("type4", "NFC Forum Type 4 tag 04 53 49 4D 00 00 01: 2 files, 2 readable"),
    ])
    func dumpOthers(model: String, header: String) async throws {
        let run = try await runBuiltNFCTool(["dump", "--device", "sim:\(model)"])
        #expect(run.status == 0)
        #expect(run.standardOutput.hasPrefix(header))
        #expect(run.standardOutput.split(separator: "\n").allSatisfy { $0.count <= 80 })
    }

    @Test("dump: a bad key, --binary with --json, or --binary to a terminal are usage errors (64)")
    func dumpBadInput() async throws {
        let badKey = try await runBuiltNFCTool(["dump", "--device", "sim:classic1k", "--key", "FFFF"])
        #expect(badKey.status == 64)
        #expect(badKey.standardError.hasPrefix("Error: The value 'FFFF' is invalid for '--key <hex>': a key is 6 bytes"))
        #expect(try await runBuiltNFCTool(["dump", "--binary", "--json"]).status == 64)
        #expect(try await runBuiltNFCTool(["dump", "--device", "sim:ntag215", "--output", "/nonexistent/dir/x.mfd"]).status == 1)
    }

    // MARK: - verify

    @Test("verify: a matching URL, model and NDEF file exit 0")
    func verifyMatches() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("verify-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("m.ndef")
        try Data("D1010C55026578616D706C652E636F6D\n".utf8).write(to: file)
        let run = try await runBuiltNFCTool([
            "verify", "--device", "sim:ntag215?ndef=D1010C55026578616D706C652E636F6D",
            "--expect-url", "https://www.example.com", "--expect-model", "ntag215", "--expect-ndef", file.path,
        ])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput == """
            ok        model: NTAG215
            ok        url: https://www.example.com
            ok        ndef: D1010C55026578616D706C652E636F6D

            """)
    }

    @Test("verify: a mismatch exits 8 with expected and found; --json gives each check")
    func verifyMismatch() async throws {
        let run = try await runBuiltNFCTool(["verify", "--device", "sim:ntag215", "--expect-url", "https://x.example", "--expect-read-only"])
        #expect(run.status == 8)
        #expect(run.standardOutput == """
            MISMATCH  read-only
              expected: read-only
              found:    not locked: CC3 is 00: the CC grants write access; the CC page (3) is not locked (static lock bytes 00 00); pages 4–15 are not locked (static lock bytes 00 00); pages 16–127 are not locked (dynamic lock bytes 00 00 00); CFGLCK is clear: AUTH0, ACCESS and the mirror can still change
            MISMATCH  url
              expected: https://x.example
              found:    no URI record

            """)
        #expect(run.standardError == "Error: the tag does not match: read-only, url\n")
        let json = try await runBuiltNFCTool(["verify", "--json", "--device", "sim:type4?read-only", "--expect-read-only", "--expect-model", "NTAG213"])
        #expect(json.status == 8)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        #expect(object["match"] as? Bool == false)
        let checks = try #require(object["checks"] as? [[String: Any]])
        #expect(checks.map { $0["check"] as? String } == ["model", "read-only"])
        #expect(checks.map { $0["ok"] as? Bool } == [false, true])
    }

    /// Swift's `==` on strings is canonical equivalence: `cafe` + U+0301 equalled `café`
    /// (U+00E9), so verify said ok for a URL whose bytes, and so the resource, differ.
    @Test("verify --expect-url compares bytes: a decomposed é on the tag is not the precomposed é expected (exit 8)")
    func verifyURLByBytes() async throws {
        // URI record, prefix 04 (https://), "x.example/cafe" then CC 81 (U+0301 combining acute).
        let device = "sim:ntag215?ndef=D101115504782E6578616D706C652F63616665CC81"
        let precomposed = try await runBuiltNFCTool(["verify", "--device", device, "--expect-url", "https://x.example/caf\u{E9}"])
        #expect(precomposed.status == 8, "\(precomposed.standardOutput)")
        #expect(precomposed.standardOutput.hasPrefix("MISMATCH  url"), "\(precomposed.standardOutput)")
        let decomposed = try await runBuiltNFCTool(["verify", "--device", device, "--expect-url", "https://x.example/cafe\u{301}"])
        #expect(decomposed.status == 0, "\(decomposed.standardOutput)\(decomposed.standardError)")
    }

    @Test("verify: no check is a usage error (64); an expected file that is not NDEF is a data error (65)")
    func verifyBadInput() async throws {
        #expect(try await runBuiltNFCTool(["verify"]).status == 64)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("verify-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("bad.ndef")
        try Data([0x01, 0x02]).write(to: file)
        #expect(try await runBuiltNFCTool(["verify", "--expect-ndef", file.path]).status == 65)
        #expect(try await runBuiltNFCTool(["verify", "--expect-ndef", directory.appendingPathComponent("none").path]).status == 1)
    }

    // MARK: - apdu

    @Test("apdu: SELECT of the NDEF application and READ BINARY of the CC on a Type 4 tag")
    func apduType4() async throws {
        let run = try await runBuiltNFCTool(["apdu", "--device", "sim:type4", "00A4040007D2760000850101", "00A4000C02E103", "00 B0 00 00 0F"])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput == """
            > 00 A4 04 00 07 D2 76 00 00 85 01 01
            < SW 9000
            > 00 A4 00 0C 02 E1 03
            < SW 9000
            > 00 B0 00 00 0F
            < 00 0F 20 00 3B 00 34 04 06 E1 04 08 00 00 00
            < SW 9000

            """)
        let json = try await runBuiltNFCTool(["apdu", "--json", "--device", "sim:type4", "00A4040007D2760000850101"])
        #expect(json.standardOutput.contains("\"sw\" : \"9000\""))
    }

    @Test("apdu: a payment SELECT and a tag without ISO-DEP exit 10; bad APDUs exit 64")
    func apduRefusals() async throws {
        let payment = try await runBuiltNFCTool(["apdu", "--device", "sim:type4", "00A404000E325041592E5359532E4444463031"])
        #expect(payment.status == 10)
        #expect(payment.standardError.contains("--allow-payment"))
        #expect(try await runBuiltNFCTool(["apdu", "--device", "sim:type4", "--allow-payment", "00A404000E325041592E5359532E4444463031"]).status == 0)
        #expect(try await runBuiltNFCTool(["apdu", "--device", "sim:ntag215", "00A4040000"]).status == 10)
        #expect(try await runBuiltNFCTool(["apdu", "--device", "sim:felica-lite-s", "00A4040000"]).status == 10)
        let badHex = try await runBuiltNFCTool(["apdu", "zz"])
        #expect(badHex.status == 64)
        #expect(badHex.standardError.hasPrefix("Error: The value 'zz' is invalid for '<apdu>'"))
        #expect(try await runBuiltNFCTool(["apdu", "00A4"]).status == 64)
        #expect(try await runBuiltNFCTool(["apdu"]).status == 64)
    }

    // MARK: - doctor

    /// A copy of a fixture tree with the USB device node's mode set (git keeps no modes).
    static func doctorRoot(_ name: String, deviceNode: String, mode: Int) async throws -> URL {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/doctor/\(name)")
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("doctor-\(UUID().uuidString)")
        // cp, not FileManager.copyItem: the copy belongs to whoever runs the tests (copyItem
        // keeps the checkout's owner, which a user other than its owner may not set).
        let copied = try await runTool("/bin/cp", ["-R", fixtures.path, copy.path], environment: ProcessInfo.processInfo.environment)
        try #require(copied.status == 0, "\(copied.output)")
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: copy.path + deviceNode)
        return copy
    }

    @Test("doctor on a set-up machine: no problem, exit 0")
    func doctorHealthy() async throws {
        let root = try await Self.doctorRoot("healthy", deviceNode: "/dev/bus/usb/001/004", mode: 0o666)
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try await runBuiltNFCTool(["doctor"], environment: ["NFCTOOL_DOCTOR_ROOT": root.path, "LIBNFC_LOG_LEVEL": "0"])
        #expect(run.status == 0, "\(run.standardOutput)")
        let lines = run.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains("[ok]      kernel drivers: pn533_usb and pn533 not loaded and blacklisted"))
        #expect(lines.contains("[ok]      udev rules: a udev rule covers the common USB readers"))
        #expect(lines.contains("[ok]      USB permissions: ACS ACR122U at /dev/bus/usb/001/004 (mode 666) opens"))
        #expect(lines.contains { $0.hasPrefix("[ok]      libnfc.conf: libnfc.conf: device.name = \"ACR122U\"") })
        #expect(lines.contains("[ok]      environment: LIBNFC_LOG_LEVEL=0"))
        #expect(lines.contains("[ok]      pcscd: pcscd is running"))
        #expect(lines.contains("[ok]      pcscd socket: /run/pcscd/pcscd.comm"))
        #expect(lines.contains { $0.hasPrefix("[ok]      libccid: USB CCID reader driver:") })
        #expect(run.standardOutput.contains("[warning] claimed twice: ACS ACR122U: pcscd (libccid) holds it, so libnfc"), "\(run.standardOutput)")
        #expect(lines.allSatisfy { $0.count <= 80 })
    }

    @Test("doctor on a machine where pn533_usb holds a root-only reader: problems, exit 1, how to fix; as this user and, under root, as nobody")
    func doctorBroken() async throws {
        // Root-only: owned by root, mode 664. Not root, the copy is this user's own: mode 444
        // keeps even its owner from writing, which is what doctor must see.
        let mode = getuid() == 0 ? 0o664 : 0o444
        let root = try await Self.doctorRoot("broken", deviceNode: "/dev/bus/usb/003/007", mode: mode)
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try await runBuiltNFCTool(["doctor"], environment: ["NFCTOOL_DOCTOR_ROOT": root.path])
        #expect(run.status == 1)
        #expect(run.standardError == "Error: 2 problems found\n")
        Self.expectBrokenReport(run.standardOutput, mode: mode)
        let json = try await runBuiltNFCTool(["doctor", "--json"], environment: ["NFCTOOL_DOCTOR_ROOT": root.path])
        #expect(json.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        #expect(object["problems"] as? Int == 2)
        let checks = try #require(object["checks"] as? [[String: Any]])
        #expect(checks.map { $0["name"] as? String } == [
            "libnfc", "readers", "kernel drivers", "udev rules", "USB permissions", "libnfc.conf", "environment",
            "pcscd", "pcscd socket", "PC/SC readers", "libccid", "claimed twice",
        ])
        #expect(checks.allSatisfy { Set($0.keys) == ["name", "status", "detail", "fix"] })
        guard getuid() == 0 else { return }
        // The same machine seen by an unprivileged user.
        let nfctool = URL(fileURLWithPath: try Executables.nfctool())
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LIBNFC_") }
        environment["NFCTOOL_DOCTOR_ROOT"] = root.path
        let nobody = try await runAsNobody(nfctool.path, ["doctor"], environment: environment)
        #expect(nobody.status == 1, "\(nobody.output)")
        #expect(nobody.output.contains("Error: 2 problems found\n"))
        Self.expectBrokenReport(nobody.output, mode: mode)
    }

    /// What doctor reports on the broken fixture.
    static func expectBrokenReport(_ output: String, mode: Int) {
        #expect(output.contains("""
            [problem] kernel drivers: loaded: pn533_usb, pn533, nfc (they claim USB readers
                      before libnfc)
                      fix: sudo modprobe -r pn533_usb pn533 nfc, then blacklist them in
                           /etc/modprobe.d/blacklist-nfc.conf (docs/hardware.md)

            """), "\(output)")
        #expect(output.contains("[warning] udev rules: no udev rule for NFC readers"))
        #expect(output.contains("[problem] USB permissions: NXP PN533 at /dev/bus/usb/003/007 (mode \(String(mode, radix: 8))):"), "\(output)")
        #expect(output.contains("[warning] libnfc.conf: libnfc.conf: allow_intrusive_scan = true |\n          devices.d/pn532.conf:"))
        #expect(output.contains("[warning] pcscd: pcscd is not running"), "\(output)")
        #expect(output.contains("[warning] libccid: no libccid"), "\(output)")
    }

    @Test("doctor: an unknown option or an argument is a usage error (64)")
    func doctorBadInput() async throws {
        #expect(try await runBuiltNFCTool(["doctor", "--root", "/"]).status == 64)
        #expect(try await runBuiltNFCTool(["doctor", "now"]).status == 64)
    }

    @Test("the shipped udev rule is the one doctor recognises, for every reader it knows")
    func udevRuleCoversKnownReaders() throws {
        let rules = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Scripts/udev/99-nfckit.rules")
        let text = try String(contentsOf: rules, encoding: .utf8)
        for reader in USBReaderID.known {
            #expect(text.contains("ATTRS{idVendor}==\"\(reader.vendor)\", ATTRS{idProduct}==\"\(reader.product)\", GROUP=\"plugdev\", MODE=\"0660\", TAG+=\"uaccess\""))
        }
    }

    @Test("doctor and the udev rule know exactly the USB readers libnfc 1.8.0's drivers list (ACR1222 included)")
    func knownReadersMatchLibNFCDriverTables() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        let fixture = try String(contentsOf: root.appendingPathComponent("Fixtures/libnfc/usb-readers-1.8.0.txt"), encoding: .utf8)
        let libnfc = Set(fixture.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: " ").first.map(String.init) })
        #expect(libnfc.count == 10)
        #expect(Set(USBReaderID.known.map { "\($0.vendor):\($0.product)" }) == libnfc)
        let rules = try String(contentsOf: root.deletingLastPathComponent().appendingPathComponent("Scripts/udev/99-nfckit.rules"), encoding: .utf8)
        let ruleIDs = Set(rules.split(separator: "\n").filter { $0.hasPrefix("ATTRS{idVendor}") }.map { line -> String in
            let quoted = line.split(separator: "\"")
            return quoted.count > 3 ? "\(quoted[1]):\(quoted[3])" : String(line)
        })
        #expect(ruleIDs == libnfc)
    }

    // MARK: - robustness

    @Test("info on a tag that leaves the field after any command: exit 0, the rest unknown", arguments: 1...8)
    func infoWhenTheTagLeaves(after command: Int) async {
        let run = await runNFCTool(["info", "--device", "sim:ntag215?leave-after=\(command)&poll-wait=0", "--timeout", "1"])
        #expect(run.status == .success, "\(run.standardError)")
        #expect(run.standardOutput.contains("  model:        NTAG215\n"))
        if command <= 3 { #expect(run.standardOutput.contains("unknown (")) }
    }

    @Test("dump of a tag that leaves before anything is read exits 7 (tag lost)", arguments: ["ntag215", "type4", "slix2"])
    func dumpWhenTheTagLeaves(model: String) async {
        let run = await runNFCTool(["dump", "--device", "sim:\(model)?leave-after=1&poll-wait=0", "--timeout", "1"])
        #expect(run.status == .tagLost, "\(run.standardOutput)")
    }
}
