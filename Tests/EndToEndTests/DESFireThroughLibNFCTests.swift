import Foundation
import NDEF
import NFCCore
import NFCTestSupport
import Testing
import VirtualTags

/// MIFARE DESFire EV1 as NFC Forum Type 4 (NXP AN11004) in fresh `nfctool` processes, on the
/// simulator and through real libnfc and the PN532 emulator, judged by libfreefare's DESFire
/// tools (an independent implementation of the same command set and application note):
/// libfreefare reads what NFCKit formatted and wrote, NFCKit reads what libfreefare wrote, and
/// `mifare-desfire-info` accepts the virtual chip.
@Suite("MIFARE DESFire EV1 through nfctool, libnfc and libfreefare", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(10)))
struct DESFireThroughLibNFCTests {
    static let url = "https://example.com/desfire"

    /// The encoded URI message `nfctool write --url` stores for ``url``.
    static func encodedURL() throws -> [UInt8] {
        try NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: url)]).encoded()
    }

    /// `nfctool format --yes` (with `--ndef-size` when given, and any `extra` options) then
    /// `nfctool write --url` ``url`` on `device`, each in a fresh process that must exit 0.
    static func formatAndWrite(_ device: String, ndefSize: Int? = nil, _ extra: [String] = []) async throws {
        let formatted = try await runBuiltNFCTool(["format", "--device", device, "--yes"] + (ndefSize.map { ["--ndef-size", String($0)] } ?? []) + extra)
        #expect(formatted.status == 0, "\(formatted.output)")
        let written = try await runBuiltNFCTool(["write", "--device", device, "--url", url])
        #expect(written.status == 0, "\(written.output)")
    }

    @Test("format, write, read and info in fresh nfctool processes on sim:desfire-ev1, the tag file between them")
    func simulator() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let device = "sim:desfire-ev1?file=\(directory.appendingPathComponent("desfire.json").path)"
        let plan = try await runBuiltNFCTool(["format", "--device", device, "--plan"])
        #expect(plan.status == 0, "\(plan.output)")
        #expect(plan.standardOutput.contains("CreateApplication, native DESFire command CA") && plan.standardOutput.contains("7 writes"), "\(plan.standardOutput)")
        let formatted = try await runBuiltNFCTool(["format", "--device", device, "--yes", "--ndef-size", "2048"])
        #expect(formatted.status == 0, "\(formatted.output)")
        #expect(formatted.standardOutput.contains("2046 bytes free"), "\(formatted.standardOutput)")
        let written = try await runBuiltNFCTool(["write", "--device", device, "--url", Self.url])
        #expect(written.status == 0, "\(written.output)")
        let read = try await runBuiltNFCTool(["read", "--device", device, "--json"])
        #expect(read.status == 0, "\(read.output)")
        #expect(read.standardOutput.contains(Self.url))
        let info = try await runBuiltNFCTool(["info", "--device", device])
        #expect(info.status == 0, "\(info.output)")
        #expect(info.standardOutput.contains("MIFARE DESFire EV1 4K"))
        #expect(info.standardOutput.contains("000001 (NFC Forum Type 4, AN11004)"))
        #expect(info.standardOutput.contains("free memory:  2528 bytes"), "\(info.standardOutput)")
        let again = try await runBuiltNFCTool(["format", "--device", device, "--yes"])
        #expect(again.status == 11, "\(again.output)")
    }

    @Test("a wrong PICC master key from --keys is refused (exit 9), nothing is created, and no key digit is printed")
    func wrongKey() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("desfire.json").path
        let keys = directory.appendingPathComponent("picc.key")
        try Data("# PICC master key\n1122334455667788\n".utf8).write(to: keys)
        let run = try await runBuiltNFCTool(["format", "--device", "sim:desfire-ev1?file=\(file)", "--yes", "--keys", keys.path])
        #expect(run.status == 9, "\(run.output)")
        #expect(!run.output.contains("1122") && !run.output.contains("11 22"))
        let tag = try #require(try TagFile(path: file).loadTag() as? DESFireVirtualTag)
        #expect(tag.image.applications.isEmpty)
    }

    @Test("mifare-desfire-info accepts the virtual chip; libfreefare's read-ndef reads what nfctool formatted and wrote through libnfc",
          ExternalTool.mifareDESFireInfo.trait, ExternalTool.mifareDESFireReadNDEF.trait)
    func libfreefareReadsOurs() async throws {
        let info = try ExternalTool.mifareDESFireInfo.require()
        let readNDEF = try ExternalTool.mifareDESFireReadNDEF.require()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("desfire.json").path
        let emulator = try await EmulatorProcess.start(["--tag", "desfire-ev1:\(file)"])
        defer { emulator.stop() }
        let blank = try await runTool(info, [], against: emulator, timeout: 30)
        #expect(blank.status == 0, "\(blank.output)")
        #expect(blank.output.contains("Storage size:         0x18 (=4096 bytes)") && blank.output.contains("Free memory: 4608 bytes"), "\(blank.output)")
        try await Self.formatAndWrite(emulator.connectionString)
        let output = directory.appendingPathComponent("ndef.bin")
        let read = try await runTool(readNDEF, ["-y", "-o", output.path], against: emulator, timeout: 30)
        #expect(read.status == 0, "\(read.output)")
        #expect(read.output.contains("Max NDEF size: 4576 bytes"), "\(read.output)")
        #expect([UInt8](try Data(contentsOf: output)) == (try Self.encodedURL()))
        let after = try await runTool(info, [], against: emulator, timeout: 30)
        #expect(after.status == 0 && after.output.contains("Free memory: 0 bytes"), "\(after.output)")
    }

    @Test("libfreefare's mifare-desfire-format empties the virtual DESFire nfctool formatted and wrote (FormatPICC under the PICC master key): the tag file holds no application, memory is free again, and nfctool formats it anew",
          ExternalTool.mifareDESFireFormat.trait, ExternalTool.mifareDESFireInfo.trait)
    func libfreefareFormatsPICC() async throws {
        let formatPICC = try ExternalTool.mifareDESFireFormat.require()
        let info = try ExternalTool.mifareDESFireInfo.require()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("desfire.json").path
        let emulator = try await EmulatorProcess.start(["--tag", "desfire-ev1:\(file)"])
        defer { emulator.stop() }
        try await Self.formatAndWrite(emulator.connectionString)
        let formatted = try await runTool(formatPICC, ["-y"], against: emulator, timeout: 30)
        #expect(formatted.status == 0, "\(formatted.output)")
        // FormatPICC (90 FC) went through the emulator after an authentication.
        #expect(emulator.trace.contains { $0.contains("90 FC 00 00") }, "\(emulator.trace)")
        _ = try await emulator.control("save")
        let tag = try #require(try TagFile(path: file).loadTag() as? DESFireVirtualTag)
        #expect(tag.image.applications.isEmpty)
        let after = try await runTool(info, [], against: emulator, timeout: 30)
        #expect(after.output.contains("Free memory: 4608 bytes"), "\(after.output)")
        let read = try await runBuiltNFCTool(["read", "--device", emulator.connectionString])
        #expect(read.status != 0, "a formatted PICC still reads as NDEF: \(read.output)")
        try await Self.formatAndWrite(emulator.connectionString)
    }

    @Test("nfctool reads and rewrites a DESFire that libfreefare's create-ndef and write-ndef made; format then leaves it alone",
          ExternalTool.mifareDESFireCreateNDEF.trait, ExternalTool.mifareDESFireWriteNDEF.trait, ExternalTool.mifareDESFireReadNDEF.trait)
    func weReadLibfreefares() async throws {
        let create = try ExternalTool.mifareDESFireCreateNDEF.require()
        let writeNDEF = try ExternalTool.mifareDESFireWriteNDEF.require()
        let readNDEF = try ExternalTool.mifareDESFireReadNDEF.require()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("desfire.json").path
        let emulator = try await EmulatorProcess.start(["--tag", "desfire-ev1:\(file)"])
        defer { emulator.stop() }
        let created = try await runTool(create, ["-y"], against: emulator, timeout: 30)
        #expect(created.status == 0, "\(created.output)")
        let input = directory.appendingPathComponent("in.bin")
        try Data(try Self.encodedURL()).write(to: input)
        let written = try await runTool(writeNDEF, ["-y", "-i", input.path], against: emulator, timeout: 30)
        #expect(written.status == 0, "\(written.output)")
        let read = try await runBuiltNFCTool(["read", "--device", emulator.connectionString, "--json"])
        #expect(read.status == 0, "\(read.output)")
        #expect(read.standardOutput.contains(Self.url), "\(read.standardOutput)")
        // libfreefare sized the NDEF file 4096 bytes (storage 4 KB): the Type 4 path sees 4094 free.
        let info = try await runBuiltNFCTool(["info", "--device", emulator.connectionString])
        #expect(info.standardOutput.contains("capacity:     4094 bytes"), "\(info.standardOutput)")
        let format = try await runBuiltNFCTool(["format", "--device", emulator.connectionString, "--yes"])
        #expect(format.status == 11, "\(format.output)")
        // Rewritten here, read back by libfreefare.
        let rewritten = try await runBuiltNFCTool(["write", "--device", emulator.connectionString, "--text", "über NFCKit"])
        #expect(rewritten.status == 0, "\(rewritten.output)")
        let output = directory.appendingPathComponent("out.bin")
        let again = try await runTool(readNDEF, ["-y", "-o", output.path], against: emulator, timeout: 30)
        #expect(again.status == 0, "\(again.output)")
        let message = try NDEFMessage(bytes: [UInt8](try Data(contentsOf: output)))
        #expect(message.records.count == 1)
        #expect(String(decoding: message.records[0].payload.array.dropFirst(3), as: UTF8.self) == "über NFCKit")
    }

    // MARK: lock

    /// The NDEF file's settings and the CC in a tag file, by the test's own reading of the image
    /// layout (DESFireImage's doc comment): file `02` with ISO ID `E104` is `02 01 E1 04`, then
    /// communication settings and access rights (big-endian); file `01` (`E103`) the same, then
    /// its size (3 bytes) and the 15 CC bytes.
    static func lockState(_ path: String) throws -> (ndefRights: [UInt8], ccWriteAccess: UInt8) {
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        let hex = try #require(json["memory"] as? String)
        let image: [UInt8] = stride(from: 0, to: hex.count, by: 2).compactMap { start in
            let index = hex.index(hex.startIndex, offsetBy: start)
            return UInt8(hex[index..<hex.index(index, offsetBy: 2)], radix: 16)
        }
        func find(_ pattern: [UInt8]) throws -> Int {
            try #require((0...(image.count - pattern.count)).first { Array(image[$0..<($0 + pattern.count)]) == pattern }, "\(pattern) not in the image")
        }
        let ndef = try find([0x02, 0x01, 0xE1, 0x04])
        let cc = try find([0x01, 0x01, 0xE1, 0x03])
        let ccBytes = Array(image[(cc + 10)..<(cc + 25)])
        #expect(Array(image[(cc + 7)..<(cc + 10)]) == [0x00, 0x00, 0x0F] && ccBytes[7] == 0x04, "the CC file is not 15 bytes holding the NDEF File Control TLV")
        return (Array(image[(ndef + 5)..<(ndef + 7)]), ccBytes[14])
    }

    @Test("lock on sim:desfire-ev1: --plan lists ChangeFileSettings and the CC write and sends neither; --yes makes the NDEF file EFFF and the CC FF; write is refused, read still works")
    func lockOnSimulator() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("desfire.json").path
        let device = "sim:desfire-ev1?file=\(file)"
        try await Self.formatAndWrite(device, ndefSize: 256)
        let before = try Self.lockState(file)
        #expect(before.ndefRights == [0xEE, 0xE0] && before.ccWriteAccess == 0x00)
        let plan = try await runBuiltNFCTool(["lock", "--device", device, "--plan"])
        #expect(plan.status == 0, "\(plan.output)")
        #expect(plan.standardOutput.contains("ChangeSettings   file 02 (settings enciphered)") && plan.standardOutput.contains("WriteData        01 0E 00 00 01 00 00 FF"), "\(plan.standardOutput)")
        #expect(plan.standardOutput.contains("2 writes"), "\(plan.standardOutput)")
        let planned = try Self.lockState(file)
        #expect(planned.ndefRights == before.ndefRights && planned.ccWriteAccess == before.ccWriteAccess, "--plan changed the tag")
        let unconfirmed = try await runBuiltNFCTool(["lock", "--device", device])
        #expect(unconfirmed.status == 64, "\(unconfirmed.output)")
        let locked = try await runBuiltNFCTool(["lock", "--device", device, "--yes"])
        #expect(locked.status == 0, "\(locked.output)")
        #expect(locked.standardOutput.contains("now reports read-only"), "\(locked.standardOutput)")
        let after = try Self.lockState(file)
        #expect(after.ndefRights == [0xEF, 0xFF] && after.ccWriteAccess == 0xFF, "\(after)")
        let write = try await runBuiltNFCTool(["write", "--device", device, "--text", "after the lock"])
        #expect(write.status == 5, "\(write.output)")
        let read = try await runBuiltNFCTool(["read", "--device", device, "--json"])
        #expect(read.status == 0 && read.standardOutput.contains(Self.url), "\(read.output)")
        // A second lock finds everything done and changes nothing (change never refuses anyway).
        let again = try await runBuiltNFCTool(["lock", "--device", device, "--yes"])
        #expect(again.status == 0, "\(again.output)")
    }

    @Test("lock through libnfc and the PN532 emulator: the tag file holds EFFF and CC FF, libfreefare's read-ndef still reads the message",
          ExternalTool.mifareDESFireReadNDEF.trait)
    func lockThroughLibNFC() async throws {
        let readNDEF = try ExternalTool.mifareDESFireReadNDEF.require()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("desfire.json").path
        let emulator = try await EmulatorProcess.start(["--tag", "desfire-ev1:\(file)"])
        defer { emulator.stop() }
        try await Self.formatAndWrite(emulator.connectionString, ndefSize: 512)
        let locked = try await runBuiltNFCTool(["lock", "--device", emulator.connectionString, "--yes"])
        #expect(locked.status == 0, "\(locked.output)")
        let write = try await runBuiltNFCTool(["write", "--device", emulator.connectionString, "--text", "after the lock"])
        #expect(write.status == 5, "\(write.output)")
        let output = directory.appendingPathComponent("ndef.bin")
        let read = try await runTool(readNDEF, ["-y", "-o", output.path], against: emulator, timeout: 30)
        #expect(read.status == 0, "\(read.output)")
        #expect([UInt8](try Data(contentsOf: output)) == (try Self.encodedURL()))
        emulator.stop()
        let state = try Self.lockState(file)
        #expect(state.ndefRights == [0xEF, 0xFF] && state.ccWriteAccess == 0xFF, "\(state)")
    }

    // MARK: keys other than the factory DES key

    static let aesKey = "00112233445566778899AABBCCDDEEFF"
    static let otherAESKey = "F0E1D2C3B4A5968778695A4B3C2D1E0F"

    /// A tag file holding a blank DESFire EV2 whose PICC master key is AES ``aesKey``, with key
    /// settings 09: listing and creating applications need that key.
    static func saveAESPICC(_ path: String) throws {
        let image = DESFireImage(piccKeySettings: 0x09, piccMasterKey: try Hex.decode(aesKey), piccKeyTypeBits: 0x80)
        try TagFile(path: path).save(DESFireVirtualTag(uid: hex("04AE5000000001"), image: image, generation: .ev2).tagState)
    }

    /// A key file in `directory` holding `text`.
    static func keyFile(_ directory: URL, _ name: String, _ text: String) throws -> String {
        let file = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        return file.path
    }

    @Test("AES keys from --keys in fresh nfctool processes on sim:desfire-ev2 (so in EV2 secure messaging): a wrong PICC key exits 9 with the tag file unchanged; the right one formats, the NDEF application made AES with the given key; lock needs the NDEF application's AES key (without it exit 9, unchanged), --plan sends no write, then EFFF and CC FF; no key digit is ever printed")
    func aesKeysOnSimulator() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("desfire.json").path
        let device = "sim:desfire-ev2?file=\(file)"
        try Self.saveAESPICC(file)
        let blank = try Data(contentsOf: URL(fileURLWithPath: file))
        let wrong = try Self.keyFile(directory, "wrong.key", "# not this card's\npicc aes \(Self.otherAESKey)\n")
        let refused = try await runBuiltNFCTool(["format", "--device", device, "--yes", "--keys", wrong])
        #expect(refused.status == 9, "\(refused.output)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == blank, "a refused key changed the tag file")
        let keys = try Self.keyFile(directory, "right.key", "picc aes \(Self.aesKey)\napplication aes \(Self.aesKey)\n")
        let plan = try await runBuiltNFCTool(["format", "--device", device, "--plan", "--keys", keys])
        // CreateApplication, SelectApplication, AuthenticateEV2First and its AF frame, ChangeKey, AuthenticateEV2First with the
        // new key and its AF frame (the planned application's stand-in chip ran the ChangeKey), two CreateStdDataFile, WriteData.
        #expect(plan.status == 0 && plan.standardOutput.contains("10 writes"), "\(plan.output)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == blank, "--plan changed the tag file")
        try await Self.formatAndWrite(device, ndefSize: 256, ["--keys", keys])
        let image = try #require(try TagFile(path: file).loadTag() as? DESFireVirtualTag).image
        let applicationKey = try Hex.decode(Self.aesKey)
        #expect(image.applications.first?.keyCount == 0xA1 && image.applications.first?.keys == [applicationKey], "format made the application AES")
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        let factory = try await runBuiltNFCTool(["lock", "--device", device, "--yes"])
        #expect(factory.status == 9, "\(factory.output)")
        let wrongLock = try await runBuiltNFCTool(["lock", "--device", device, "--yes", "--keys", wrong])
        #expect(wrongLock.status == 9, "\(wrongLock.output)")
        let lockPlan = try await runBuiltNFCTool(["lock", "--device", device, "--plan", "--keys", keys])
        #expect(lockPlan.status == 0 && lockPlan.standardOutput.contains("2 writes"), "\(lockPlan.output)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before, "a refused or planned lock changed the tag file")
        let locked = try await runBuiltNFCTool(["lock", "--device", device, "--yes", "--keys", keys])
        #expect(locked.status == 0, "\(locked.output)")
        let state = try Self.lockState(file)
        #expect(state.ndefRights == [0xEF, 0xFF] && state.ccWriteAccess == 0xFF, "\(state)")
        let read = try await runBuiltNFCTool(["read", "--device", device, "--json"])
        #expect(read.status == 0 && read.standardOutput.contains(Self.url), "\(read.output)")
        for run in [refused, plan, factory, wrongLock, lockPlan, locked] {
            #expect(!run.output.uppercased().contains("0011 2233") && !run.output.uppercased().contains("00112233") && !run.output.uppercased().contains("F0E1"))
        }
    }

    @Test("AES keys through libnfc and the PN532 emulator on a DESFire EV2 (EV2 secure messaging: AuthenticateEV2First, MAC-ed commands, in the trace): format with the AES PICC and application keys, write, lock with the NDEF application's AES key; a fresh nfctool reads the message and finds the tag read-only; the tag file holds EFFF and CC FF")
    func aesKeysThroughLibNFC() async throws {
        // libfreefare's read-ndef authenticates to the NDEF application with a DES key (its -k
        // takes 8 bytes), so it cannot judge an AES application key: nfctool in a fresh process
        // and the tag file do here; libfreefare's library does in DESFireKeyChangeEndToEndTests.
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("desfire.json").path
        try Self.saveAESPICC(file)
        let keys = try Self.keyFile(directory, "keys", "picc aes \(Self.aesKey)\napplication aes \(Self.aesKey)\n")
        let trace = directory.appendingPathComponent("format.jsonl").path
        do {
            let emulator = try await EmulatorProcess.start(["--tag", "desfire-ev2:\(file)"])
            defer { emulator.stop() }
            try await Self.formatAndWrite(emulator.connectionString, ndefSize: 512, ["--keys", keys, "--trace", trace])
        }
        // On an EV2 the AES PICC key takes AuthenticateEV2First (71), and the PICC commands after
        // it carry MACt (GetApplicationIDs with Lc 08); AuthenticateAES is not sent.
        let traced = try String(contentsOfFile: trace, encoding: .utf8)
        #expect(traced.contains("\"command\":\"90710000") && traced.contains("\"command\":\"906A000008") && !traced.contains("\"command\":\"90AA"), "\(traced)")
        let emulator = try await EmulatorProcess.start(["--tag", "desfire-ev2:\(file)"])
        defer { emulator.stop() }
        let refused = try await runBuiltNFCTool(["lock", "--device", emulator.connectionString, "--yes"])
        #expect(refused.status == 9, "\(refused.output)")
        let locked = try await runBuiltNFCTool(["lock", "--device", emulator.connectionString, "--yes", "--keys", keys])
        #expect(locked.status == 0, "\(locked.output)")
        let read = try await runBuiltNFCTool(["read", "--device", emulator.connectionString, "--json"])
        #expect(read.status == 0 && read.standardOutput.contains(Self.url), "\(read.output)")
        let verified = try await runBuiltNFCTool(["verify", "--device", emulator.connectionString, "--expect-read-only", "--expect-url", Self.url])
        #expect(verified.status == 0, "\(verified.output)")
        emulator.stop()
        let state = try Self.lockState(file)
        #expect(state.ndefRights == [0xEF, 0xFF] && state.ccWriteAccess == 0xFF, "\(state)")
    }

    // MARK: batch

    @Test("batch provisions a stack of three DESFire EV1 that nfctool format made Type 4, from a small manifest; each tag file holds its row, the ledger three done")
    func batchFromManifest() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tags = directory.appendingPathComponent("tags").path
        try FileManager.default.createDirectory(atPath: tags, withIntermediateDirectories: true)
        let first: [UInt8] = [0x04, 0xD0, 0x00, 0x00, 0x00, 0xAA, 0x01]
        let uids = (0..<3).map { index in first.enumerated().map { $0.offset == 6 ? $0.element + UInt8(index) : $0.element } }
        for uid in uids {
            let file = tags + "/" + Hex.encode(uid) + ".json"
            let formatted = try await runBuiltNFCTool(["format", "--device", "sim:desfire-ev1?uid=\(Hex.encode(uid))&file=\(file)", "--yes", "--ndef-size", "128"])
            #expect(formatted.status == 0, "\(formatted.output)")
        }
        let manifest = directory.appendingPathComponent("run.csv").path
        try "url\nhttps://ex.io/desfire/a\nhttps://ex.io/desfire/b\nhttps://ex.io/desfire/c\n".write(toFile: manifest, atomically: true, encoding: .utf8)
        let ledger = directory.appendingPathComponent("run.db").path
        let run = try await runBuiltNFCTool(
            ["batch", "--device", "sim:desfire-ev1*3?poll-wait=0&uid=\(Hex.encode(first))&dir=\(tags)", "--manifest", manifest, "--count", "3", "--ledger", ledger, "--json"],
            timeout: 60)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("\"done\" : 3"), "\(run.output)")
        // Each tag file read back by a fresh process, in the order the stack handed them out.
        for (uid, row) in zip(uids, ["a", "b", "c"]) {
            let read = try await runBuiltNFCTool(["read", "--device", "sim:desfire-ev1?file=\(tags)/\(Hex.encode(uid)).json", "--json"])
            #expect(read.status == 0 && read.standardOutput.contains("https://ex.io/desfire/\(row)"), "\(Hex.encode(uid)): \(read.output)")
        }
        let stats = try await runBuiltNFCTool(["ledger", "stats", ledger])
        #expect(stats.status == 0 && stats.output.contains("tags done:    3"), "\(stats.output)")
    }

    @Test("batch --format --lock --yes on two blank DESFire EV1: each is formatted, written, and locked (NDEF file EFFF, CC FF in its tag file)")
    func batchFormatAndLock() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tags = directory.appendingPathComponent("tags").path
        let manifest = directory.appendingPathComponent("run.csv").path
        try "url\nhttps://ex.io/locked/a\nhttps://ex.io/locked/b\n".write(toFile: manifest, atomically: true, encoding: .utf8)
        let run = try await runBuiltNFCTool(
            ["batch", "--device", "sim:desfire-ev1*2?poll-wait=0&dir=\(tags)", "--manifest", manifest, "--count", "2", "--format", "--lock", "--yes",
             "--ledger", directory.appendingPathComponent("run.db").path],
            timeout: 60)
        #expect(run.status == 0, "\(run.output)")
        let files = try FileManager.default.contentsOfDirectory(atPath: tags).filter { $0.hasSuffix(".json") }.sorted()
        #expect(files.count == 2)
        for (name, row) in zip(files, ["a", "b"]) {
            let state = try Self.lockState(tags + "/" + name)
            #expect(state.ndefRights == [0xEF, 0xFF] && state.ccWriteAccess == 0xFF, "\(name): \(state)")
            let verified = try await runBuiltNFCTool(["verify", "--device", "sim:desfire-ev1?file=\(tags)/\(name)", "--expect-read-only", "--expect-url", "https://ex.io/locked/\(row)"])
            #expect(verified.status == 0, "\(name): \(verified.output)")
        }
    }

    // MARK: EV2, EV3

    @Test("info on sim:desfire-ev2 / -ev3 in a fresh process: the model, GetVersion, and a real chip's Read_Sig genuine under NXP's key; through libnfc too")
    func ev2AndEV3Info() async throws {
        let ev2UID = "042A41CAE45380"
        let ev2Signature = "B2769F8DDB575AEA2A680ADCA8FFED4FAB81A1E9908E2B82FE0FABB697BBD9B23835C416970E75768F12902ACA491349E94E6589EAF4F508"
        let ev2 = try await runBuiltNFCTool(["info", "--device", "sim:desfire-ev2?uid=\(ev2UID)&signature=\(ev2Signature)"])
        #expect(ev2.status == 0, "\(ev2.output)")
        #expect(ev2.standardOutput.contains("MIFARE DESFire EV2 4K") && ev2.standardOutput.contains("hardware 18.0, software 2.1"), "\(ev2.standardOutput)")
        #expect(ev2.standardOutput.contains("genuine:      yes (NXP MIFARE DESFire EV2 key)"), "\(ev2.standardOutput)")
        let ev3UID = "04448BD2DB6B80"
        let ev3Signature = "5CBB5632795C8F15263FEFB095B51C7B541AFD914A1AE44EF6FB8AF605EDF13DBFEE6C3A2DB372245E671DFE0D42CB1F0D0B8FE67A89D2F6"
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("ev3.json").path
        // The tag file made by a first process keeps the signature for the emulator's.
        #expect(try await runBuiltNFCTool(["format", "--device", "sim:desfire-ev3?uid=\(ev3UID)&signature=\(ev3Signature)&file=\(file)", "--yes"]).status == 0)
        let emulator = try await EmulatorProcess.start(["--tag", "desfire-ev3:\(file)"])
        defer { emulator.stop() }
        let ev3 = try await runBuiltNFCTool(["info", "--device", emulator.connectionString])
        #expect(ev3.status == 0, "\(ev3.output)")
        #expect(ev3.standardOutput.contains("MIFARE DESFire EV3") && ev3.standardOutput.contains("hardware 51.0"), "\(ev3.standardOutput)")
        #expect(ev3.standardOutput.contains("genuine:      yes (NXP MIFARE DESFire EV3 key)"), "\(ev3.standardOutput)")
        #expect(ev3.standardOutput.contains("000001 (NFC Forum Type 4, AN11004)"), "\(ev3.standardOutput)")
    }
}
