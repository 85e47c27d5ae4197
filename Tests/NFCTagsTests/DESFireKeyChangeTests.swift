import NDEF
import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

/// Changing a DESFire's keys (``DESFireTag/changeKeys(_:)``) on the virtual chip: the exact
/// commands, the refusals that write nothing, the resume after a cut, the tearing sweep, key
/// versions, and formatting with a given application key.
@Suite("MIFARE DESFire key change: PICC master key and NDEF application key", .timeLimit(.minutes(5)))
struct DESFireKeyChangeTests {
    static let aesKey = DESFireEV1Tests.aesKey
    static let key2K = DESFireEV1Tests.key2K

    /// A blank DESFire EV2 formatted by NFCKit with the factory keys, on a fresh simulator.
    static func formatted() async throws -> DESFireImage {
        let (reader, tag, _) = try await DESFireEV1Tests.connect(DESFireImage(), options: DESFireFormatOptions(ndefFileSize: 128))
        try await tag.ndef.format(force: false)
        return try await DESFireEV1Tests.chip(reader) { $0.image }
    }

    /// The DESFire commands on `reader` (the planning reader when there is one).
    static func desfire(_ reader: any NFCReader) -> DESFireTag { DESFireTag(reader: reader) }

    static let change = DESFireKeyChange(newPICCKey: aesKey, newApplicationKey: key2K, applicationKeyVersion: 0x5A)

    @Test("PICC DES → AES and application DES → 2K3DES version 5A: the exact commands, each change confirmed by authenticating with the new key; the chip holds the new keys and GetKeyVersion answers 5A")
    func changesBoth() async throws {
        let image = try await Self.formatted()
        let (reader, tag, _) = try await DESFireEV1Tests.connect(image, options: DESFireFormatOptions())
        let start = await reader.commandCount
        let outcome = try await Self.desfire(reader).changeKeys(Self.change)
        #expect(outcome == DESFireKeyChange.Outcome(application: .changed, picc: .changed))
        let sent = await DESFireEV1Tests.commands(reader, from: start)
        // A DESFireTag made without identification's hardware part asks GetVersion once, at the
        // PICC level before any authentication (a new AES key: does the chip take
        // AuthenticateEV2First? An EV1 does not).
        #expect(sent == ["905A", "9060", "90AF", "90AF", "905A", "900A", "90AF", "905A", "900A", "90AF", "9045", "90C4", "900A", "90AF", "905A", "900A", "90AF", "90C4", "90AA", "90AF"], "\(sent)")
        let versioned = Self.key2K.withVersion(0x5A)
        #expect(try await DESFireEV1Tests.chip(reader) { $0.image.piccKeyTypeBits == 0x80 && $0.image.piccMasterKey == Self.aesKey.bytes })
        #expect(try await DESFireEV1Tests.chip(reader) { $0.image.applications[0].keys == [versioned.bytes] })
        let desfire = Self.desfire(reader)
        try await desfire.selectApplication(DESFire.TypeFourMapping.applicationID)
        #expect(try await desfire.keyVersion(0) == 0x5A)
        #expect(try await tag.ndef.queryNDEFStatus().status == .readWrite)
    }

    @Test("a refused current key (and new key) writes nothing; an AES application key on a DES application is refused before any write; no key digit in an error")
    func refusals() async throws {
        let image = try await Self.formatted()
        let wrong = DESFireKeyChange(currentPICCKey: DESFireEV1Tests.otherAESKey, newPICCKey: Self.aesKey, newApplicationKey: Self.key2K)
        let (reader, _, _) = try await DESFireEV1Tests.connect(image, options: DESFireFormatOptions())
        let desfire = Self.desfire(reader)
        do throws(DESFireError) {
            try await desfire.changeKeys(wrong)
            Issue.record("a wrong current key was taken")
        } catch {
            #expect(error.code == .authenticationFailed)
            #expect(!error.reason.contains("0011") && !error.reason.contains("F0E1"))
        }
        #expect(try await DESFireEV1Tests.chip(reader) { $0.image } == image)
        do throws(DESFireError) {
            try await desfire.changeKeys(DESFireKeyChange(newApplicationKey: Self.aesKey))
            Issue.record("an AES key on a DES application was taken")
        } catch {
            #expect(error.code == .invalidParameter && error.reason.contains("fixed when it is created"), "\(error)")
        }
        #expect(try await DESFireEV1Tests.chip(reader) { $0.image } == image)
    }

    @Test("run again with the same keys after it went through: the current keys are refused, the new ones taken: already changed, nothing written")
    func rerunFindsNewKeys() async throws {
        let image = try await Self.formatted()
        let (reader, _, _) = try await DESFireEV1Tests.connect(image, options: DESFireFormatOptions())
        try await Self.desfire(reader).changeKeys(Self.change)
        let changed = try await DESFireEV1Tests.chip(reader) { $0.image }
        let again = try await Self.desfire(reader).changeKeys(Self.change)
        #expect(again == DESFireKeyChange.Outcome(application: .alreadyChanged, picc: .alreadyChanged))
        #expect(try await DESFireEV1Tests.chip(reader) { $0.image } == changed)
    }

    @Test("--plan: the authentications reach the chip, both ChangeKeys are planned (key bytes enciphered, never shown), the chip is unchanged")
    func planned() async throws {
        let image = try await Self.formatted()
        let (reader, _, plan) = try await DESFireEV1Tests.connect(image, options: DESFireFormatOptions(), planning: true)
        var change = Self.change
        change.planning = true
        try await Self.desfire(try #require(plan)).changeKeys(change)
        let writes = try #require(await plan?.writes)
        #expect(writes.map { $0.command.array[1] } == [0xC4, 0xC4])
        let described = writes.map { PlannedWriteDescription($0, profile: nil) }
        #expect(described.map(\.data) == ["key 00 (enciphered)", "key 80 (enciphered)"])
        #expect(try await DESFireEV1Tests.chip(reader) { $0.image } == image)
    }

    /// A formatted DESFire whose PICC master key and NDEF application key 0 are both AES
    /// ``aesKey`` (an application made AES by format: key count `A1`).
    static func aesImage() throws -> DESFireImage {
        var image = try DESFireEV1Tests.aesApplicationImage()
        image.piccMasterKey = Self.aesKey.bytes
        image.piccKeyTypeBits = DESFire.KeyCount.aes
        return image
    }

    /// AES → AES on both keys, from ``aesKey`` to ``DESFireEV1Tests/otherAESKey``, versions 3 and 4.
    static let aesChange = DESFireKeyChange(
        currentPICCKey: aesKey, currentApplicationKey: aesKey, newPICCKey: DESFireEV1Tests.otherAESKey, newApplicationKey: DESFireEV1Tests.otherAESKey,
        piccKeyVersion: 3, applicationKeyVersion: 4)

    /// The tag on `reader` as identification makes it, and its DESFire commands carrying
    /// identification's GetVersion hardware part (``MiFareTag/desfire``).
    static func identified(_ reader: any NFCReader) async throws -> DESFireTag {
        let target = try #require(try await reader.poll(for: [.iso14443A], timeout: .zero))
        guard case .miFare(let mifare) = try await NFCTag.connect(to: target, on: reader) else { throw DESFireError(.malformed, "not a MIFARE tag") }
        return try #require(mifare.desfire)
    }

    @Test("on a DESFire EV3 with AES keys the key change authenticates with AuthenticateEV2First (never AuthenticateAES) and sends ChangeKey in EV2 Full mode, asking no GetVersion after identification; the chip holds the new keys and versions; a DES PICC key becomes AES by the legacy path, confirmed by 71; an EV1 keeps AuthenticateAES",
          arguments: [DESFireVirtualTag.Generation.ev1, .ev2, .ev3])
    func ev2KeyChange(generation: DESFireVirtualTag.Generation) async throws {
        let reader = try await DESFireEV1Tests.reader(try Self.aesImage(), generation: generation)
        let desfire = try await Self.identified(reader)
        #expect(desfire.hardware?.bytes == generation.hardwareVersion)
        let start = await reader.commandCount
        let outcome = try await desfire.changeKeys(Self.aesChange)
        #expect(outcome == DESFireKeyChange.Outcome(application: .changed, picc: .changed))
        let sent = await DESFireEV1Tests.commands(reader, from: start)
        let auth = generation == .ev1 ? "90AA" : "9071"
        // PICC checked, application: select, auth, GetKeySettings, ChangeKey, auth with the new
        // key; PICC: select, auth, ChangeKey, auth with the new key.
        #expect(sent == ["905A", auth, "90AF", "905A", auth, "90AF", "9045", "90C4", auth, "90AF", "905A", auth, "90AF", "90C4", auth, "90AF"], "\(generation): \(sent)")
        let image = try await DESFireEV1Tests.chip(reader) { $0.image }
        #expect(image.piccMasterKey == DESFireEV1Tests.otherAESKey.bytes && image.piccKeyTypeBits == DESFire.KeyCount.aes && image.piccKeyVersion == 3)
        #expect(image.applications[0].keys == [DESFireEV1Tests.otherAESKey.bytes] && image.applications[0].keyVersions == [4])
        if generation != .ev1 {
            // ChangeKey in Full mode: key number in clear, then E(key ‖ version ‖ 80 0…) (32
            // bytes) and MACt (8): the EV1 form would be 32 bytes with no MACt.
            let changes = await reader.withField { field in field.trace.filter { $0.number > start && $0.command.count > 1 && $0.command[1] == 0xC4 }.map(\.command.count) }
            #expect(changes == [5 + 1 + 32 + 8 + 1, 5 + 1 + 32 + 8 + 1], "\(changes)")
        }

        // DES → AES at the PICC level: the legacy authentication and ChangeKey, the new key
        // then taken by AuthenticateEV2First on an EV2 or later.
        let blank = try await DESFireEV1Tests.reader(try await Self.formatted(), generation: generation)
        let fresh = try await Self.identified(blank)
        let from = await blank.commandCount
        try await fresh.changeKeys(DESFireKeyChange(newPICCKey: Self.aesKey))
        let legacy = await DESFireEV1Tests.commands(blank, from: from)
        #expect(legacy == ["905A", "900A", "90AF", "90C4", auth, "90AF"], "\(generation): \(legacy)")
        #expect(try await DESFireEV1Tests.chip(blank) { $0.image.piccKeyTypeBits == DESFire.KeyCount.aes && $0.image.piccMasterKey == Self.aesKey.bytes })
    }

    @Test("the key change's ChangeKey of an AES PICC master key on a DESFire EV3, recomputed by openssl from the trace alone: RndB, RndA and TI deciphered with the old key, the session keys, the IV, the Full-mode cryptogram (new key ‖ version, padded) and MACt over C4 ‖ CmdCtr 0 ‖ TI ‖ key number 80 ‖ cryptogram")
    func changeKeyJudgedByOpenSSL() async throws {
        let old = Self.aesKey.bytes, new = DESFireEV1Tests.otherAESKey.bytes
        let reader = try await DESFireEV1Tests.reader(try Self.aesImage(), generation: .ev3)
        let desfire = try await Self.identified(reader)
        let start = await reader.commandCount
        try await desfire.changeKeys(DESFireKeyChange(currentPICCKey: Self.aesKey, newPICCKey: DESFireEV1Tests.otherAESKey, piccKeyVersion: 0x21))
        let exchanges = await reader.withField { field in field.trace.filter { $0.number > start } }
        let commands = exchanges.map(\.command)
        #expect(commands.map { Hex.encode(Array($0.prefix(2)), uppercase: true) } == ["905A", "9071", "90AF", "90C4", "9071", "90AF"])
        guard commands.count == 6, case .apdu(let challenge) = exchanges[1].answer, case .apdu(let confirmation) = exchanges[2].answer else {
            Issue.record("no authentication in the trace")
            return
        }
        let zero = [UInt8](repeating: 0, count: 16)
        let rndB = try await OpenSSLCipherOracle.decryptCBC(cipher: "aes-128-cbc", key: old, iv: zero, Array(challenge.dropLast(2)))
        let part2 = DESFireEV2MessagingTests.body(commands[2])
        let answered = try await OpenSSLCipherOracle.decryptCBC(cipher: "aes-128-cbc", key: old, iv: zero, part2)
        let rndA = Array(answered.prefix(16))
        #expect(Array(answered.suffix(16)) == Array(rndB[1...]) + [rndB[0]], "RndB' is RndB rotated left by one byte")
        let ti = Array(try await OpenSSLCipherOracle.decryptCBC(cipher: "aes-128-cbc", key: old, iv: zero, Array(confirmation.dropLast(2))).prefix(4))
        let mixed = (0..<6).map { rndA[2 + $0] ^ rndB[$0] }
        let tail = Array(rndA[0..<2]) + mixed + Array(rndB[6..<16]) + Array(rndA[8..<16])
        let encKey = try await OpenSSLCipherOracle.cmac(cipher: "aes-128-cbc", key: old, hex("A55A00010080") + tail)
        let macKey = try await OpenSSLCipherOracle.cmac(cipher: "aes-128-cbc", key: old, hex("5AA500010080") + tail)
        // ChangeKey of the authenticated key at CmdCtr 0: E(K_enc, IV, new ‖ version ‖ 80 00…) (no CRC), MACt.
        let iv = try await DESFireEV2MessagingTests.ecb(encKey, hex("A55A") + ti + [0x00, 0x00] + [UInt8](repeating: 0, count: 8))
        let plain = new + [0x21, 0x80] + [UInt8](repeating: 0, count: 14)
        let cryptogram = try await OpenSSLCipherOracle.encryptCBC(cipher: "aes-128-cbc", key: encKey, iv: iv, plain)
        let mac = try await DESFireEV2MessagingTests.macT(macKey, [0xC4, 0x00, 0x00] + ti + [0x80] + cryptogram)
        #expect(commands[3] == DESFireTag.wrap(0xC4, [0x80] + cryptogram + mac))
        #expect(try await DESFireEV1Tests.chip(reader) { $0.image.piccMasterKey == new && $0.image.piccKeyVersion == 0x21 })
    }

    @Test("--plan of an AES → AES key change on a DESFire EV3: AuthenticateEV2First reaches the chip, both ChangeKeys are planned, the chip is unchanged")
    func plannedEV2() async throws {
        let image = try Self.aesImage()
        let reader = try await DESFireEV1Tests.reader(image, generation: .ev3)
        let target = try #require(try await reader.poll(for: [.iso14443A], timeout: .zero))
        let plan = await PlanningReader(reader, selected: target)
        guard case .miFare(let mifare) = try await NFCTag.connect(to: target, on: plan), let desfire = mifare.desfire else {
            Issue.record("not a DESFire")
            return
        }
        var change = Self.aesChange
        change.planning = true
        try await desfire.changeKeys(change)
        let writes = await plan.writes
        #expect(writes.map { $0.command.array[1] } == [0xC4, 0xC4])
        #expect(writes.map { PlannedWriteDescription($0, profile: nil).data } == ["key 00 (enciphered)", "key 80 (enciphered)"])
        #expect(try await DESFireEV1Tests.chip(reader) { $0.image } == image)
        #expect(await reader.withField { field in field.trace.contains { $0.command.count > 1 && $0.command[1] == 0x71 } })
    }

    @Test("tearing sweep of the key change: cut after or inside any command, each key is the old or the new one (never neither), the NDEF still reads, and a re-run with the same keys completes it; DES → AES / 2K3DES on an EV2, and AES → AES in EV2 secure messaging on an EV3",
          arguments: [false, true])
    func tearingSweep(ev2Path: Bool) async throws {
        let image = ev2Path ? try Self.aesImage() : try await Self.formatted()
        let initial = DESFireVirtualTag(uid: DESFireEV1Tests.uid, image: image, generation: ev2Path ? .ev3 : .ev2).tagState
        let change = ev2Path ? Self.aesChange : Self.change
        let newApplication = ev2Path ? DESFireEV1Tests.otherAESKey : Self.key2K.withVersion(0x5A)
        let newPICC = ev2Path ? DESFireEV1Tests.otherAESKey : Self.aesKey
        let oldApplication = ev2Path ? Self.aesKey : .factoryDES, oldPICC = ev2Path ? Self.aesKey : .factoryDES
        let outcomes = try await TearingSweep.run(
            "DESFire key change\(ev2Path ? " (EV2)" : "")", initial: initial,
            makeTag: { reader, target in
                // As identification makes it: the DESFire carries GetVersion's hardware part.
                guard case .miFare(let mifare) = try await NFCTag.connect(to: target, on: reader) else { throw DESFireError(.malformed, "not MIFARE") }
                return mifare.ndefPlatform
            },
            operation: { tag throws(NFCTagError) in
                guard let desfire = (tag as? DESFireNDEFTag)?.desfire else { throw NFCTagError(.tagResponse, "not a DESFire") }
                do throws(DESFireError) { try await desfire.changeKeys(change) } catch { throw error.tagError }
            },
            classify: { tag in
                let desfire = try #require((tag as? DESFireNDEFTag)?.desfire)
                let ev2 = try await desfire.takesEV2Authentication()
                func holds(_ aid: [UInt8], _ key: DESFireKey) async -> Bool {
                    guard (try? await desfire.selectApplication(aid)) != nil else { return false }
                    return (try? await desfire.authenticate(keyNumber: 0, key: key, ev2: ev2)) != nil
                }
                let application = await holds(DESFire.TypeFourMapping.applicationID, newApplication) ? "new" : await holds(DESFire.TypeFourMapping.applicationID, oldApplication) ? "old" : "neither"
                let picc = await holds(DESFire.piccApplicationID, newPICC) ? "new" : await holds(DESFire.piccApplicationID, oldPICC) ? "old" : "neither"
                let state = "application \(application), PICC \(picc)"
                guard application != "neither", picc != "neither", try await tag.queryNDEFStatus().status == .readWrite else { return "corrupt: \(state)" }
                try await desfire.changeKeys(change)
                guard await holds(DESFire.TypeFourMapping.applicationID, newApplication), await holds(DESFire.piccApplicationID, newPICC) else {
                    return "corrupt: a re-run from \(state) did not complete"
                }
                return state
            })
        #expect(outcomes.keys.allSatisfy { !$0.hasPrefix("corrupt") }, "\(outcomes)")
        for state in ["application old, PICC old", "application new, PICC old", "application new, PICC new"] {
            #expect(outcomes[state, default: 0] > 0, "\(outcomes)")
        }
    }

    @Test("key versions as libfreefare keeps them: a DES key's parity bits (halves equal), a 2K3DES key's second half inverted; AES keeps its bytes")
    func versions() throws {
        let des = try DESFireKey(.des, hex("0011223344556677")).withVersion(0xA5)
        #expect(des.type == .des && des.parityVersion == 0xA5)
        #expect(des.bytes == hex("01 10 23 32 44 55 66 77"))
        let twoKey = Self.key2K.withVersion(0x01)
        #expect(twoKey.parityVersion == 0x01 && twoKey.type == .tripleDES2K)
        #expect(Array(twoKey.bytes[8...]) == hex("89 99 AB BB CD DD EF FE"))
        #expect(Self.aesKey.withVersion(7) == Self.aesKey && Self.aesKey.parityVersion == nil)
        let file = try DESFireFormatOptions.keys(fromText: "picc aes version 7 00112233445566778899AABBCCDDEEFF\napplication version 255 2k3des 00112233445566778899AABBCCDDEEFF\n")
        #expect(file.piccVersion == 7 && file.applicationVersion == 255 && file.picc == Self.aesKey)
        for bad in ["picc aes version 256 00112233445566778899AABBCCDDEEFF", "picc version 0x1 0011223344556677", "picc 0011223344556677 version",
                    "picc version 1 version 2 0011223344556677"] {
            #expect(throws: DESFireError.self) { try DESFireFormatOptions.keys(fromText: bad) }
        }
    }

    @Test("an AES key's version byte: ChangeKey carries it, GetKeyVersion answers it, the image keeps it in version 3 (44 46 03), which round-trips; a version 3 header on an image version 2 holds, and every truncated prefix, are refused")
    func aesKeyVersion() async throws {
        let (reader, _, _) = try await DESFireEV1Tests.connect(try DESFireEV1Tests.aesApplicationImage(), options: DESFireFormatOptions())
        let change = DESFireKeyChange(currentApplicationKey: Self.aesKey, newApplicationKey: DESFireEV1Tests.otherAESKey, applicationKeyVersion: 9)
        let desfire = Self.desfire(reader)
        #expect(try await desfire.changeKeys(change).application == .changed)
        try await desfire.selectApplication(DESFire.TypeFourMapping.applicationID)
        #expect(try await desfire.keyVersion(0) == 9)
        let image = try await DESFireEV1Tests.chip(reader) { $0.image }
        #expect(image.applications[0].keyVersions == [9] && image.encodingVersion == 3)
        let bytes = image.encoded
        #expect(Array(bytes.prefix(3)) == DESFireImage.headerVersion3)
        #expect(try DESFireImage(parsing: bytes) == image)
        for length in 0..<bytes.count {
            #expect(throws: DESFireImage.ParseError.self) { try DESFireImage(parsing: Array(bytes.prefix(length))) }
        }
        var unversioned = image
        unversioned.applications[0].keyVersions = [0]
        let version2 = unversioned.encoded
        #expect(unversioned.encodingVersion == 1 && Array(version2.prefix(3)) == DESFireImage.header)
        #expect(throws: DESFireImage.ParseError.self) { try DESFireImage(parsing: DESFireImage.headerVersion3 + Array(version2.dropFirst(3))) }
    }

    @Test("format with an AES application key: CreateApplication A1, AuthenticateAES with the factory AES key, ChangeKey to the given key, AuthenticateAES with it, the files in its session; --plan plans exactly the writes of that run (the authentication with the given key too: the planned application's stand-in chip ran the ChangeKey) and sends none")
    func formatWithApplicationKey() async throws {
        let options = DESFireFormatOptions(applicationKey: Self.aesKey, ndefFileSize: 128)
        let (planned, planTag, plan) = try await DESFireEV1Tests.connect(DESFireImage(), options: options, planning: true)
        try await planTag.ndef.format(force: false)
        let writes = try #require(await plan?.writes)
        #expect(writes.map { $0.command.array[1] } == [0xCA, 0x5A, 0xAA, 0xAF, 0xC4, 0xAA, 0xAF, 0xCD, 0xCD, 0x3D])
        #expect(try await DESFireEV1Tests.chip(planned) { $0.image } == DESFireImage())

        let (reader, tag, _) = try await DESFireEV1Tests.connect(DESFireImage(), options: options)
        let start = await reader.commandCount
        try await tag.ndef.format(force: false)
        let sent = await DESFireEV1Tests.commands(reader, from: start)
        #expect(Array(sent.drop { $0 != "90CA" }) == ["90CA", "905A", "90AA", "90AF", "90C4", "90AA", "90AF", "906F", "90CD", "90CD", "903D"], "\(sent)")
        #expect(try await DESFireEV1Tests.chip(reader) { $0.image.applications[0].keyCount == 0xA1 && $0.image.applications[0].keys == [Self.aesKey.bytes] })
        #expect(try await tag.ndef.queryNDEFStatus().status == .readWrite)
    }
}
