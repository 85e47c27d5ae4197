import Foundation
import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

/// DESFire EV2/EV3 in fresh nfctool processes: format and lock ask GetVersion once (the one
/// identification sends), and the key change runs in EV2 secure messaging (AuthenticateEV2First,
/// ChangeKey in Full mode), judged by the tag file, by the trace, by a fresh process
/// authenticating with the new key, and by libfreefare's library through real libnfc and the
/// PN532 emulator (Tests/Oracle/desfire_key_judge.c).
@Suite("MIFARE DESFire EV2/EV3: one GetVersion, key change in EV2 secure messaging", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(10)))
struct DESFireEV2KeyChangeEndToEndTests {
    static let aesKey = DESFireThroughLibNFCTests.aesKey
    static let otherAESKey = DESFireThroughLibNFCTests.otherAESKey

    /// A tag file holding a blank DESFire of `generation` whose PICC master key is AES
    /// ``aesKey`` (key settings 09).
    static func saveAESPICC(_ path: String, generation: DESFireVirtualTag.Generation) throws {
        let image = DESFireImage(piccKeySettings: 0x09, piccMasterKey: try Hex.decode(aesKey), piccKeyTypeBits: DESFire.KeyCount.aes)
        try TagFile(path: path).save(DESFireVirtualTag(uid: hex("04AE5000000003"), image: image, generation: generation).tagState)
    }

    /// The commands of a trace file (JSON lines), as hex.
    static func commands(_ path: String) throws -> [String] { try activations(path).flatMap { $0 } }

    /// The commands of a trace file, as hex, in one list per activation: a `poll` call (the
    /// tag selected, again after a lock for its read-back) starts the next.
    static func activations(_ path: String) throws -> [[String]] {
        var groups: [[String]] = []
        for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") {
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { continue }
            if object["call"] as? String == "poll" { groups.append([]) }
            if let command = object["command"] as? String {
                if groups.isEmpty { groups.append([]) }
                groups[groups.count - 1].append(command.uppercased())
            }
        }
        return groups
    }

    /// How many commands of `commands` start with `prefix` (`9060`: GetVersion).
    static func count(_ commands: [String], _ prefix: String) -> Int { commands.filter { $0.hasPrefix(prefix) }.count }

    @Test("format and lock with AES keys on sim:desfire-ev2 in fresh processes: the activation each runs in holds exactly one GetVersion (90 60, identification's) and AuthenticateEV2First, no AuthenticateAES (lock's read-back, a new activation, identifies afresh)")
    func oneGetVersion() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("desfire.json").path
        try Self.saveAESPICC(file, generation: .ev2)
        let device = "sim:desfire-ev2?file=\(file)"
        let keys = try DESFireThroughLibNFCTests.keyFile(directory, "keys", "picc aes \(Self.aesKey)\napplication aes \(Self.aesKey)\n")
        let formatTrace = directory.appendingPathComponent("format.jsonl").path, lockTrace = directory.appendingPathComponent("lock.jsonl").path
        let formatted = try await runBuiltNFCTool(["format", "--device", device, "--yes", "--ndef-size", "256", "--keys", keys, "--trace", formatTrace])
        #expect(formatted.status == 0, "\(formatted.output)")
        let locked = try await runBuiltNFCTool(["lock", "--device", device, "--yes", "--keys", keys, "--trace", lockTrace])
        #expect(locked.status == 0, "\(locked.output)")
        for trace in [formatTrace, lockTrace] {
            // The activation format or lock runs in holds identification's GetVersion and no
            // other; lock's read-back selects the tag again and identifies it afresh.
            let activations = try Self.activations(trace)
            let working = try #require(activations.first { Self.count($0, "9071") > 0 }, "\(trace): \(activations)")
            #expect(Self.count(working, "9060") == 1 && working.first == "9060000000", "\(trace): \(working)")
            #expect(activations.allSatisfy { Self.count($0, "9060") <= 1 && Self.count($0, "90AA") == 0 }, "\(trace): \(activations)")
        }
        let state = try DESFireThroughLibNFCTests.lockState(file)
        #expect(state.ndefRights == [0xEF, 0xFF] && state.ccWriteAccess == 0xFF, "\(state)")
    }

    @Test("protect on sim:desfire-ev3 in fresh processes: PICC and application keys AES → AES, and a DES PICC key → AES, authenticate with 71 and never AA (one GetVersion); the tag file holds the new keys; a fresh process authenticates with the new keys (a re-run finds them, lock takes the new application key)")
    func keyChangeOnEV3() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("desfire.json").path
        try Self.saveAESPICC(file, generation: .ev3)
        let device = "sim:desfire-ev3?file=\(file)"
        let old = try DESFireThroughLibNFCTests.keyFile(directory, "old.keys", "picc aes \(Self.aesKey)\napplication aes \(Self.aesKey)\n")
        let new = try DESFireThroughLibNFCTests.keyFile(directory, "new.keys", "picc aes version 2 \(Self.otherAESKey)\napplication aes version 9 \(Self.otherAESKey)\n")
        try await DESFireThroughLibNFCTests.formatAndWrite(device, ndefSize: 256, ["--keys", old])
        let trace = directory.appendingPathComponent("protect.jsonl").path
        let changed = try await runBuiltNFCTool(["protect", "--device", device, "--keys", new, "--current-keys", old, "--yes", "--trace", trace])
        #expect(changed.status == 0, "\(changed.output)")
        let sent = try Self.commands(trace)
        #expect(Self.count(sent, "9071") >= 4 && Self.count(sent, "90AA") == 0 && Self.count(sent, "9060") == 1 && sent.first == "9060000000", "\(sent)")
        #expect(Self.count(sent, "90C4") == 2, "\(sent)")
        let image = try DESFireKeyChangeEndToEndTests.image(file)
        #expect(image.piccMasterKey == hex(Self.otherAESKey) && image.piccKeyTypeBits == DESFire.KeyCount.aes && image.piccKeyVersion == 2)
        #expect(image.applications.first?.keys == [hex(Self.otherAESKey)] && image.applications.first?.keyVersions == [9])

        // A fresh process: the old keys refused, the new ones taken (by 71).
        let againTrace = directory.appendingPathComponent("again.jsonl").path
        let again = try await runBuiltNFCTool(["protect", "--device", device, "--keys", new, "--current-keys", old, "--yes", "--trace", againTrace])
        #expect(again.status == 0 && again.standardOutput.contains("already the new one"), "\(again.output)")
        #expect(Self.count(try Self.commands(againTrace), "90AA") == 0)
        let oldLock = try await runBuiltNFCTool(["lock", "--device", device, "--plan", "--keys", old])
        #expect(oldLock.status == 9, "\(oldLock.output)")
        let newLock = try await runBuiltNFCTool(["lock", "--device", device, "--yes", "--keys", new])
        #expect(newLock.status == 0, "\(newLock.output)")
        let read = try await runBuiltNFCTool(["read", "--device", device, "--json"])
        #expect(read.status == 0 && read.standardOutput.contains(DESFireThroughLibNFCTests.url), "\(read.output)")

        // DES → AES at the PICC level on a factory EV3: 0A for the change, 71 for the new key.
        let blank = directory.appendingPathComponent("blank.json").path
        let blankDevice = "sim:desfire-ev3?file=\(blank)"
        try await DESFireThroughLibNFCTests.formatAndWrite(blankDevice, ndefSize: 256)
        let piccOnly = try DESFireThroughLibNFCTests.keyFile(directory, "picc.keys", "picc aes \(Self.aesKey)\n")
        let desTrace = directory.appendingPathComponent("des.jsonl").path
        let fromDES = try await runBuiltNFCTool(["protect", "--device", blankDevice, "--keys", piccOnly, "--yes", "--trace", desTrace])
        #expect(fromDES.status == 0, "\(fromDES.output)")
        let desSent = try Self.commands(desTrace)
        #expect(Self.count(desSent, "900A") == 1 && Self.count(desSent, "9071") == 1 && Self.count(desSent, "90AA") == 0, "\(desSent)")
        let desImage = try DESFireKeyChangeEndToEndTests.image(blank)
        #expect(desImage.piccMasterKey == hex(Self.aesKey) && desImage.piccKeyTypeBits == DESFire.KeyCount.aes)
        let desAgain = try await runBuiltNFCTool(["protect", "--device", blankDevice, "--keys", piccOnly, "--yes"])
        #expect(desAgain.status == 0 && desAgain.standardOutput.contains("already the new one"), "\(desAgain.output)")
        for run in [changed, again, oldLock, newLock, fromDES, desAgain] {
            #expect(DESFireKeyChangeEndToEndTests.holdsNoKey(run.output), "\(run.output)")
        }
        #expect(DESFireKeyChangeEndToEndTests.holdsNoKey(try String(contentsOfFile: trace, encoding: .utf8)))
    }

    @Test("through libnfc and the PN532 emulator on a DESFire EV3, libfreefare judges the key change nfctool made in EV2 secure messaging: the new AES PICC and application keys authenticate (AuthenticateAES), the old ones are refused, the NDEF reads",
          ExternalTool.libfreefareCompiler.trait)
    func libfreefareJudgesEV2KeyChange() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let judge = try await DESFireKeyChangeEndToEndTests.compileJudge(directory)
        let file = directory.appendingPathComponent("desfire.json").path
        try Self.saveAESPICC(file, generation: .ev3)
        let emulator = try await EmulatorProcess.start(["--tag", "desfire-ev3:\(file)"])
        defer { emulator.stop() }
        let old = try DESFireThroughLibNFCTests.keyFile(directory, "old.keys", "picc aes \(Self.aesKey)\napplication aes \(Self.aesKey)\n")
        let new = try DESFireThroughLibNFCTests.keyFile(directory, "new.keys", "picc aes \(Self.otherAESKey)\napplication aes version 5 \(Self.otherAESKey)\n")
        try await DESFireThroughLibNFCTests.formatAndWrite(emulator.connectionString, ndefSize: 512, ["--keys", old])
        let trace = directory.appendingPathComponent("protect.jsonl").path
        let changed = try await runBuiltNFCTool(["protect", "--device", emulator.connectionString, "--keys", new, "--current-keys", old, "--yes", "--trace", trace])
        #expect(changed.status == 0, "\(changed.output)")
        let sent = try Self.commands(trace)
        #expect(Self.count(sent, "9071") >= 4 && Self.count(sent, "90AA") == 0, "\(sent)")
        let message = Hex.encode(try DESFireThroughLibNFCTests.encodedURL(), uppercase: true)

        let application = try await DESFireKeyChangeEndToEndTests.judge(judge, "application", "aes", Self.otherAESKey, emulator)
        #expect(application.status == 0, "\(application.output)")
        #expect(application.standardOutput.contains("key version: 05") && application.standardOutput.contains("ndef: \(message)\n"), "\(application.standardOutput)")
        let picc = try await DESFireKeyChangeEndToEndTests.judge(judge, "picc", "aes", Self.otherAESKey, emulator)
        #expect(picc.status == 0 && picc.standardOutput.contains("applications: 1"), "\(picc.output)")
        for level in ["application", "picc"] {
            let refused = try await DESFireKeyChangeEndToEndTests.judge(judge, level, "aes", Self.aesKey, emulator)
            #expect(refused.status == 2, "\(level): \(refused.output)")
        }
    }
}
