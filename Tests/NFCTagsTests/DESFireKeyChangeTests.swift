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
        #expect(sent == ["905A", "900A", "90AF", "905A", "900A", "90AF", "9045", "90C4", "900A", "90AF", "905A", "900A", "90AF", "90C4", "90AA", "90AF"], "\(sent)")
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

    @Test("tearing sweep of the key change: cut after or inside any command, each key is the old or the new one (never neither), the NDEF still reads, and a re-run with the same keys completes it")
    func tearingSweep() async throws {
        let initial = DESFireVirtualTag(uid: DESFireEV1Tests.uid, image: try await Self.formatted(), generation: .ev2).tagState
        let versioned = Self.key2K.withVersion(0x5A)
        let outcomes = try await TearingSweep.run(
            "DESFire key change", initial: initial,
            makeTag: { reader, _ in DESFireNDEFTag(reader: reader) },
            operation: { tag throws(NFCTagError) in
                guard let desfire = (tag as? DESFireNDEFTag)?.desfire else { throw NFCTagError(.tagResponse, "not a DESFire") }
                do throws(DESFireError) { try await desfire.changeKeys(Self.change) } catch { throw error.tagError }
            },
            classify: { tag in
                let desfire = try #require((tag as? DESFireNDEFTag)?.desfire)
                func holds(_ aid: [UInt8], _ key: DESFireKey) async -> Bool {
                    guard (try? await desfire.selectApplication(aid)) != nil else { return false }
                    return (try? await desfire.authenticate(keyNumber: 0, key: key)) != nil
                }
                let application = await holds(DESFire.TypeFourMapping.applicationID, versioned) ? "new" : await holds(DESFire.TypeFourMapping.applicationID, .factoryDES) ? "old" : "neither"
                let picc = await holds(DESFire.piccApplicationID, Self.aesKey) ? "new" : await holds(DESFire.piccApplicationID, .factoryDES) ? "old" : "neither"
                let state = "application \(application), PICC \(picc)"
                guard application != "neither", picc != "neither", try await tag.queryNDEFStatus().status == .readWrite else { return "corrupt: \(state)" }
                try await desfire.changeKeys(Self.change)
                guard await holds(DESFire.TypeFourMapping.applicationID, versioned), await holds(DESFire.piccApplicationID, Self.aesKey) else {
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
