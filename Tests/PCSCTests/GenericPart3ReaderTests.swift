import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags
@testable import PCSC
@testable import PCSCReaderEmulator

/// The virtual reader's answers to pseudo-APDUs, checked against the tag model underneath
/// (read through the model's own frames, not through the profile).
@Suite("the generic PC/SC Part 3 profile of the virtual reader", .tags(.pcsc), .timeLimit(.minutes(1)))
struct GenericPart3ReaderTests {
    static func reader(_ spec: String) throws -> GenericPart3Reader {
        GenericPart3Reader(field: try SimulatorConfiguration(parsing: spec).makeField())
    }

    static func sw(_ answer: [UInt8]) -> UInt16 { answer.count >= 2 ? UInt16(answer[answer.count - 2]) << 8 | UInt16(answer[answer.count - 1]) : 0 }

    @Test("GET DATA UID: Le 0 the whole UID; Le longer 6282 after the UID; Le shorter 6Cxx; P2 ≠ 0 6B00; P1 02 6B00")
    func getDataLeRules() throws {
        let r = try Self.reader("sim:ntag215")
        let uid: [UInt8] = [0x04, 0x53, 0x49, 0x4D, 0x00, 0x00, 0x01]
        #expect(r.respond(to: [0xFF, 0xCA, 0x00, 0x00, 0x00]) == uid + [0x90, 0x00])
        #expect(r.respond(to: [0xFF, 0xCA, 0x00, 0x00, 0x07]) == uid + [0x90, 0x00])
        #expect(r.respond(to: [0xFF, 0xCA, 0x00, 0x00, 0x0A]) == uid + [0x62, 0x82])
        #expect(r.respond(to: [0xFF, 0xCA, 0x00, 0x00, 0x04]) == [0x6C, 0x07])
        #expect(r.respond(to: [0xFF, 0xCA, 0x00, 0x01, 0x00]) == [0x6B, 0x00])
        #expect(r.respond(to: [0xFF, 0xCA, 0x02, 0x00, 0x00]) == [0x6B, 0x00])
        #expect(r.respond(to: [0xFF, 0xCA, 0x01, 0x00, 0x00]) == [0x6A, 0x81], "a Type 2 tag has no ATS")
    }

    @Test("READ BINARY on a Type 2 tag returns the tag's READ of 4 pages; past the end 6A82; Le 17 6700")
    func readBinaryType2() throws {
        let r = try Self.reader("sim:ntag215")
        guard case .frame(.data(let pages)) = r.field.exchange(frame: [0x30, 0x04]) else { Issue.record("the model did not answer READ"); return }
        #expect(r.respond(to: [0xFF, 0xB0, 0x00, 0x04, 0x10]) == pages + [0x90, 0x00])
        #expect(r.respond(to: [0xFF, 0xB0, 0x00, 0x04, 0x04]) == Array(pages.prefix(4)) + [0x90, 0x00])
        #expect(r.respond(to: [0xFF, 0xB0, 0x00, 0xF0, 0x10]) == [0x6A, 0x82], "NTAG215 has pages 0–134")
        #expect(r.respond(to: [0xFF, 0xB0, 0x00, 0x04, 0x11]) == [0x67, 0x00])
        #expect(r.respond(to: [0xFF, 0xB0, 0x01, 0x00, 0x10]) == [0x6A, 0x82])
    }

    @Test("UPDATE BINARY on a Type 2 tag writes one page, seen by the model's READ; 8 bytes 6700; Lc not matching 6700")
    func updateBinaryType2() throws {
        let r = try Self.reader("sim:ntag215")
        #expect(r.respond(to: [0xFF, 0xD6, 0x00, 0x05, 0x04, 0xDE, 0xAD, 0xBE, 0xEF]) == [0x90, 0x00])
        guard case .frame(.data(let pages)) = r.field.exchange(frame: [0x30, 0x05]) else { Issue.record("no READ answer"); return }
        #expect(Array(pages.prefix(4)) == [0xDE, 0xAD, 0xBE, 0xEF])
        #expect(r.respond(to: [0xFF, 0xD6, 0x00, 0x05, 0x08, 1, 2, 3, 4, 5, 6, 7, 8]) == [0x67, 0x00])
        #expect(r.respond(to: [0xFF, 0xD6, 0x00, 0x05, 0x05, 1, 2, 3, 4]) == [0x67, 0x00])
    }

    @Test("ISO 15693: READ BINARY gives one block, UPDATE BINARY writes it, a block past the end 6A82")
    func iso15693Blocks() throws {
        let r = try Self.reader("sim:slix2")
        #expect(r.respond(to: [0xFF, 0xD6, 0x00, 0x10, 0x04, 1, 2, 3, 4]) == [0x90, 0x00])
        guard case .frame(.data(let answer)) = r.field.exchange(frame: [0x02, 0x20, 0x10]) else { Issue.record("no READ SINGLE BLOCK answer"); return }
        #expect(answer == [0x00, 1, 2, 3, 4])
        #expect(r.respond(to: [0xFF, 0xB0, 0x00, 0x10, 0x00]) == [1, 2, 3, 4, 0x90, 0x00])
        #expect(r.respond(to: [0xFF, 0xB0, 0x00, 0x10, 0x08]) == [1, 2, 3, 4, 0x62, 0x82])
        #expect(r.respond(to: [0xFF, 0xB0, 0x00, 0xF0, 0x00]) == [0x6A, 0x82], "SLIX2 has blocks 0–79")
    }

    @Test("a Type 4 tag: ISO-DEP ATR from the ATS, GET DATA ATS, plain APDUs reach the tag, FF B0 6A81")
    func type4() throws {
        let r = try Self.reader("sim:type4")
        guard let tag = r.field.currentTag, case .iso14443A(let a) = tag.targetInfo else { Issue.record("no type A tag"); return }
        #expect(try PCSCContactlessATR(parsing: try #require(r.atr)) == .isoDEP(historicalBytes: a.historicalBytes))
        #expect(r.respond(to: [0xFF, 0xCA, 0x01, 0x00, 0x00]) == a.ats.array + [0x90, 0x00])
        let select: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00]
        #expect(r.respond(to: select).suffix(2) == [0x90, 0x00])
        #expect(r.respond(to: [0xFF, 0xB0, 0x00, 0x00, 0x10]) == [0x6A, 0x81])
    }

    @Test("connection strings: pcsc, pcsc:NAME prefix, pcsc:#N from 0; pcsc:# without a number is refused")
    func selectors() throws {
        let names = ["ACS ACR1252 Dual Reader [ACR1252 Dual Reader PICC] 00 00", "ACS ACR1252 Dual Reader [ACR1252 Dual Reader SAM] 00 01", "Identiv uTrust 3700 F 00 00"]
        #expect(try PCSCReader.Selector(parsing: "pcsc").pick(from: names) == names[0])
        #expect(try PCSCReader.Selector(parsing: "pcsc:").pick(from: names) == names[0])
        #expect(try PCSCReader.Selector(parsing: "pcsc:Identiv").pick(from: names) == names[2])
        #expect(try PCSCReader.Selector(parsing: "pcsc:#1").pick(from: names) == names[1])
        #expect(try PCSCReader.Selector(parsing: "pcsc:#3").pick(from: names) == nil)
        #expect(try PCSCReader.Selector(parsing: "pcsc:OMNIKEY").pick(from: names) == nil)
        #expect(throws: NFCReaderDeviceError.self) { try PCSCReader.Selector(parsing: "pcsc:#x") }
        #expect(!PCSCReader.Selector.accepts("pcsclite"))
        #expect(!PCSCReader.Selector.accepts("pn532_uart:/dev/ttyUSB0"))
    }

    @Test("an ISO 15693 UID from GET DATA is turned most significant byte first whichever way the reader gives it")
    func iso15693UIDOrder() {
        let msbFirst = Bytes([0xE0, 0x04, 0x01, 0x08, 0x53, 0x49, 0x4D, 0x01])
        #expect(PCSCReader.mostSignificantFirst(Bytes(msbFirst.array.reversed())) == msbFirst)
        #expect(PCSCReader.mostSignificantFirst(msbFirst) == msbFirst)
        // E0 at both ends (the ST25TV02KC of ST's community trace): the known maker (02) decides.
        let both = Bytes([0xE0, 0x02, 0x08, 0x00, 0x0B, 0x1B, 0x31, 0xE0])
        #expect(PCSCReader.mostSignificantFirst(Bytes(both.array.reversed())) == both)
        #expect(PCSCReader.mostSignificantFirst(both) == both)
    }

    @Test("SCARD_E_PROTO_MISMATCH on a transmit is the tag lost (the card under the handle changed), on connect a protocol the card cannot speak")
    func protocolMismatchByCall() {
        #expect(PCSCReader.readerError(PCSCError(code: PCSCError.protocolMismatch, call: "SCardTransmit")).code == .tagLost)
        #expect(PCSCReader.readerError(PCSCError(code: PCSCError.protocolMismatch, call: "SCardConnect")).code == .notSupported)
    }

    @Test("status words map to the seam's codes: 6A81 notSupported, 6A82 and 6982 nak, 6300 timeout, 6581 chip")
    func statusWords() {
        #expect(PCSCReader.statusError(0x6A81, "x", reader: "r").code == .notSupported)
        #expect(PCSCReader.statusError(0x6A82, "x", reader: "r").code == .nak)
        #expect(PCSCReader.statusError(0x6982, "x", reader: "r").code == .nak)
        #expect(PCSCReader.statusError(0x6300, "x", reader: "r").code == .timeout)
        #expect(PCSCReader.statusError(0x6581, "x", reader: "r").code == .chip)
        #expect(PCSCReader.statusError(0x6A82, "READ page 200", reader: "r").reason.contains("6A82 (address out of range)"))
    }

    @Test("the generic profile carries READ, FAST_READ, WRITE and ISO 15693 block reads/writes, nothing else")
    func carriedCommands() {
        #expect(PCSCReader.type2Carries([0x30, 0x04]))
        #expect(PCSCReader.type2Carries([0xA2, 0x04, 1, 2, 3, 4]))
        #expect(PCSCReader.type2Carries([0x3A, 0x00, 0x0F]))
        #expect(!PCSCReader.type2Carries([0x60]), "GET_VERSION")
        #expect(!PCSCReader.type2Carries([0x1B, 1, 2, 3, 4]), "PWD_AUTH")
        #expect(PCSCReader.iso15693Carries([0x42, 0x20, 0x00]))
        #expect(PCSCReader.iso15693Carries([0x22, 0x21] + [UInt8](repeating: 0, count: 8) + [0x03, 1, 2, 3, 4]))
        #expect(!PCSCReader.iso15693Carries([0x22, 0x22] + [UInt8](repeating: 0, count: 8) + [0x03]), "LOCK BLOCK")
        #expect(!PCSCReader.iso15693Carries([0x02, 0x2B]), "GET SYSTEM INFORMATION")
    }
}
