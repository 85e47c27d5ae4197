import Foundation
import NFCCore
import NFCCrypto
import NFCTags
import NDEF
import NFCTestSupport
import Testing
import VirtualTags

/// The virtual NTAG 424 DNA judged from outside: driven with AN12196's RndB and TI it must
/// answer the application note's APDUs byte for byte; the host side (``NTAG424Tag``) runs
/// against it through the simulator, and its state survives the tag file.
@Suite("the virtual NTAG 424 DNA", .timeLimit(.minutes(2)))
struct NTAG424VirtualTagTests {
    /// A chip whose random source hands out `values` in order.
    static func chip(random values: [[UInt8]]) -> NTAG424VirtualTag {
        let tag = NTAG424VirtualTag(uid: hex("04 95 8C AA 5C 5E 80"))
        var queue = values
        tag.random = { count in
            guard !queue.isEmpty else { return [UInt8](repeating: 0x5A, count: count) }
            let next = queue.removeFirst()
            return next.count == count ? next : [UInt8](repeating: 0x5A, count: count)
        }
        _ = tag.respond(toAPDU: hex("00 A4 04 0C 07 D2760000850101 00"))
        return tag
    }

    @Test("with AN12196's RndB and TI the chip answers Tables 14, 17 and 18 exactly, and then holds Table 18's settings")
    func sessionA() throws {
        let tag = Self.chip(random: [AN12196.T14.rndB, AN12196.T14.ti])
        #expect(tag.respond(toAPDU: AN12196.T14.part1APDU) == AN12196.T14.encryptedRndB + [0x91, 0xAF])
        #expect(tag.respond(toAPDU: AN12196.T14.part2APDU) == AN12196.T14.part2Answer + [0x91, 0x00])
        #expect(tag.respond(toAPDU: AN12196.T17.apdu) == AN12196.T17.answer)
        #expect(tag.respond(toAPDU: AN12196.T18.apdu) == AN12196.T18.answer)
        #expect(Array(tag.files[.ndef]?.prefix(0x80) ?? []) == AN12196.T17.data)
        #expect(try tag.fileSettings[.ndef]?.changeData() == AN12196.T18.data)
        // Replaying Table 17 now (CmdCtr 2) fails the MAC: INTEGRITY_ERROR, and the session is gone.
        #expect(tag.respond(toAPDU: AN12196.T17.apdu) == [0x91, 0x1E])
    }

    @Test("Tables 19, 23, 24, 25 and 26 against the chip: key-3 authentication, NonFirst, a plain write, both ChangeKey cases")
    func sessionB() throws {
        let tag = Self.chip(random: [AN12196.T19.rndB, AN12196.T19.ti, AN12196.T23.rndB])
        #expect(tag.respond(toAPDU: hex("90 71 00 00 02 03 00 00")) == AN12196.T19.encryptedRndB + [0x91, 0xAF])
        #expect(tag.respond(toAPDU: hex("90AF000020") + AN12196.T19.part2 + [0x00]) == AN12196.T19.part2Answer + [0x91, 0x00])
        // One MAC-ed command (GetKeyVersion 0) takes CmdCtr to 1, where the note's NonFirst runs.
        var session = try NTAG424Session(keyNumber: 3, transactionIdentifier: AN12196.T19.ti, encryptionKey: AN12196.T19.encKey, macKey: AN12196.T19.macKey)
        let getKeyVersion = try session.sealCommand(0x64, header: [0x00], data: [], mode: .mac)
        let answer = tag.respond(toAPDU: [0x90, 0x64, 0x00, 0x00, UInt8(getKeyVersion.count)] + getKeyVersion + [0x00])
        #expect(try session.openResponse(status: 0x00, body: Array(answer.dropLast(2)), mode: .mac) == [0x00])
        #expect(tag.respond(toAPDU: AN12196.T23.part1APDU) == AN12196.T23.encryptedRndB + [0x91, 0xAF])
        #expect(tag.respond(toAPDU: hex("90AF000020") + AN12196.T23.part2 + [0x00]) == AN12196.T23.part2Answer + [0x91, 0x00])
        #expect(tag.respond(toAPDU: hex("908D000019010E0000120000FF0506E1050080828300000000000000000000")) == [0x91, 0x00])  // Table 24
        #expect(tag.respond(toAPDU: AN12196.T25.apdu) == AN12196.T25.answer)
        #expect(tag.keys[2] == AN12196.T25.newKey && tag.keyVersions[2] == 1)
        #expect(tag.respond(toAPDU: AN12196.T26.apdu) == AN12196.T26.answer)
        #expect(tag.keys[0] == AN12196.T26.newKey && tag.keyVersions[0] == 1)
        // Key 0 changed ends the session: a MAC-ed command is now refused.
        #expect(tag.respond(toAPDU: AN12196.T25.apdu) == [0x91, 0xAE])
    }

    static func connect(_ connection: String, random: (@Sendable (Int) -> [UInt8])? = nil) async throws -> NTAG424Tag {
        let reader = try SimulatorConfiguration.makeReader(connection)
        let target = try #require(try await reader.poll(for: [.iso14443A], timeout: .seconds(2)))
        guard case .iso7816(let iso) = try await NFCTag.connect(to: target, on: reader) else {
            Issue.record("not an ISO-DEP tag")
            throw NTAG424Error(.notSupported, "not ISO-DEP")
        }
        #expect(iso.identity.model == "NTAG 424 DNA")
        return random.map { NTAG424Tag(iso, random: $0) } ?? NTAG424Tag(iso)
    }

    @Test("the host side against the simulator: version, signature, factory settings, authentication, data in all three modes, keys, UID")
    func hostAgainstSimulator() async throws {
        var tag = try await Self.connect("sim:ntag424?uid=04958CAA5C5E80")
        try await tag.selectApplication()
        let version = try await tag.getVersion()
        #expect(version.isNTAGDNA && version.uid == hex("04958CAA5C5E80"))
        #expect(try await tag.readSignature().count == 56)
        #expect(try await tag.getFileSettings(.ndef) == NTAG424FileSettings.factory(.ndef))
        #expect(try await tag.getFileSettings(.proprietary) == NTAG424FileSettings.factory(.proprietary))
        let zero = [UInt8](repeating: 0, count: 16)
        try await tag.authenticateEV2First(keyNumber: 0, key: zero)
        #expect(try await tag.getFileSettings(.capabilityContainer) == NTAG424FileSettings.factory(.capabilityContainer))
        #expect(try await tag.getCardUID() == hex("04958CAA5C5E80"))
        // The proprietary file is Full, read key 2 / write key 3.
        await #expect { try await tag.readData(.proprietary, length: 16, mode: .full) } throws: {
            ($0 as? NTAG424Error)?.status == .permissionDenied && ($0 as? NTAG424Error)?.reason.contains("91 9D (PERMISSION_DENIED)") == true
        }
        #expect(tag.session == nil)
        try await tag.authenticateEV2First(keyNumber: 3, key: zero)
        let secret = Array("proprietary data, written in CommMode.Full".utf8)
        try await tag.writeData(.proprietary, offset: 5, data: secret, mode: .full)
        try await tag.authenticateEV2NonFirst(keyNumber: 2, key: zero)
        #expect(try await tag.readData(.proprietary, offset: 5, length: secret.count, mode: .full) == secret)
        // Keys: change key 1 (needs key 0's session), then authenticate with it.
        try await tag.authenticateEV2First(keyNumber: 0, key: zero)
        let newKey = Array(0x10..<0x20).map(UInt8.init)
        try await tag.changeKey(1, to: newKey, version: 7, oldKey: zero)
        #expect(try await tag.getKeyVersion(1) == 7)
        try await tag.authenticateEV2First(keyNumber: 1, key: newKey)
        await #expect { try await tag.authenticateEV2First(keyNumber: 1, key: zero) } throws: { ($0 as? NTAG424Error)?.code == .authenticationFailed }
        // Key 0 changed ends the session; the new key authenticates, the old one no longer.
        try await tag.authenticateEV2First(keyNumber: 0, key: zero)
        let master = Array(0x40..<0x50).map(UInt8.init)
        try await tag.changeKey(0, to: master, version: 1, oldKey: nil)
        #expect(tag.session == nil)
        await #expect { try await tag.authenticateEV2First(keyNumber: 0, key: zero) } throws: { ($0 as? NTAG424Error)?.code == .authenticationFailed }
        try await tag.authenticateEV2First(keyNumber: 0, key: master)
        // A MAC-mode file: write and read with MACs.
        var settings = NTAG424FileSettings.factory(.ndef)
        settings.commMode = .mac
        settings.accessRights = NTAG424AccessRights(read: .key(0), write: .key(0), readWrite: .key(0), change: .key(0))
        try await tag.changeFileSettings(.ndef, to: settings)
        try await tag.writeData(.ndef, data: Array(repeating: 0xAB, count: 200), mode: .mac)
        #expect(try await tag.readData(.ndef, length: 0, mode: .mac) == Array(repeating: 0xAB, count: 200) + Array(repeating: 0, count: 56))
    }

    @Test("keys, versions, files, settings and SDMReadCtr survive the tag file: a second reader on the same file sees them")
    func tagFilePersists() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ntag424-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let zero = [UInt8](repeating: 0, count: 16), key = Array(repeating: UInt8(0x42), count: 16)
        do {
            var tag = try await Self.connect("sim:ntag424?file=\(path)")
            try await tag.selectApplication()
            try await tag.authenticateEV2First(keyNumber: 0, key: zero)
            try await tag.changeKey(0, to: key, version: 3, oldKey: nil)
        }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("\"model\" : \"ntag424\"") && text.contains(Hex.encode(key)))
        var again = try await Self.connect("sim:?file=\(path)")
        try await again.selectApplication()
        await #expect { try await again.authenticateEV2First(keyNumber: 0, key: zero) } throws: { ($0 as? NTAG424Error)?.code == .authenticationFailed }
        try await again.authenticateEV2First(keyNumber: 0, key: key)
        #expect(try await again.getKeyVersion(0) == 3)
    }

    @Test("a setup's description, debug description and dump name no key; a session's neither")
    func setupRedactsKeys() throws {
        let key0 = "00112233445566778899AABBCCDDEEFF", meta = "0102030405060708090A0B0C0D0E0F10", file = "1112131415161718191A1B1C1D1E1F20"
        let keys = try NTAG424KeyFile(text: "key0=\(key0);sdmMetaRead=\(meta);sdmFileRead=\(file)")
        let setup = try NTAG424Setup(template: try SDMURLTemplate("https://ex.io/t?e={sun:picc}&c={sun:mac}"), keys: keys)
        var dumped = ""
        dump(setup, to: &dumped)
        let session = try NTAG424Session(keyNumber: 0, transactionIdentifier: [1, 2, 3, 4], encryptionKey: hex(key0), macKey: hex(meta))
        var dumpedSession = ""
        dump(session, to: &dumpedSession)
        for text in [String(describing: setup), String(reflecting: setup), dumped, String(describing: session), dumpedSession, setup.steps.map(\.detail).joined()] {
            for key in [key0, meta, file] { #expect(!text.uppercased().contains(key), "\(text)") }
        }
    }

    @Test("plain SDM mirror: each new selection's first read counts; UID and counter appear as upper-case hex at their offsets")
    func plainMirror() throws {
        let tag = Self.chip(random: [])
        var settings = NTAG424FileSettings.factory(.ndef)
        var sdm = NTAG424SDMSettings(metaRead: .free, fileRead: .never)
        sdm.uidOffset = 10
        sdm.readCounterOffset = 30
        settings.sdm = sdm
        // Change the settings through the command itself (change access key 0: authenticate first).
        let challenge = tag.respond(toAPDU: hex("90 71 00 00 02 00 00 00"))
        let rndA = [UInt8](repeating: 0x11, count: 16)
        let (part2, rndBDecrypted) = try NTAG424Authentication.answerChallenge(key: [UInt8](repeating: 0, count: 16), encryptedRndB: Array(challenge.prefix(16)), rndA: rndA)
        let answer = tag.respond(toAPDU: hex("90AF000020") + part2 + [0x00])
        let session = try NTAG424Authentication.finishFirst(
            key: [UInt8](repeating: 0, count: 16), keyNumber: 0, rndA: rndA, rndB: rndBDecrypted, response: Array(answer.prefix(32))).session
        let body = try session.sealCommand(0x5F, header: [0x02], data: try settings.changeData(), mode: .full)
        #expect(tag.respond(toAPDU: [0x90, 0x5F, 0x00, 0x00, UInt8(body.count)] + body + [0x00]).suffix(2) == [0x91, 0x00])
        tag.powerOn()
        func readThroughISO() -> [UInt8] {
            _ = tag.respond(toAPDU: hex("00 A4 04 0C 07 D2760000850101 00"))
            _ = tag.respond(toAPDU: hex("00 A4 00 0C 02 E104"))
            let first = tag.respond(toAPDU: hex("00 B0 00 00 20"))
            let second = tag.respond(toAPDU: hex("00 B0 00 20 20"))
            return Array(first.dropLast(2)) + Array(second.dropLast(2))
        }
        let one = readThroughISO(), two = readThroughISO()
        #expect(Array(one[10..<24]) == Array("04958CAA5C5E80".utf8))
        #expect(Array(one[30..<36]) == Array("000001".utf8))
        #expect(Array(two[30..<36]) == Array("000002".utf8))
        #expect(tag.sdmReadCounter == 2)
        #expect(tag.files[.ndef]?[10] == 0)  // the stored file keeps its own bytes
    }

    @Test("ISO READ BINARY of a plain NDEF message, as any Type 4 reader does it, through the Type 4 mapping")
    func plainNDEFThroughType4() async throws {
        let message = hex("D1 01 0C 55 04 65 78 2E 69 6F 2F 74 3F 78 3D 31")
        let reader = try SimulatorConfiguration.makeReader("sim:ntag424?ndef=\(Hex.encode(message))")
        let target = try #require(try await reader.poll(for: [.iso14443A], timeout: .seconds(2)))
        let tag = try await NFCTag.connect(to: target, on: reader)
        guard case .iso7816(let iso) = tag else { Issue.record("not ISO-DEP"); return }
        let read = try await iso.ndefPlatform.readNDEF()
        #expect(read.records.first?.wellKnownTypeURIPayload() == "https://ex.io/t?x=1")
    }

    /// Authenticates `tag` with key 0 (all zero) through raw APDUs; the chip's randoms come from
    /// its own source.
    static func authenticate(_ tag: NTAG424VirtualTag) throws -> NTAG424Session {
        let zero = [UInt8](repeating: 0, count: 16), rndA = [UInt8](repeating: 0x11, count: 16)
        let challenge = tag.respond(toAPDU: hex("90 71 00 00 02 00 00 00"))
        let (part2, rndB) = try NTAG424Authentication.answerChallenge(key: zero, encryptedRndB: Array(challenge.prefix(16)), rndA: rndA)
        let answer = tag.respond(toAPDU: hex("90AF000020") + part2 + [0x00])
        return try NTAG424Authentication.finishFirst(key: zero, keyNumber: 0, rndA: rndA, rndB: rndB, response: Array(answer.prefix(32))).session
    }

    @Test("AN12196's SUN example from the chip: Table 17's file, Table 18's settings, all-zero keys, UID 04DE5F1EACC040, SDMReadCtr 61 and the note's padding read back as the note's URL")
    func sunExample() throws {
        // The padding the note's chip used: the last 5 bytes of its PICC data, decrypted.
        let piccData = hex("EF963FF7828658A599F3041510671E88")
        let plain = try AES128.decryptCBC(key: Bytes(AN12196.zeroKey), iv: Bytes(AN12196.zeroKey), Bytes(piccData)).array
        #expect(Array(plain.prefix(11)) == hex("C7 04DE5F1EACC040 3D0000"))
        var state = NTAG424VirtualTag(uid: hex("04DE5F1EACC040")).tagState
        state.counters = [60]
        let tag = try #require(NTAG424VirtualTag(state: state))
        var randoms: [[UInt8]] = [[UInt8](repeating: 0x22, count: 16), hex("01020304"), Array(plain.suffix(5)) + [UInt8](repeating: 0, count: 11)]
        tag.random = { count in randoms.isEmpty ? [UInt8](repeating: 0, count: count) : randoms.removeFirst() }
        // The file first, through ISO UPDATE BINARY (write access is free until Table 18's settings).
        _ = tag.respond(toAPDU: hex("00 A4 04 0C 07 D2760000850101 00"))
        _ = tag.respond(toAPDU: hex("00 A4 00 0C 02 E104"))
        for offset in stride(from: 0, to: 0x80, by: 0x40) {
            #expect(tag.respond(toAPDU: [0x00, 0xD6, 0x00, UInt8(offset), 0x40] + Array(AN12196.T17.data[offset..<(offset + 0x40)])) == [0x90, 0x00])
        }
        let session = try Self.authenticate(tag)
        let body = try session.sealCommand(0x5F, header: [0x02], data: AN12196.T18.data, mode: .full)
        #expect(tag.respond(toAPDU: [0x90, 0x5F, 0x00, 0x00, UInt8(body.count)] + body + [0x00]).suffix(2) == [0x91, 0x00])
        tag.powerOn()
        _ = tag.respond(toAPDU: hex("00 A4 04 0C 07 D2760000850101 00"))
        _ = tag.respond(toAPDU: hex("00 A4 00 0C 02 E104"))
        let read = tag.respond(toAPDU: hex("00 B0 00 00 53"))
        let url = String(decoding: read[7..<0x53], as: UTF8.self)
        #expect(url == "choose.url.com/ntag424?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086")
        #expect(tag.sdmReadCounter == 61)
    }
}

@Suite("the virtual NTAG 424 DNA under random APDUs", .timeLimit(.minutes(2)))
struct NTAG424VirtualTagFuzzTests {
    @Test("10 000 seeded random APDUs (wrapped and ISO, any length), some inside an authenticated session: every answer ends in a status word, nothing traps")
    func randomAPDUs() throws {
        var generator = SeededGenerator(seed: 0x424D_4E41)
        let tag = NTAG424VirtualTagTests.chip(random: [])
        let classes: [UInt8] = [0x90, 0x00, 0x90, 0x90, 0x80]
        let instructions: [UInt8] = [0x71, 0x77, 0xAF, 0x5F, 0xC4, 0x51, 0xF5, 0x64, 0x60, 0xAD, 0x8D, 0x3C, 0xA4, 0xB0, 0xD6, 0x00]
        for round in 0..<10_000 {
            if round % 500 == 0 {
                tag.powerOn()
                _ = tag.respond(toAPDU: hex("00 A4 04 0C 07 D2760000850101 00"))
                if round % 1000 == 0 { _ = try NTAG424VirtualTagTests.authenticate(tag) }
            }
            let length = Int.random(in: 0...40, using: &generator)
            var apdu = [classes.randomElement(using: &generator) ?? 0x90, instructions.randomElement(using: &generator) ?? 0x00]
            apdu += (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if length >= 3, Bool.random(using: &generator) {
                apdu[2] = 0
                apdu[3] = 0
                apdu[4] = UInt8(max(0, min(255, apdu.count - 6)))
            }
            let answer = tag.respond(toAPDU: apdu)
            #expect(answer.count >= 2, "\(hexString(apdu))")
        }
    }
}
