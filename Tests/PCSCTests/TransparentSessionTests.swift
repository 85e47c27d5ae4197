import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags
@testable import PCSC
@testable import PCSCReaderEmulator

/// The virtual reader's PC/SC Part 3 transparent session and ACR122U direct transmit, byte for
/// byte, checked against the tag model's own answers; the profile table; the data object codec.
@Suite("the transparent session and direct transmit of the virtual reader, the PC/SC profile table", .tags(.pcsc), .timeLimit(.minutes(1)))
struct TransparentSessionTests {
    static func reader(_ spec: String, _ profile: EmulatedReaderProfile) throws -> GenericPart3Reader {
        GenericPart3Reader(field: try SimulatorConfiguration(parsing: spec).makeField(), profile: profile)
    }

    static let ok: [UInt8] = [0xC0, 0x03, 0x00, 0x90, 0x00]
    static let start: [UInt8] = [0xFF, 0xC2, 0x00, 0x00, 0x02, 0x81, 0x00, 0x00]
    static let end: [UInt8] = [0xFF, 0xC2, 0x00, 0x00, 0x02, 0x82, 0x00, 0x00]
    static let to15693: [UInt8] = [0xFF, 0xC2, 0x00, 0x02, 0x04, 0x8F, 0x02, 0x02, 0x03, 0x00]
    static let to14443A: [UInt8] = [0xFF, 0xC2, 0x00, 0x02, 0x04, 0x8F, 0x02, 0x00, 0x03, 0x00]

    /// `FF C2 00 01` with a 1-second timer and a transceive of `frame`.
    static func transceive(_ frame: [UInt8]) -> [UInt8] {
        let objects: [UInt8] = [0x5F, 0x46, 0x04, 0x40, 0x42, 0x0F, 0x00, 0x95, UInt8(frame.count)] + frame
        return [0xFF, 0xC2, 0x00, 0x01, UInt8(objects.count)] + objects + [0x00]
    }

    @Test("ISO 15693: start session, switch to layer 3, GET SYSTEM INFORMATION answered in 92/96/97 objects as the model answers it, end session")
    func iso15693Session() throws {
        let r = try Self.reader("sim:slix2", .transparentSession)
        // The model's own answer, from a second reader over an identical tag.
        let twin = try Self.reader("sim:slix2", .generic)
        guard case .frame(.data(let info)) = twin.field.exchange(frame: [0x02, 0x2B]) else { Issue.record("no GET SYSTEM INFORMATION answer"); return }
        #expect(r.respond(to: Self.start) == Self.ok + [0x90, 0x00])
        #expect(r.respond(to: Self.to15693) == Self.ok + [0x90, 0x00])
        #expect(r.respond(to: Self.transceive([0x02, 0x2B]))
            == Self.ok + [0x92, 0x01, 0x00, 0x96, 0x02, 0x00, 0x00, 0x97, UInt8(info.count)] + info + [0x90, 0x00])
        #expect(r.session.timerMicroseconds == 1_000_000, "the timer object is 4 bytes, microseconds, least significant first")
        #expect(r.respond(to: Self.end) == Self.ok + [0x90, 0x00])
        #expect(r.respond(to: Self.transceive([0x02, 0x2B])) == [0xC0, 0x03, 0x02, 0x6A, 0x81, 0x90, 0x00], "no session: object 2 (transceive) refused")
    }

    @Test("LOCK BLOCK through the session locks the model's block: a later WRITE SINGLE BLOCK of it gets the tag's error")
    func lockBlockThroughSession() throws {
        let r = try Self.reader("sim:slix2", .transparentSession)
        _ = r.respond(to: Self.start)
        _ = r.respond(to: Self.to15693)
        let locked = r.respond(to: Self.transceive([0x02, ISO15693Command.lockBlock, 0x05]))
        #expect(locked == Self.ok + [0x92, 0x01, 0x00, 0x96, 0x02, 0x00, 0x00, 0x97, 0x01, 0x00, 0x90, 0x00])
        guard case .frame(.data(let write)) = r.field.exchange(frame: [0x02, ISO15693Command.writeSingleBlock, 0x05, 1, 2, 3, 4]) else {
            Issue.record("no WRITE answer"); return
        }
        #expect(write.first.map { $0 & ISO15693ResponseFlag.error != 0 } == true, "block 5 is locked in the model")
    }

    @Test("Type 2 at layer 3: GET_VERSION as the model answers; WRITE's ACK as a 4-bit answer (92 01 04, 97 01 0A); silence as 6401")
    func type2Session() throws {
        let r = try Self.reader("sim:ntag215", .transparentSession)
        let twin = try Self.reader("sim:ntag215", .generic)
        guard case .frame(.data(let version)) = twin.field.exchange(frame: [0x60]) else { Issue.record("no GET_VERSION answer"); return }
        #expect(r.respond(to: Self.start) == Self.ok + [0x90, 0x00])
        #expect(r.respond(to: Self.to14443A) == Self.ok + [0x90, 0x00])
        #expect(r.respond(to: Self.transceive([0x60])) == Self.ok + [0x92, 0x01, 0x00, 0x96, 0x02, 0x00, 0x00, 0x97, 0x08] + version + [0x90, 0x00])
        #expect(r.respond(to: Self.transceive([0xA2, 0x06, 1, 2, 3, 4]))
            == Self.ok + [0x92, 0x01, 0x04, 0x96, 0x02, 0x00, 0x00, 0x97, 0x01, 0x0A, 0x90, 0x00])
        guard case .frame(.data(let page)) = twin.field.exchange(frame: [0x30, 0x06]), case .frame(.data(let written)) = r.field.exchange(frame: [0x30, 0x06]) else {
            Issue.record("no READ answer"); return
        }
        #expect(Array(written.prefix(4)) == [1, 2, 3, 4] && Array(page.prefix(4)) != [1, 2, 3, 4])
        #expect(r.respond(to: Self.transceive([0x99])) == [0xC0, 0x03, 0x02, 0x64, 0x01, 0x90, 0x00], "NTAG goes mute on an unknown command: no answer from the card at object 2")
    }

    @Test("errors: a standard the card does not speak 6401 at object 1; FeliCa 6A81; switch before start 6A81; an unknown object 6A81; a bad Lc 6700; P2 03 6B00")
    func sessionErrors() throws {
        let r = try Self.reader("sim:slix2", .transparentSession)
        #expect(r.respond(to: Self.to15693) == [0xC0, 0x03, 0x01, 0x6A, 0x81, 0x90, 0x00], "no session started")
        _ = r.respond(to: Self.start)
        #expect(r.respond(to: Self.to14443A) == [0xC0, 0x03, 0x01, 0x64, 0x01, 0x90, 0x00], "an ISO 15693 card does not answer type A")
        #expect(r.respond(to: [0xFF, 0xC2, 0x00, 0x02, 0x04, 0x8F, 0x02, 0x03, 0x03]) == [0xC0, 0x03, 0x01, 0x6A, 0x81, 0x90, 0x00])
        #expect(r.respond(to: [0xFF, 0xC2, 0x00, 0x00, 0x04, 0x81, 0x00, 0xAA, 0x00]) == [0xC0, 0x03, 0x02, 0x6A, 0x81, 0x90, 0x00])
        #expect(r.respond(to: [0xFF, 0xC2, 0x00, 0x00, 0x05, 0x81, 0x00]) == [0x67, 0x00])
        #expect(r.respond(to: [0xFF, 0xC2, 0x00, 0x03, 0x02, 0x81, 0x00]) == [0x6B, 0x00])
        #expect(r.respond(to: [0xFF, 0xC2, 0x00, 0x00, 0x02, 0x80, 0x00]) == Self.ok + [0x80, 0x03, 0x02, 0x02, 0x00, 0x90, 0x00], "version 2.02")
    }

    @Test("the generic profile and the ACR122U profile do not answer FF C2 (6A81)")
    func otherProfilesRefuseSession() throws {
        #expect(try Self.reader("sim:slix2", .generic).respond(to: Self.start) == [0x6A, 0x81])
        #expect(try Self.reader("sim:ntag215", .acr122u).respond(to: Self.start) == [0x6A, 0x81])
    }

    @Test("ACR122U direct transmit: InCommunicateThru GET_VERSION → D5 43 00 + the model's answer; WRITE's 4-bit ACK → status 02; generic profile 6A81")
    func directTransmit() throws {
        let r = try Self.reader("sim:ntag215", .acr122u)
        let twin = try Self.reader("sim:ntag215", .generic)
        guard case .frame(.data(let version)) = twin.field.exchange(frame: [0x60]) else { Issue.record("no GET_VERSION answer"); return }
        #expect(r.respond(to: [0xFF, 0x00, 0x00, 0x00, 0x03, 0xD4, 0x42, 0x60]) == [0xD5, 0x43, 0x00] + version + [0x90, 0x00])
        #expect(r.respond(to: [0xFF, 0x00, 0x00, 0x00, 0x08, 0xD4, 0x42, 0xA2, 0x06, 1, 2, 3, 4]) == [0xD5, 0x43, 0x02, 0x90, 0x00])
        #expect(r.respond(to: [0xFF, 0x00, 0x00, 0x00, 0x02, 0xD4, 0x02]) == [0x63, 0x00], "other PN532 commands are not emulated")
        #expect(try Self.reader("sim:ntag215", .generic).respond(to: [0xFF, 0x00, 0x00, 0x00, 0x03, 0xD4, 0x42, 0x60]) == [0x6A, 0x81])
    }

    @Test("data objects: one- and two-byte tags, 81 nn lengths; a length past the end fails at its offset")
    func dataObjectCodec() throws {
        let objects = try PCSCPart3.DataObject.parse([0xC0, 0x03, 0x00, 0x90, 0x00, 0x5F, 0x46, 0x04, 1, 2, 3, 4, 0x97, 0x00])
        #expect(objects == [.init(0xC0, [0x00, 0x90, 0x00]), .init(0x5F46, [1, 2, 3, 4]), .init(0x97, [])])
        let long = PCSCPart3.DataObject(0x97, Array(repeating: 7, count: 200))
        #expect(long.bytes.prefix(3) == [0x97, 0x81, 200])
        #expect(try PCSCPart3.DataObject.parse(long.bytes) == [long])
        #expect(throws: NFCTagError.self) { try PCSCPart3.DataObject.parse([0x97, 0x05, 1, 2]) }
        do {
            _ = try PCSCPart3.DataObject.parse([0xC0, 0x03, 0x00, 0x90, 0x00, 0x97, 0x05, 1, 2])
            Issue.record("a length past the end parsed")
        } catch {
            #expect(error.offset == 7)
        }
    }

    @Test("the profile table: names choose the family; paths per card kind and operation; an unknown reader is generic")
    func profileTable() {
        #expect(PCSCReaderProfile.matching(readerName: "ACS ACR1552 1S CL Reader [ACR1552 1S CL Reader PICC] 00 00") == .acr1552u)
        #expect(PCSCReaderProfile.matching(readerName: "ACS ACR122U PICC Interface 00 00") == .acr122u)
        #expect(PCSCReaderProfile.matching(readerName: "ACS ACR1252 1S CL Reader [ACR1252 1S CL Reader PICC] 00 00") == .acr1252u)
        #expect(PCSCReaderProfile.matching(readerName: "Identiv uTrust 3700 F CL Reader 00 00") == .utrust3700F)
        #expect(PCSCReaderProfile.matching(readerName: "NFCKit test PCD 40000 00 00") == .generic)
        #expect(PCSCReaderProfile.generic.path(for: .tagCommand, on: .iso15693) == nil)
        #expect(PCSCReaderProfile.generic.path(for: .write, on: .iso15693) == .storage)
        #expect(PCSCReaderProfile.acr1552u.path(for: .tagCommand, on: .iso15693) == .transparentSession)
        #expect(PCSCReaderProfile.acr1252u.path(for: .tagCommand, on: .iso15693) == nil, "the ACR1252U has no ISO 15693")
        #expect(PCSCReaderProfile.acr122u.path(for: .tagCommand, on: .type2) == .directTransmit)
        #expect(PCSCReaderProfile.acr122u.path(for: .apdu, on: .isoDEP) == .apdu)
    }
}
