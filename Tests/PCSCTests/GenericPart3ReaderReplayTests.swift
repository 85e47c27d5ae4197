import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags
@testable import PCSCReaderEmulator

/// The virtual reader holding a trace's tag (`pcsc-reader-emulator --replay`), in process: what
/// each pseudo-APDU gets from a PC/SC trace written out by hand.
@Suite("the virtual PC/SC reader playing a reader trace", .tags(.pcsc), .timeLimit(.minutes(1)))
struct GenericPart3ReaderReplayTests {
    /// A trace as NFCKit's PC/SC reader records an NTAG215: no ATQA, SAK from the card name.
    static let trace = """
        {"format":"nfckit-reader-trace","version":1,"tool":"nfctool 0.1.0","connection":"pcsc","reader":"NFCKit test PCD 40123 00 00","firmware":null,"profile":"generic PC/SC Part 3","libnfc":null,"pcscLite":null,"modulations":["iso14443a","iso15693"],"listsSeveralTargets":false,"feedback":null,"redacted":true}
        {"n":1,"call":"poll","modulations":["iso14443a"],"found":{"type":"iso14443a","uid":"0453494D000001","atqa":"","sak":"00","ats":""},"us":900}
        {"n":2,"call":"checkCanSend","mode":"raw","command":"60","error":{"code":"notSupported","reason":"the PC/SC reader cannot send GET_VERSION","detail":null},"us":1}
        {"n":3,"call":"transceive","mode":"standard","command":"3003","answer":"E1103E000300FE000000000000000000","us":300}
        {"n":4,"call":"transceive","mode":"standard","command":"30F0","error":{"code":"nak","reason":"address out of range","detail":0},"us":300}
        {"n":5,"call":"transceive","mode":"standard","command":"3004","error":{"code":"timeout","reason":"no answer","detail":null},"us":300}
        {"n":6,"call":"transceive","mode":"standard","command":"A20500000000","answer":"","us":300}
        {"n":7,"call":"transceive","mode":"standard","command":"3006","error":{"code":"tagLost","reason":"the card left","detail":null},"us":300}
        {"n":8,"call":"transceive","mode":"standard","command":"3008","answer":"00000000000000000000000000000000","us":300}

        """

    static func reader() throws -> (GenericPart3Reader, TracePlayerTag) {
        let tag = try #require(TracePlayerTag.make(try ReaderTrace.parse(Array(trace.utf8))))
        let reader = GenericPart3Reader(field: SimulatorConfiguration.field([(tag: tag, file: nil)], faultPlan: .none))
        return (reader, tag)
    }

    @Test("the ATR and GET DATA UID come from the recorded target; the recorded answers and errors come back as the status words PC/SC turned them into")
    func playsRecordedAnswers() throws {
        let (reader, _) = try Self.reader()
        #expect(reader.atr.map { Hex.encode($0.array).uppercased() } == "3B8F8001804F0CA0000003060300030000000068")
        #expect(reader.respond(to: [0xFF, 0xCA, 0x00, 0x00, 0x00]) == [0x04, 0x53, 0x49, 0x4D, 0x00, 0x00, 0x01, 0x90, 0x00])
        #expect(reader.respond(to: [0xFF, 0xB0, 0x00, 0x03, 0x10]) == [0xE1, 0x10, 0x3E, 0x00, 0x03, 0x00, 0xFE] + Array(repeating: 0, count: 9) + [0x90, 0x00])
        #expect(reader.respond(to: [0xFF, 0xB0, 0x00, 0xF0, 0x10]) == [0x6A, 0x82], "a recorded NAK")
        #expect(reader.respond(to: [0xFF, 0xB0, 0x00, 0x04, 0x10]) == [0x63, 0x00], "a recorded timeout")
        #expect(reader.respond(to: [0xFF, 0xD6, 0x00, 0x05, 0x04, 0x00, 0x00, 0x00, 0x00]) == [0x90, 0x00], "a recorded ACK")
        #expect(reader.respond(to: [0xFF, 0xB0, 0x00, 0x06, 0x10]) == [0x6F, 0x00], "a recorded lost card: the transport's error, no status word")
        #expect(reader.respond(to: [0xFF, 0xB0, 0x00, 0x08, 0x10]) == Array(repeating: 0, count: 16) + [0x90, 0x00])
    }

    @Test("a command that differs gets 6F00, so does every later APDU (GET DATA too), and the divergence is reported once with the exchange")
    func divergenceAnswers6F00() throws {
        let (reader, tag) = try Self.reader()
        var messages: [String] = []
        tag.onDivergence = { messages.append($0) }
        #expect(reader.respond(to: [0xFF, 0xB0, 0x00, 0x04, 0x10]) == [0x6F, 0x00])
        #expect(reader.respond(to: [0xFF, 0xB0, 0x00, 0xF0, 0x10]) == [0x6F, 0x00], "the trace's next command does not bring it back")
        #expect(reader.respond(to: [0xFF, 0xCA, 0x00, 0x00, 0x00]) == [0x6F, 0x00])
        #expect(messages == ["diverged at exchange 3: sent 30 04, trace has 30 03"])
    }
}
