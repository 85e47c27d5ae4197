import NDEF
import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

/// MIFARE DESFire Light (``DESFireLight``): identification by GetVersion type 08, the factory
/// DF a Type 4 reader does not find (format refuses, nothing written), the renamed DF as a
/// Type 4 tag (format writes CC and NLEN, write, read), lock through EV2 authentication and
/// ChangeFileSettings, the commands the Light lacks, tearing sweeps of every write path, hostile
/// file settings and tag files. Each check reads the tag file or a fresh reader.
@Suite("MIFARE DESFire Light: identification, Type 4 NDEF, format, EV2 lock, tearing", .timeLimit(.minutes(5)))
struct DESFireLightTests {
    static let uid = hex("04 4C 49 47 48 54 01")

    static func url(_ text: String) throws -> NDEFMessage {
        NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: text)])
    }

    /// A renamed Light, formatted by this tool and holding `message` (when given).
    static func formatted(_ message: NDEFMessage? = nil) throws -> TagState {
        let chip = DESFireLightVirtualTag(uid: uid, renamedForTypeFour: true)
        if let message { #expect(chip.setNDEFMessage(try message.encoded())) } else { #expect(chip.setNDEFMessage([])) }
        return chip.tagState
    }

    static func connect(_ state: TagState) async throws -> (SimulatedReader, NFCTag) {
        let (reader, target) = try await TearingSweep.open(state, modulations: [.iso14443A])
        return (reader, try await NFCTag.connect(to: target, on: reader))
    }

    static func light(_ reader: SimulatedReader, _ target: TargetInfo, key: [UInt8]? = nil) async throws -> any NFCNDEFTag {
        guard case .iso7816(var iso) = try await NFCTag.connect(to: target, on: reader) else { throw NFCTagError(.notSupported, "not ISO-DEP") }
        iso.desfireLightApplicationKey = key
        return iso.ndefPlatform
    }

    /// The bytes of `file` in a tag file's memory.
    static func fileBytes(_ state: TagState, _ file: DESFireLight.File) throws -> [UInt8] {
        let memory = try Hex.decode(state.memory)
        let sizes: [DESFireLight.File: Int] = [.data00: 256, .cyclicRecord: 80, .value: 4, .data04: 256, .transactionMAC: 12, .fci: 32]
        var start = 0
        for each in DESFireLight.File.allCases {
            if each == file { return Array(memory[start..<(start + (sizes[each] ?? 0))]) }
            start += sizes[each] ?? 0
        }
        return []
    }

    @Test("GetVersion type 08 major 30 names a MIFARE DESFire Light; it is an ISO-DEP tag of family desfireLight, factory or renamed")
    func identification() async throws {
        for renamed in [false, true] {
            let (_, tag) = try await Self.connect(DESFireLightVirtualTag(uid: Self.uid, renamedForTypeFour: renamed).tagState)
            guard case .iso7816(let iso) = tag else { Issue.record("not ISO-DEP: \(tag)"); continue }
            #expect(iso.identity.model == "MIFARE DESFire Light")
            #expect(iso.identity.family == .desfireLight)
            #expect(iso.identity.platform == (renamed ? .type4 : .unknown))
        }
    }

    @Test("a factory Light is no Type 4 tag: query says not supported, format refuses naming SetConfiguration, and the tag file is byte-identical")
    func factoryRefused() async throws {
        let initial = DESFireLightVirtualTag(uid: Self.uid).tagState
        let (reader, target) = try await TearingSweep.open(initial, modulations: [.iso14443A])
        let tag = try await Self.light(reader, target)
        #expect(try await tag.queryNDEFStatus().status == .notSupported)
        do {
            try await tag.format(force: true)
            Issue.record("formatted a factory Light")
        } catch {
            #expect(error.code == .notSupported)
            #expect(error.reason.contains("SetConfiguration") && error.reason.contains("Nothing was written"))
        }
        #expect(await TearingSweep.state(reader) == initial)
    }

    @Test("a renamed Light: format writes the 15-byte CC into file 00 and NLEN 0000 into file 04; a written message reads back on a fresh reader")
    func formatWriteRead() async throws {
        let (reader, target) = try await TearingSweep.open(DESFireLightVirtualTag(uid: Self.uid, renamedForTypeFour: true).tagState, modulations: [.iso14443A])
        let tag = try await Self.light(reader, target)
        #expect(try await tag.queryNDEFStatus().status == .notSupported)
        try await tag.format(force: false)
        let formatted = try #require(await TearingSweep.state(reader))
        #expect(Array(try Self.fileBytes(formatted, .data00).prefix(15)) == hex("000F 2000FF 00FF 0406 E104 0100 00 00"))
        let message = try Self.url("https://example.com/light")
        try await tag.writeNDEF(message, verify: true)
        let written = try #require(await TearingSweep.state(reader))
        let encoded = try message.encoded()
        #expect(Array(try Self.fileBytes(written, .data04).prefix(2 + encoded.count)) == [0, UInt8(encoded.count)] + encoded)
        let (freshReader, freshTarget) = try await TearingSweep.open(written, modulations: [.iso14443A])
        let fresh = try await Self.light(freshReader, freshTarget)
        #expect(try await fresh.readNDEF() == message)
        let query = try await fresh.queryNDEFStatus()
        #expect(query.status == .readWrite && query.capacity == 254)
    }

    @Test("format of a renamed Light whose file 00 holds other data refuses without force (alreadyFormatted), nothing written")
    func formatRefusesData() async throws {
        let chip = DESFireLightVirtualTag(uid: Self.uid, renamedForTypeFour: true)
        let (reader0, _) = try await TearingSweep.open(chip.tagState, modulations: [.iso14443A])
        // Put data into file 00 through ISO UPDATE BINARY (free on a renamed Light).
        _ = try await reader0.transceive(Bytes(hex("00A4040007D2760000850101 00")), mode: .standard, timeout: .seconds(1))
        _ = try await reader0.transceive(Bytes(hex("00A4000C02E103")), mode: .standard, timeout: .seconds(1))
        _ = try await reader0.transceive(Bytes(hex("00D6000003414243")), mode: .standard, timeout: .seconds(1))
        let initial = try #require(await TearingSweep.state(reader0))
        #expect(Array(try Self.fileBytes(initial, .data00).prefix(3)) == hex("414243"))
        let (reader, target) = try await TearingSweep.open(initial, modulations: [.iso14443A])
        let tag = try await Self.light(reader, target)
        await #expect(throws: NFCTagError.self) { try await tag.format(force: false) }
        #expect(await TearingSweep.state(reader) == initial)
    }

    @Test("lock: EV2 authentication with key 0, ChangeFileSettings of file 04 to read free / write never (FF EF in the tag file), then CC byte 14 FF; read-only gaps none on a fresh reader")
    func lock() async throws {
        let message = try Self.url("https://example.com/locked")
        let (reader, target) = try await TearingSweep.open(try Self.formatted(message), modulations: [.iso14443A])
        let tag = try await Self.light(reader, target)
        try await tag.writeLock()
        let after = try #require(await TearingSweep.state(reader))
        #expect(after.attributes?["settings04"] == "0000FFEF000100")
        #expect(try Self.fileBytes(after, .data00)[14] == 0xFF)
        let (freshReader, freshTarget) = try await TearingSweep.open(after, modulations: [.iso14443A])
        let fresh = try await Self.light(freshReader, freshTarget)
        #expect(try await fresh.queryNDEFStatus().status == .readOnly)
        #expect(try await fresh.readOnlyGaps().isEmpty)
        #expect(try await fresh.readNDEF() == message)
        await #expect(throws: NFCTagError.self) { try await fresh.writeNDEF(try Self.url("https://example.com/x"), verify: false) }
        // The chip itself refuses UPDATE BINARY now, whatever the CC says.
        let answer = try await freshReader.transceive(Bytes(hex("00D6000002 0000")), mode: .standard, timeout: .seconds(1))
        #expect(answer.array.suffix(2) == [0x69, 0x86] || answer.array.suffix(2) == [0x69, 0x82])
    }

    @Test("lock with the wrong application key: authenticationFailed, the tag file byte-identical")
    func lockWrongKey() async throws {
        let initial = try Self.formatted(try Self.url("https://example.com/"))
        let (reader, target) = try await TearingSweep.open(initial, modulations: [.iso14443A])
        let tag = try await Self.light(reader, target, key: [UInt8](repeating: 0x11, count: 16))
        do {
            try await tag.writeLock()
            Issue.record("locked with the wrong key")
        } catch {
            #expect(error.code == .authenticationFailed)
        }
        #expect(await TearingSweep.state(reader) == initial)
    }

    @Test("the commands the Light lacks (SelectApplication, CreateApplication, CreateStdDataFile, FormatPICC, legacy/EV1 authentication) answer 91 1C; GetFileIDs lists the six files")
    func absentCommands() throws {
        let chip = DESFireLightVirtualTag(uid: Self.uid)
        chip.powerOn()
        for command in DESFireLight.absentCommands.sorted() {
            #expect(chip.respond(toAPDU: [0x90, command, 0x00, 0x00, 0x01, 0x00, 0x00]) == [0x91, 0x1C], "\(command)")
            _ = chip.respond(toAPDU: hex("00A4040C10") + DESFireLight.factoryDFName)
            #expect(chip.respond(toAPDU: [0x90, command, 0x00, 0x00, 0x01, 0x00, 0x00]) == [0x91, 0x1C], "\(command) in the DF")
        }
        _ = chip.respond(toAPDU: hex("00A4040C10") + DESFireLight.factoryDFName)
        #expect(chip.respond(toAPDU: hex("906F000000")) == hex("00 01 03 04 0F 1F 9100"))
        #expect(chip.respond(toAPDU: hex("9061000000")) == hex("00EF 01EF 04EF 1FEF 9100"))
    }

    @Test("file settings: every Light file type parses and re-encodes; every truncation, unknown type and reserved access nibble is malformed")
    func fileSettingsParser() throws {
        for file in DESFireLight.File.allCases {
            let chip = DESFireLightVirtualTag(uid: Self.uid)
            let bytes = try #require(chip.fileSettings[file]).encoded
            let parsed = try DESFireLightFileSettings(parsing: bytes)
            #expect(parsed.encoded == bytes)
            #expect(parsed.dataFileSize == file.dataSize)
            for length in 0..<bytes.count {
                #expect(throws: NTAG424Error.self) { try DESFireLightFileSettings(parsing: Array(bytes.prefix(length))) }
            }
            #expect(throws: NTAG424Error.self) { try DESFireLightFileSettings(parsing: bytes + [0]) }
        }
        #expect(throws: NTAG424Error.self) { try DESFireLightFileSettings(parsing: hex("01 00 EEEE 000100")) }
        #expect(throws: NTAG424Error.self) { try DESFireLightFileSettings(parsing: hex("00 00 E5EE 000100")) }
    }

    @Test("hostile tag files: a DF name of 17 bytes, a settings attribute of the wrong type or size, a short key, short memory are refused")
    func hostileTagFiles() throws {
        let good = DESFireLightVirtualTag(uid: Self.uid).tagState
        #expect(DESFireLightVirtualTag(state: good) != nil)
        var bad: [TagState] = []
        for (key, value) in [("dfName", String(repeating: "AB", count: 17)), ("dfFileID", "XYZ"), ("settings04", "0200EEEE000100"), ("settings00", "0000EEEE001000"),
                             ("key3", "0011"), ("keyVersions", "00"), ("isoFileID01", "G1")] {
            var state = good
            state.attributes?[key] = value
            bad.append(state)
        }
        var short = good
        short.memory = String(short.memory.dropLast(2))
        bad.append(short)
        for state in bad { #expect(DESFireLightVirtualTag(state: state) == nil, "\(state.attributes ?? [:])") }
    }

    // MARK: Tearing

    @Test("tearing sweep of format on a renamed Light: cut after or inside any command, the tag is unformatted or formatted and empty, never corrupt")
    func formatTearingSweep() async throws {
        let outcomes = try await TearingSweep.run(
            "DESFire Light format", initial: DESFireLightVirtualTag(uid: Self.uid, renamedForTypeFour: true).tagState,
            makeTag: { reader, target in try await Self.light(reader, target) },
            operation: { tag throws(NFCTagError) in try await tag.format(force: false) },
            classify: { tag in
                let query = try await tag.queryNDEFStatus()
                if query.status == .notSupported { return "unformatted" }
                return try await tag.readNDEF() == .empty ? "formatted, empty" : "corrupt: \(query)"
            })
        #expect(outcomes["formatted, empty", default: 0] > 0 && outcomes["unformatted", default: 0] > 0, "\(outcomes)")
    }

    @Test("tearing sweep of write: old, empty or new message, never corrupt")
    func writeTearingSweep() async throws {
        let old = try Self.url("https://example.com/old"), new = try Self.url("https://example.com/a-new-and-longer-message")
        let outcomes = try await TearingSweep.run(
            "DESFire Light write", initial: try Self.formatted(old),
            makeTag: { reader, target in try await Self.light(reader, target) },
            operation: { tag throws(NFCTagError) in try await tag.writeNDEF(new, verify: false) },
            classify: TearingSweep.messageClassifier(old: old, new: new))
        #expect(outcomes["new", default: 0] > 0, "\(outcomes)")
    }

    @Test("tearing sweep of lock: cut after or inside any command, the tag is writable or read-only for good, and a re-run completes it")
    func lockTearingSweep() async throws {
        let outcomes = try await TearingSweep.run(
            "DESFire Light lock", initial: try Self.formatted(try Self.url("https://example.com/")),
            makeTag: { reader, target in try await Self.light(reader, target) },
            operation: { tag throws(NFCTagError) in try await tag.writeLock() },
            classify: { tag in
                let query = try await tag.queryNDEFStatus()
                let gaps = try await tag.readOnlyGaps()
                if query.status == .readOnly { return gaps.isEmpty ? "locked" : "corrupt: read-only reported with \(gaps)" }
                try await tag.writeLock()
                let again = try await tag.readOnlyGaps()
                let status = try await tag.queryNDEFStatus().status
                return again.isEmpty && status == .readOnly ? "not locked, completed by a re-run" : "corrupt: re-run left \(again)"
            })
        #expect(outcomes["not locked, completed by a re-run", default: 0] > 0 && outcomes["locked", default: 0] > 0, "\(outcomes)")
    }
}
