import Foundation
import NFCTestSupport
import Testing

/// `nfctool ntag424 setup` end to end, each step a fresh process: a virtual NTAG 424 DNA in a
/// tag file is set up by the CLI; then every read of it (`nfctool read`, a new process, a new
/// tap) gives a URL that `nfctool sun verify` (another process) accepts, with SDMReadCtr
/// growing by one each time. Keys are never on the command line nor in any output.
@Suite("nfctool ntag424 setup, then reads verified by nfctool sun verify", .tags(.endToEnd), .timeLimit(.minutes(5)))
struct NTAG424SetupCommandTests {
    static let key0 = "00112233445566778899AABBCCDDEEFF"
    static let metaRead = "0102030405060708090A0B0C0D0E0F10"
    static let fileRead = "1112131415161718191A1B1C1D1E1F20"
    static let keysText = "# sticker keys\nkey0 = \(key0)\nsdmMetaRead = \(metaRead)\nsdmFileRead = \(fileRead)\n"
    static let template = "https://ex.io/t?e={sun:picc}&c={sun:mac}"

    static func noKeys(_ run: ToolRun) -> Bool {
        let all = run.standardOutput + run.standardError
        return [key0, metaRead, fileRead].allSatisfy { !all.uppercased().contains($0) }
    }

    @Test("setup without --yes and without a terminal is refused (exit 64) before the chip is touched: the tag file keeps its factory keys")
    func setupNeedsYes() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let keys = directory.appendingPathComponent("sticker.keys").path
        try Data(Self.keysText.utf8).write(to: URL(fileURLWithPath: keys))
        let tagFile = directory.appendingPathComponent("sticker.json").path
        #expect(try await runBuiltNFCTool(["scan", "--device", "sim:ntag424?file=\(tagFile)"]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: tagFile))
        let run = try await runBuiltNFCTool(["ntag424", "setup", "--device", "sim:?file=\(tagFile)", "--url", Self.template, "--keys", keys])
        #expect(run.status == 64, "\(run.standardError)")
        #expect(run.standardError.contains("changes the chip's key 0 for good"), "\(run.standardError)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: tagFile)) == before)
        #expect(Self.noKeys(run))
    }

    @Test("setup, then three reads in new processes: each URL verifies with a growing SDMReadCtr (the setup's own check read was 1)")
    func setupThenTaps() async throws {
        let directory = try temporaryDirectory()
        let keys = directory.appendingPathComponent("sticker.keys").path
        try Data(Self.keysText.utf8).write(to: URL(fileURLWithPath: keys))
        let tagFile = directory.appendingPathComponent("sticker.json").path
        let setup = try await runBuiltNFCTool(["ntag424", "setup", "--yes", "--device", "sim:ntag424?file=\(tagFile)", "--url", Self.template, "--keys", keys, "--json"])
        #expect(setup.status == 0, "\(setup.standardError)")
        #expect(Self.noKeys(setup))
        let report = try #require(try JSONSerialization.jsonObject(with: Data(setup.standardOutput.utf8)) as? [String: Any])
        #expect(report["keysChanged"] as? [Int] == [1, 2, 0])
        #expect((report["check"] as? [String: Any])?["readCounter"] as? Int == 1)
        var counters: [Int] = []
        for _ in 0..<3 {
            let read = try await runBuiltNFCTool(["read", "--device", "sim:?file=\(tagFile)", "--json"])
            #expect(read.status == 0, "\(read.standardError)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(read.standardOutput.utf8)) as? [String: Any])
            let url = try #require(((object["records"] as? [[String: Any]])?.first)?["uri"] as? String)
            #expect(url.hasPrefix("https://ex.io/t?e="))
            let verify = try await runBuiltNFCTool(["sun", "verify", "--json", "--keys", keys, url])
            #expect(verify.status == 0, "\(verify.standardOutput)\(verify.standardError)")
            let tap = try #require(try JSONSerialization.jsonObject(with: Data(verify.standardOutput.utf8)) as? [String: Any])
            #expect(tap["uid"] as? String == "0453494D000001")
            counters.append(try #require(tap["counter"] as? Int))
            // The same URL with one character of the MAC changed is refused.
            let last = url.last == "0" ? "1" : "0"
            #expect(try await runBuiltNFCTool(["sun", "verify", "--keys", keys, String(url.dropLast()) + last]).status == 8)
        }
        // Each selection of the NDEF file counts its first read; `nfctool read` selects it once
        // (status and message from one reading), so the counter grows by one per run, as it
        // does per tap on a phone.
        #expect(counters == [2, 3, 4])
        // The tag file holds the placeholders, not a mirrored URL, and the new keys.
        let state = try String(contentsOfFile: tagFile, encoding: .utf8)
        #expect(state.contains(Self.key0.lowercased()) && state.contains(String(repeating: "30", count: 32)))
        // The factory key no longer opens the chip: a second setup fails to authenticate (exit 9).
        let again = try await runBuiltNFCTool(["ntag424", "setup", "--yes", "--device", "sim:?file=\(tagFile)", "--url", Self.template, "--keys", keys])
        #expect(again.status == 9, "\(again.standardError)")
        #expect(again.standardError.contains("91 AE"))
        #expect(Self.noKeys(again))
    }

    @Test("a second setup says the chip is no longer at factory keys and names --current-keys (exit 9, tag file unchanged); with --current-keys it re-keys the chip, and its taps verify with the new keys only")
    func setupAgainWithCurrentKeys() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let keys = directory.appendingPathComponent("sticker.keys").path
        try Data(Self.keysText.utf8).write(to: URL(fileURLWithPath: keys))
        let newKeys = directory.appendingPathComponent("new.keys").path
        try Data("key0 = 2122232425262728292A2B2C2D2E2F30\nsdmMetaRead = 3132333435363738393A3B3C3D3E3F40\nsdmFileRead = 4142434445464748494A4B4C4D4E4F50\n".utf8)
            .write(to: URL(fileURLWithPath: newKeys))
        let tagFile = directory.appendingPathComponent("sticker.json").path
        let first = try await runBuiltNFCTool(["ntag424", "setup", "--yes", "--device", "sim:ntag424?file=\(tagFile)", "--url", Self.template, "--keys", keys])
        #expect(first.status == 0, "\(first.standardError)")
        let before = try Data(contentsOf: URL(fileURLWithPath: tagFile))
        let again = try await runBuiltNFCTool(["ntag424", "setup", "--yes", "--device", "sim:?file=\(tagFile)", "--url", Self.template, "--keys", newKeys])
        #expect(again.status == 9, "\(again.standardError)")
        #expect(again.standardError.contains("key 0 is no longer the factory key: the chip was set up before"), "\(again.standardError)")
        #expect(again.standardError.contains("--current-keys FILE"), "\(again.standardError)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: tagFile)) == before)
        let rekey = try await runBuiltNFCTool([
            "ntag424", "setup", "--yes", "--device", "sim:?file=\(tagFile)", "--url", Self.template, "--keys", newKeys, "--current-keys", keys,
        ])
        #expect(rekey.status == 0, "\(rekey.standardError)")
        #expect(Self.noKeys(rekey))
        let read = try await runBuiltNFCTool(["read", "--device", "sim:?file=\(tagFile)", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(read.standardOutput.utf8)) as? [String: Any])
        let url = try #require((object["records"] as? [[String: Any]])?.first?["uri"] as? String, "\(read.standardOutput)")
        #expect(try await runBuiltNFCTool(["sun", "verify", "--keys", newKeys, url]).status == 0)
        #expect(try await runBuiltNFCTool(["sun", "verify", "--keys", keys, url]).status != 0)
    }

    @Test("one name, NTAG 424 DNA: scan and info show it, verify --expect-model 'NTAG 424 DNA' passes")
    func oneName() async throws {
        let scan = try await runBuiltNFCTool(["scan", "--device", "sim:ntag424", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(scan.standardOutput.utf8)) as? [String: Any])
        #expect(object["model"] as? String == "NTAG 424 DNA")
        #expect(try await runBuiltNFCTool(["info", "--device", "sim:ntag424"]).standardOutput.contains("NTAG 424 DNA"))
        let verify = try await runBuiltNFCTool(["verify", "--device", "sim:ntag424", "--expect-model", "NTAG 424 DNA"])
        #expect(verify.status == 0, "\(verify.standardOutput)\(verify.standardError)")
    }

    @Test("--plan lists every command with keys masked and sends nothing (no tag file is made); keys from $NFCTOOL_NTAG424_KEYS")
    func plan() async throws {
        let directory = try temporaryDirectory()
        let tagFile = directory.appendingPathComponent("never.json").path
        let run = try await runBuiltNFCTool(
            ["ntag424", "setup", "--yes", "--device", "sim:ntag424?file=\(tagFile)", "--url", Self.template, "--plan"],
            environment: ["NFCTOOL_NTAG424_KEYS": "key0=\(Self.key0);sdmMetaRead=\(Self.metaRead);sdmFileRead=\(Self.fileRead)"])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(Self.noKeys(run))
        for command in ["ISOSelectFile", "AuthenticateEV2First", "WriteData", "ChangeFileSettings", "ChangeKey: key 1", "ChangeKey: key 2", "ChangeKey: key 0"] {
            #expect(run.standardOutput.contains(command), "\(command) missing from the plan")
        }
        #expect(run.standardOutput.contains("PICCDataOffset 17, SDMMACInputOffset 52, SDMMACOffset 52"))
        #expect(!FileManager.default.fileExists(atPath: tagFile))
    }

    @Test("no keys: a usage error (exit 64); a keys file without key0: a data error (exit 65) naming the entry, never a key")
    func refusals() async throws {
        let directory = try temporaryDirectory()
        let noKey0 = directory.appendingPathComponent("partial.keys").path
        try Data("sdmMetaRead = \(Self.metaRead)\nsdmFileRead = \(Self.fileRead)\n".utf8).write(to: URL(fileURLWithPath: noKey0))
        let none = try await runBuiltNFCTool(["ntag424", "setup", "--yes", "--device", "sim:ntag424", "--url", Self.template])
        #expect(none.status == 64 && none.standardError.contains("NFCTOOL_NTAG424_KEYS"))
        let partial = try await runBuiltNFCTool(["ntag424", "setup", "--yes", "--device", "sim:ntag424", "--url", Self.template, "--keys", noKey0])
        #expect(partial.status == 65 && partial.standardError.contains("key0"))
        #expect(Self.noKeys(partial))
    }

    @Test("info on an NTAG 424 DNA shows each file's settings and, after setup, the SDM configuration (text and JSON); null on other chips")
    func info() async throws {
        let directory = try temporaryDirectory()
        let keys = directory.appendingPathComponent("sticker.keys").path
        try Data(Self.keysText.utf8).write(to: URL(fileURLWithPath: keys))
        let tagFile = directory.appendingPathComponent("info.json").path
        let factory = try await runBuiltNFCTool(["info", "--device", "sim:ntag424?file=\(tagFile)"])
        #expect(factory.status == 0, "\(factory.standardError)")
        #expect(factory.standardOutput.contains("    02 NDEF, 256 B, plain: read free, write free, rw free, change 0"), "\(factory.standardOutput)")
        #expect(factory.standardOutput.contains("    03 proprietary, 128 B, full: read 2, write 3, rw 3, change 0"))
        #expect(factory.standardOutput.contains("  NDEF:         read-write\n"), "\(factory.standardOutput)")
        #expect(try await runBuiltNFCTool(["ntag424", "setup", "--yes", "--device", "sim:?file=\(tagFile)", "--url", Self.template, "--keys", keys]).status == 0)
        let text = try await runBuiltNFCTool(["info", "--device", "sim:?file=\(tagFile)"])
        #expect(text.standardOutput.contains("       SDM C1: UID+counter encrypted, key 2; MAC key 1; counter key 1"), "\(text.standardOutput)")
        #expect(text.standardOutput.contains("       PICCDataOffset 17, SDMMACInputOffset 52, SDMMACOffset 52"))
        // What the chip enforces after the setup, as a plain write (exit 9, 6982) finds.
        #expect(text.standardOutput.contains("  NDEF:         read-only without key 0 (the NDEF file's settings)\n"), "\(text.standardOutput)")
        let write = try await runBuiltNFCTool(["write", "--device", "sim:?file=\(tagFile)", "--url", "https://ex.io/x"])
        #expect(write.status != 0, "\(write.standardOutput)")
        let json = try await runBuiltNFCTool(["info", "--json", "--device", "sim:?file=\(tagFile)"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        let files = try #require((object["ntag424"] as? [String: Any])?["files"] as? [[String: Any]])
        let sdm = try #require(files[1]["sdm"] as? [String: Any])
        #expect(sdm["encryptedPICCData"] as? Bool == true && sdm["metaRead"] as? String == "key 2" && sdm["fileRead"] as? String == "key 1")
        let offsets = try #require(sdm["offsets"] as? [[String: Any]])
        #expect(offsets.compactMap { $0["name"] as? String } == ["PICCDataOffset", "SDMMACInputOffset", "SDMMACOffset"])
        #expect(offsets.compactMap { $0["value"] as? Int } == [17, 52, 52])
        let other = try await runBuiltNFCTool(["info", "--json", "--device", "sim:type4"])
        let plain = try #require(try JSONSerialization.jsonObject(with: Data(other.standardOutput.utf8)) as? [String: Any])
        #expect(plain["ntag424"] is NSNull)
    }
}
