import Foundation
import NDEF
import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

/// MIFARE DESFire EV1 as an NFC Forum Type 4 tag (NXP AN11004) on the virtual chip through the
/// simulator: formatting's exact commands, refusals, the tearing sweep, and the parsers' rules.
@Suite("MIFARE DESFire EV1: AN11004 formatting and the parsers", .timeLimit(.minutes(3)))
struct DESFireTests {
    static let uid = hex("04 44 46 53 49 4D 01")

    /// A simulator holding a DESFire with `image`, polled, and the tag connected (identified as a DESFire).
    static func connect(_ image: DESFireImage = DESFireImage()) async throws -> (SimulatedReader, NFCTag) {
        let reader = SimulatedReader(tags: [DESFireVirtualTag(uid: uid, image: image)], emptyFieldWait: .zero)
        await reader.withField { $0.isTracing = true }
        let target = try #require(try await reader.poll(for: [.iso14443A], timeout: .zero))
        return (reader, try await NFCTag.connect(to: target, on: reader))
    }

    /// The native command codes (INS of `90 …`) and ISO instructions the field carried since `start`.
    static func commands(_ reader: SimulatedReader, from start: Int) async -> [String] {
        await reader.withField { field in
            field.trace.filter { $0.number > start }.map { Hex.encode(Array($0.command.prefix(2)), uppercase: true) }
        }
    }

    /// The image of the DESFire on `reader`.
    static func image(_ reader: SimulatedReader) async throws -> DESFireImage {
        try #require(await reader.withField { ($0.currentTag as? DESFireVirtualTag)?.image })
    }

    static func message() throws -> NDEFMessage {
        NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: "https://example.com/desfire")])
    }

    @Test("a blank DESFire is identified, reads as not NDEF, and format sends AN11004's commands in order")
    func formatCommands() async throws {
        let (reader, tag) = try await Self.connect()
        #expect(tag.identity.model == "MIFARE DESFire EV1 4K")
        #expect(tag.identity.family == .desfire)
        #expect(try await tag.ndef.queryNDEFStatus().status == .notSupported)
        let start = await reader.commandCount
        try await tag.ndef.format(force: false)
        let sent = await Self.commands(reader, from: start)
        // The Type 4 detection first (SELECT by name, refused), then AN11004's sequence.
        #expect(sent == ["00A4", "905A", "900A", "90AF", "906A", "906E", "90CA", "905A", "900A", "90AF", "906F", "90CD", "90CD", "903D"])
        let query = try await tag.ndef.queryNDEFStatus()
        #expect(query.status == .readWrite)
        #expect(query.messageLength == 0)
        // 4608 free, the CC file takes 32: an NDEF file of 4576 bytes, 4574 for the message.
        #expect(query.capacity == 4574)
        let image = try await Self.image(reader)
        let application = try #require(image.applications.first)
        #expect(application.aid == [0x01, 0x00, 0x00] && application.keySettings == 0x0F && application.keyCount == 0x21)
        #expect(application.isoFileID == 0xE110 && application.dfName == hex("D2760000850101"))
        #expect(application.files.map(\.number) == [1, 2])
        #expect(application.files[0].data == hex("000F20003B00340406E10411E00000"))
        #expect(application.files[0].accessRights == 0xE000 && application.files[1].accessRights == 0xEEE0)
    }

    @Test("written through the Type 4 path, the message is in the NDEF file (NLEN first) and reads back in a fresh simulator")
    func writeAndReadBack() async throws {
        let (reader, tag) = try await Self.connect()
        try await tag.ndef.format(force: false)
        let message = try Self.message()
        try await tag.ndef.writeNDEF(message, verify: true)
        let encoded = try message.encoded()
        let image = try await Self.image(reader)
        let ndefFile = try #require(image.applications.first?.files.last?.data)
        #expect(Array(ndefFile.prefix(2 + encoded.count)) == [0x00, UInt8(encoded.count)] + encoded)
        let restored = try DESFireImage(parsing: image.encoded)
        let (_, fresh) = try await Self.connect(restored)
        #expect(try await fresh.ndef.readNDEF() == message)
    }

    @Test("--ndef-size is honoured, and a size past free memory is refused with nothing created")
    func ndefSize() async throws {
        let (reader, tag) = try await Self.connect()
        guard case .miFare(var mifare) = tag else { Issue.record("not a MIFARE tag"); return }
        mifare.desfireFormat = DESFireFormatOptions(ndefFileSize: 8000)
        let large = NFCTag.miFare(mifare)
        await #expect(throws: NFCTagError.self) { try await large.ndef.format(force: false) }
        #expect(try await Self.image(reader).applications.isEmpty)
        mifare.desfireFormat = DESFireFormatOptions(ndefFileSize: 1024)
        try await NFCTag.miFare(mifare).ndef.format(force: false)
        #expect(try await tag.ndef.queryNDEFStatus().capacity == 1022)
        #expect(try await Self.image(reader).applications.first?.files.last?.data.count == 1024)
    }

    @Test("a DESFire holding another application is refused without force (nothing written) and keeps it with force")
    func otherApplications() async throws {
        let other = DESFireImage.Application(
            aid: hex("563412"), keySettings: 0x0F, keyCount: 0x01, isoFileID: nil, dfName: [], keys: [[UInt8](repeating: 0, count: 8)], files: [])
        let before = DESFireImage(applications: [other])
        let (reader, tag) = try await Self.connect(before)
        do {
            try await tag.ndef.format(force: false)
            Issue.record("formatted a DESFire holding application 123456")
        } catch {
            #expect(error.code == .alreadyFormatted)
            #expect(error.reason.contains("123456"))
        }
        #expect(try await Self.image(reader) == before)
        try await tag.ndef.format(force: true)
        #expect(try await Self.image(reader).applications.map(\.aid) == [hex("563412"), hex("010000")])
        #expect(try await tag.ndef.queryNDEFStatus().status == .readWrite)
    }

    @Test("a wrong PICC master key is authenticationFailed, nothing created, and the key is in no message")
    func wrongKey() async throws {
        let (reader, tag) = try await Self.connect()
        guard case .miFare(var mifare) = tag else { Issue.record("not a MIFARE tag"); return }
        mifare.desfireFormat = DESFireFormatOptions(piccMasterKey: hex("0102030405060708"))
        do {
            try await NFCTag.miFare(mifare).ndef.format(force: false)
            Issue.record("accepted a wrong key")
        } catch {
            #expect(error.code == .authenticationFailed)
            #expect(!error.description.contains("0102") && !error.description.contains("01 02"))
        }
        #expect(try await Self.image(reader).applications.isEmpty)
        #expect(!"\(mifare.desfireFormat)".contains("0102"))
    }

    @Test("--plan holds back every changing command, lists them, and the chip is unchanged")
    func plan() async throws {
        let reader = SimulatedReader(tags: [DESFireVirtualTag(uid: Self.uid)], emptyFieldWait: .zero)
        let target = try #require(try await reader.poll(for: [.iso14443A], timeout: .zero))
        let planning = await PlanningReader(reader, selected: target, desfire: VirtualDESFireStandIn())
        let tag = try await NFCTag.connect(to: target, on: planning)
        try await tag.ndef.format(force: false)
        let writes = await planning.writes
        #expect(writes.map { $0.command.array[1] } == [0xCA, 0x5A, 0x0A, 0xAF, 0xCD, 0xCD, 0x3D])
        #expect(writes.allSatisfy { $0.technology == .desfire })
        #expect(try await Self.image(reader).applications.isEmpty)
        #expect(PlannedWriteDescription(writes[0], profile: nil).location == "CreateApp")
    }

    @Test("--plan: the planned application lives in the stand-in chip (key type, settings, files as planned, the CC written), never on the chip; without a stand-in it cannot be selected (91 A0) and nothing is sent")
    func planStandIn() async throws {
        let reader = SimulatedReader(tags: [DESFireVirtualTag(uid: Self.uid)], emptyFieldWait: .zero)
        let target = try #require(try await reader.poll(for: [.iso14443A], timeout: .zero))
        let standIn = VirtualDESFireStandIn()
        let planning = await PlanningReader(reader, selected: target, desfire: standIn)
        try await NFCTag.connect(to: target, on: planning).ndef.format(force: false)
        let planned = try #require(standIn.applications.first)
        #expect(planned.aid == DESFire.TypeFourMapping.applicationID && planned.keySettings == 0x0F && planned.keyCount == 0x21)
        #expect(planned.files.map(\.number) == [1, 2] && planned.files[0].data.prefix(3) == [0x00, 0x0F, 0x20])
        #expect(try await Self.image(reader).applications.isEmpty)

        let bare = await PlanningReader(reader, selected: target)
        await #expect(throws: NFCTagError.self) { try await NFCTag.connect(to: target, on: bare).ndef.format(force: false) }
        #expect(await bare.writes.map { $0.command.array[1] } == [0xCA, 0x5A])
        #expect(try await Self.image(reader).applications.isEmpty)
    }

    @Test("tearing sweep of format: cut after or inside any command, the tag reads as not formatted or formatted, and a re-run completes it")
    func tearingSweep() async throws {
        let initial = DESFireVirtualTag(uid: Self.uid).tagState
        let outcomes = try await TearingSweep.run(
            "DESFire format", initial: initial,
            makeTag: { reader, target in try await NFCTag.connect(to: target, on: reader).ndef },
            operation: { tag throws(NFCTagError) in try await tag.format(force: false) },
            classify: { tag in
                let query = try await tag.queryNDEFStatus()
                if query.status == .readWrite, query.messageLength == 0 { return "formatted" }
                guard query.status == .notSupported else { return "corrupt: \(query)" }
                try await tag.format(force: false)
                let again = try await tag.queryNDEFStatus()
                return again.status == .readWrite && again.messageLength == 0 && again.capacity == 4574 ? "not formatted, completed by a re-run" : "corrupt: re-run gave \(again)"
            })
        #expect(outcomes["not formatted, completed by a re-run", default: 0] > 0)
    }

    // MARK: Lock

    /// A DESFire formatted as AN11004 describes holding ``message()``, as an image.
    static func formattedImage() throws -> DESFireImage {
        let encoded = try message().encoded()
        var ndef = [UInt8](repeating: 0, count: 128)
        ndef.replaceSubrange(0..<(2 + encoded.count), with: [UInt8(encoded.count >> 8), UInt8(encoded.count & 0xFF)] + encoded)
        let mapping = DESFire.TypeFourMapping.self
        let files = [
            DESFireImage.File(number: 1, isoFileID: 0xE103, communication: 0, accessRights: mapping.capabilityContainerAccessRights, data: mapping.capabilityContainer(ndefFileSize: 128)),
            DESFireImage.File(number: 2, isoFileID: 0xE104, communication: 0, accessRights: mapping.ndefAccessRights, data: ndef),
        ]
        return DESFireImage(applications: [DESFireImage.Application(
            aid: mapping.applicationID, keySettings: 0x0F, keyCount: 0x21, isoFileID: 0xE110, dfName: hex("D2760000850101"),
            keys: [[UInt8](repeating: 0, count: 8)], files: files)])
    }

    @Test("lock sends ChangeFileSettings enciphered under the session, then the CC write; the chip refuses writing and a second ChangeFileSettings")
    func lockCommands() async throws {
        let (reader, tag) = try await Self.connect(try Self.formattedImage())
        #expect(try await tag.ndef.readOnlyGaps().count == 2)
        let start = await reader.commandCount
        try await tag.ndef.writeLock()
        let sent = await Self.commands(reader, from: start)
        #expect(Array(sent.suffix(7)) == ["905A", "900A", "90AF", "90F5", "90BD", "905F", "903D"], "\(sent)")
        let image = try await Self.image(reader)
        let files = try #require(image.applications.first?.files)
        #expect(files[1].accessRights == 0xEFFF && files[0].data[14] == 0xFF)
        #expect(try await tag.ndef.queryNDEFStatus().status == .readOnly)
        #expect(try await tag.ndef.readOnlyGaps().isEmpty)
        #expect(try await tag.ndef.readNDEF() == (try Self.message()))
        await #expect(throws: NFCTagError.self) { try await tag.ndef.writeNDEF(.empty, verify: false) }
        // Change never: not even the key holder opens it again.
        let desfire = DESFireTag(reader: reader)
        try await desfire.selectApplication(DESFire.TypeFourMapping.applicationID)
        let session = try await desfire.authenticateLegacy(keyNumber: 0, key: [UInt8](repeating: 0, count: 8))
        await #expect(throws: DESFireError.self) {
            try await desfire.changeFileSettings(2, communication: 0, accessRights: 0xEEE0, sessionKey: session)
        }
        #expect(try await Self.image(reader).applications[0].files[1].accessRights == 0xEFFF)
    }

    @Test("ChangeFileSettings on the chip: refused without the change key's session, or under another session key (integrity)")
    func changeFileSettingsRefusals() async throws {
        let (reader, _) = try await Self.connect(try Self.formattedImage())
        let desfire = DESFireTag(reader: reader)
        try await desfire.selectApplication(DESFire.TypeFourMapping.applicationID)
        await #expect(throws: DESFireError.self) { try await desfire.changeFileSettings(2, communication: 0, accessRights: 0xEFFF, sessionKey: nil) }
        try await desfire.selectApplication(DESFire.TypeFourMapping.applicationID)
        try await desfire.authenticateLegacy(keyNumber: 0, key: [UInt8](repeating: 0, count: 8))
        do {
            try await desfire.changeFileSettings(2, communication: 0, accessRights: 0xEFFF, sessionKey: [UInt8](repeating: 0x11, count: 8))
            Issue.record("a wrong session key was accepted")
        } catch {
            #expect(error.status == DESFire.Status.integrityError.rawValue)
        }
        #expect(try await Self.image(reader).applications[0].files[1].accessRights == 0xEEE0)
    }

    @Test("legacy enciphering: the chip's side opens what the host sealed (DES and 2K3DES session keys); a flipped bit fails the CRC")
    func legacyEnciphering() throws {
        for key in [hex("0011223344556677"), hex("00112233445566778899AABBCCDDEEFF")] {
            let sealed = try DESFireLegacyAuthentication.encipherForSending(sessionKey: key, [0x00, 0xFF, 0xEF])
            #expect(sealed.count == 8)
            #expect(try DESFireLegacyAuthentication.decipherReceived(sessionKey: key, sealed, length: 3) == [0x00, 0xFF, 0xEF])
            var flipped = sealed
            flipped[7] ^= 0x01
            #expect(throws: DESFireError.self) { try DESFireLegacyAuthentication.decipherReceived(sessionKey: key, flipped, length: 3) }
            // A block of zeros more is not this field.
            #expect(throws: DESFireError.self) { try DESFireLegacyAuthentication.decipherReceived(sessionKey: key, sealed + sealed, length: 3) }
        }
        let rndA = hex("0102030405060708"), rndB = hex("1112131415161718")
        #expect(try DESFireLegacyAuthentication.sessionKey(key: [UInt8](repeating: 0, count: 8), rndA: rndA, rndB: rndB) == hex("0102030411121314"))
        #expect(try DESFireLegacyAuthentication.sessionKey(key: hex("00112233445566778899AABBCCDDEEFF"), rndA: rndA, rndB: rndB)
                == hex("01020304111213140506070815161718"))
    }

    @Test("tearing sweep of lock: cut after or inside any command, the tag is writable (old) or read-only for good, never reports read-only while writable, and a re-run completes it")
    func lockTearingSweep() async throws {
        let initial = DESFireVirtualTag(uid: Self.uid, image: try Self.formattedImage()).tagState
        let outcomes = try await TearingSweep.run(
            "DESFire lock", initial: initial,
            makeTag: { reader, target in try await NFCTag.connect(to: target, on: reader).ndef },
            operation: { tag throws(NFCTagError) in try await tag.writeLock() },
            classify: { tag in
                guard try await tag.readNDEF() == (try Self.message()) else { return "corrupt: the message changed" }
                let query = try await tag.queryNDEFStatus()
                let gaps = try await tag.readOnlyGaps()
                if query.status == .readOnly { return gaps.isEmpty ? "locked" : "corrupt: read-only reported with \(gaps)" }
                try await tag.writeLock()
                let again = try await tag.readOnlyGaps()
                let status = try await tag.queryNDEFStatus().status
                return again.isEmpty && status == .readOnly ? "not locked, completed by a re-run" : "corrupt: re-run left \(again)"
            })
        #expect(outcomes.keys.allSatisfy { !$0.hasPrefix("corrupt") }, "\(outcomes)")
        #expect(outcomes["not locked, completed by a re-run", default: 0] > 0)
        #expect(outcomes["locked", default: 0] > 0)
    }

    // MARK: EV2

    @Test("AuthenticateEV2First on a DESFire EV2's AES application: host and chip hold the same EV2 session (the code NTAG 424 DNA uses); a wrong key is refused; an EV1 has no 71")
    func authenticateEV2First() async throws {
        let aesKey = hex("000102030405060708090A0B0C0D0E0F")
        let application = DESFireImage.Application(
            aid: [0x11, 0x22, 0x33], keySettings: 0x0F, keyCount: DESFire.KeyCount.aes | 0x01, isoFileID: nil, dfName: [], keys: [aesKey], files: [])
        let reader = SimulatedReader(tags: [DESFireVirtualTag(uid: Self.uid, image: DESFireImage(applications: [application]), generation: .ev2)], emptyFieldWait: .zero)
        _ = try #require(try await reader.poll(for: [.iso14443A], timeout: .zero))
        let desfire = DESFireTag(reader: reader)
        try await desfire.selectApplication([0x11, 0x22, 0x33])
        let session = try await desfire.authenticateEV2First(keyNumber: 0, key: aesKey)
        let chipSession = try #require(await reader.withField { ($0.currentTag as? DESFireVirtualTag)?.ev2Session })
        #expect(session == chipSession && session.commandCounter == 0)
        do {
            _ = try await desfire.authenticateEV2First(keyNumber: 0, key: [UInt8](repeating: 0x55, count: 16))
            Issue.record("a wrong AES key was accepted")
        } catch {
            #expect(error.code == .authenticationFailed)
        }
        #expect(await reader.withField { ($0.currentTag as? DESFireVirtualTag)?.ev2Session } == nil)
        // The legacy command is refused on an AES application, and an EV1 does not know 71.
        await #expect(throws: DESFireError.self) { try await desfire.authenticateLegacy(keyNumber: 0, key: [UInt8](repeating: 0, count: 8)) }
        let ev1Reader = SimulatedReader(tags: [DESFireVirtualTag(uid: Self.uid, image: DESFireImage(applications: [application]))], emptyFieldWait: .zero)
        _ = try #require(try await ev1Reader.poll(for: [.iso14443A], timeout: .zero))
        let old = DESFireTag(reader: ev1Reader)
        try await old.selectApplication([0x11, 0x22, 0x33])
        do {
            _ = try await old.authenticateEV2First(keyNumber: 0, key: aesKey)
            Issue.record("an EV1 answered AuthenticateEV2First")
        } catch {
            #expect(error.status == DESFire.Status.illegalCommand.rawValue)
        }
    }

    // MARK: Parsers

    @Test("GetVersion: 28 bytes parse and encode back; every shorter prefix and a longer answer are refused")
    func version() throws {
        let bytes = DESFireVirtualTag.hardwareVersion + DESFireVirtualTag.softwareVersion + Self.uid + hex("BA7C400000 10 26")
        let version = try DESFireVersion(parsing: bytes)
        #expect(version.encoded == bytes)
        #expect(version.modelName == "MIFARE DESFire EV1 4K")
        #expect(version.hardware.storageBytes == 4096)
        for length in 0..<bytes.count { #expect(throws: DESFireError.self) { try DESFireVersion(parsing: Array(bytes.prefix(length))) } }
        #expect(throws: DESFireError.self) { try DESFireVersion(parsing: bytes + [0]) }
    }

    @Test("GetFileSettings: a data file's 7 bytes round-trip; other lengths and file types are refused")
    func fileSettings() throws {
        let settings = try DESFireFileSettings(parsing: hex("00 00 E0EE 001000"))
        #expect(settings.accessRights == 0xEEE0 && settings.size == 0x1000)
        #expect(settings.readAccess == 0xE && settings.changeAccess == 0)
        #expect(settings.encoded == hex("00 00 E0EE 001000"))
        #expect(throws: DESFireError.self) { try DESFireFileSettings(parsing: hex("02 00 E0EE 001000")) }
        for length in 0..<7 { #expect(throws: DESFireError.self) { try DESFireFileSettings(parsing: Array(hex("00 00 E0EE 001000").prefix(length))) } }
    }

    @Test("the tag-file image round-trips; every truncated prefix, trailing bytes and out-of-range counts are refused")
    func image() async throws {
        let (reader, tag) = try await Self.connect()
        try await tag.ndef.format(force: false)
        let image = try await Self.image(reader)
        let bytes = image.encoded
        #expect(try DESFireImage(parsing: bytes) == image)
        for length in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 400)) {
            #expect(throws: DESFireImage.ParseError.self) { try DESFireImage(parsing: Array(bytes.prefix(length))) }
        }
        #expect(throws: DESFireImage.ParseError.self) { try DESFireImage(parsing: bytes + [0]) }
        #expect(throws: DESFireImage.ParseError.self) { try DESFireImage(parsing: hex("444601 0F 08 0000000000000000 1D")) }
        #expect(throws: DESFireImage.ParseError.self) { try DESFireImage(parsing: hex("444601 0F 07 00000000000000 00")) }
        // A file size of 16 MiB in a few bytes: refused before anything is allocated.
        #expect(throws: DESFireImage.ParseError.self) {
            try DESFireImage(parsing: hex("444601 0F 08 0000000000000000 01 010000 0F 01 00 00 08 0000000000000000 01 01 00 00 0000 FFFFFF"))
        }
        #expect(DESFireVirtualTag(state: TagState(model: "desfire-ev1", uid: Hex.encode(Self.uid), memory: "4446")) == nil)
    }

    @Test("a key file holds 16 or 32 hex digits (spaces, colons, comments allowed); errors name the line, never a digit")
    func keyText() throws {
        #expect(try DESFireFormatOptions.piccMasterKey(fromText: "# PICC\n00 11 22 33 44 55 66 77\n") == hex("0011223344556677"))
        #expect(try DESFireFormatOptions.piccMasterKey(fromText: "00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF").count == 16)
        for bad in ["", "001122", "0011223344556677 0", "00112233445566zz", String(repeating: "0", count: 5000)] {
            do {
                _ = try DESFireFormatOptions.piccMasterKey(fromText: bad)
                Issue.record("accepted \(bad.prefix(20))")
            } catch {
                #expect(error.code == .invalidParameter)
                #expect(!error.reason.contains("0011"))
            }
        }
    }

    @Test("legacy authentication: host and chip agree for DES and 2K3DES keys; a wrong key fails on the chip's side")
    func legacyAuthentication() throws {
        for key in [hex("0000000000000000"), hex("00112233445566778899AABBCCDDEEFF")] {
            let rndA = hex("0102030405060708"), rndB = hex("A1A2A3A4A5A6A7A8")
            let challenge = try DESFireLegacyAuthentication.challenge(key: key, rndB: rndB)
            let (part2, recovered) = try DESFireLegacyAuthentication.answer(key: key, challenge: challenge, rndA: rndA)
            #expect(recovered == rndB)
            #expect(try DESFireLegacyAuthentication.checkAnswer(key: key, rndB: rndB, part2: part2) == rndA)
            try DESFireLegacyAuthentication.verify(key: key, rndA: rndA, confirmation: try DESFireLegacyAuthentication.confirmation(key: key, rndA: rndA))
            let (wrong, _) = try DESFireLegacyAuthentication.answer(key: hex("0101010101010102"), challenge: challenge, rndA: rndA)
            #expect(throws: DESFireError.self) { try DESFireLegacyAuthentication.checkAnswer(key: key, rndB: rndB, part2: wrong) }
        }
    }
}

/// Hostile answers: a chip (or something posing as one) answering DESFire commands with wrong
/// lengths, no status, endless `AF` frames or a confirmation that proves nothing. Each is a
/// typed error, never a trap or a hang.
@Suite("MIFARE DESFire: hostile answers", .timeLimit(.minutes(1)))
struct DESFireHostileAnswerTests {
    static func tag(_ answers: [[UInt8]: [UInt8]], otherwise: ScriptedReply = .timeout) -> DESFireTag {
        DESFireTag(reader: ScriptedReader(answers: answers, otherwise: otherwise))
    }

    @Test("an answer without 91 xx, a GetApplicationIDs of 4 bytes, a GetFreeMemory of 2: malformed")
    func shapes() async {
        await #expect(throws: DESFireError.self) { try await Self.tag([hex("906A000000"): hex("9000")]).applicationIDs() }
        await #expect(throws: DESFireError.self) { try await Self.tag([hex("906A000000"): hex("01020304 9100")]).applicationIDs() }
        await #expect(throws: DESFireError.self) { try await Self.tag([hex("906E000000"): hex("0102 9100")]).freeMemory() }
        await #expect(throws: DESFireError.self) { try await Self.tag([hex("9045000000"): hex("0F 9100")]).keySettings() }
        await #expect(throws: DESFireError.self) { try await Self.tag([hex("90F5000001 02 00"): hex("00 00 E0EE 0010 9100")]).fileSettings(2) }
        do {
            _ = try await Self.tag([hex("906A000000"): hex("9100")], otherwise: .timeout).applicationIDs()
        } catch {
            Issue.record("an empty list is no error: \(error)")
        }
    }

    @Test("endless AF frames stop at the answer limit with malformed")
    func endlessFrames() async {
        let tag = Self.tag([hex("9060000000"): [UInt8](repeating: 0x41, count: 59) + [0x91, 0xAF], hex("90AF000000"): [UInt8](repeating: 0x41, count: 59) + [0x91, 0xAF]])
        do {
            _ = try await tag.version()
            Issue.record("accepted an endless GetVersion")
        } catch {
            #expect(error.code == .malformed)
        }
    }

    @Test("a status other than 00 is status with its name; AE on the second frame of Authenticate is authenticationFailed")
    func statuses() async {
        do {
            try await Self.tag([hex("905A000003 010000 00"): hex("91A0")]).selectApplication([1, 0, 0])
            Issue.record("no error")
        } catch {
            #expect(error.code == .status && error.status == 0xA0 && error.reason.contains("APPLICATION_NOT_FOUND"))
            #expect(error.tagError.code == .tagResponse)
        }
        let refusing = Self.tag([hex("900A000001 00 00"): hex("0102030405060708 91AF")], otherwise: .answer(Bytes(hex("91AE"))))
        do {
            try await refusing.authenticateLegacy(keyNumber: 0, key: [UInt8](repeating: 0, count: 8))
            Issue.record("no error")
        } catch {
            #expect(error.code == .authenticationFailed)
        }
    }

    @Test("a confirmation that does not hold RndA (a chip without the key answering 91 00) is authenticationFailed")
    func forgedConfirmation() async {
        let forging = Self.tag([hex("900A000001 00 00"): hex("0102030405060708 91AF")], otherwise: .answer(Bytes(hex("0000000000000000 9100"))))
        do {
            try await forging.authenticateLegacy(keyNumber: 0, key: [UInt8](repeating: 0, count: 8))
            Issue.record("accepted a forged confirmation")
        } catch {
            #expect(error.code == .authenticationFailed)
        }
        let short = Self.tag([hex("900A000001 00 00"): hex("0102 91AF")])
        await #expect(throws: DESFireError.self) { try await short.authenticateLegacy(keyNumber: 0, key: [UInt8](repeating: 0, count: 8)) }
    }
}
