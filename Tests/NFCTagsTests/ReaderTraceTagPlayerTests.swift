import NFCCore
import NFCTags
import Testing

/// The tag's side of a trace (``ReaderTraceTagPlayer``), frame by frame: recorded FAST_READs and
/// ISO 15693 requests played as the frames an emulated PC/SC reader sends in their place.
@Suite("the trace player carrying commands as a PC/SC reader does", .timeLimit(.minutes(1)))
struct ReaderTraceTagPlayerTests {
    /// FAST_READ of pages 0–5 (24 bytes 00…17), then READ of page 8, then one that failed.
    static let trace = """
        {"format":"nfckit-reader-trace","version":1,"tool":"nfctool 0.1.0","connection":"pcsc","reader":"ACS ACR122U PICC Interface 00 00","firmware":null,"profile":"ACS ACR122U","libnfc":null,"pcscLite":null,"modulations":["iso14443a"],"listsSeveralTargets":false,"feedback":null,"redacted":true}
        {"n":1,"call":"poll","modulations":["iso14443a"],"found":{"type":"iso14443a","uid":"0453494D000001","atqa":"","sak":"00","ats":""},"us":900}
        {"n":2,"call":"transceive","mode":"standard","command":"3A0005","answer":"000102030405060708090A0B0C0D0E0F1011121314151617","us":300}
        {"n":3,"call":"transceive","mode":"standard","command":"3008","answer":"202122232425262728292A2B2C2D2E2F","us":300}
        {"n":4,"call":"transceive","mode":"standard","command":"3A1020","error":{"code":"nak","reason":"NAK 0","detail":0},"us":300}

        """

    static func player(splitting: Bool) throws -> ReaderTraceTagPlayer {
        ReaderTraceTagPlayer(try ReaderTrace.parse(Array(trace.utf8)), carriesAsPCSC: splitting)
    }

    @Test("split: READ 0 gets the first 16 bytes, READ 4 the rest filled up with 00, then the next exchange; a recorded error goes to the first READ")
    func carriesAsPCSC() throws {
        var player = try Self.player(splitting: true)
        #expect(player.answer(to: [0x30, 0x00]) == .answer(Array(0x00...0x0F)))
        #expect(player.answer(to: [0x30, 0x04]) == .answer(Array(0x10...0x17) + [UInt8](repeating: 0, count: 8)))
        #expect(player.answer(to: [0x30, 0x08]) == .answer(Array(0x20...0x2F)))
        guard case .failed(let error) = player.answer(to: [0x30, 0x10]) else { Issue.record("the recorded NAK was not played"); return }
        #expect(error.code == .nak)
        #expect(player.divergence == nil)
    }

    @Test("split: a READ out of order (page 8 where page 4 is due) diverges naming the FAST_READ")
    func outOfOrderReadDiverges() throws {
        var player = try Self.player(splitting: true)
        #expect(player.answer(to: [0x30, 0x00]) == .answer(Array(0x00...0x0F)))
        #expect(player.answer(to: [0x30, 0x08]) == .diverged("diverged at exchange 2: sent 30 08, trace has 3A 00 05"))
    }

    @Test("not split (a PN532 sends FAST_READ itself): a READ in its place diverges; the FAST_READ itself gets the whole answer")
    func unsplitReadDiverges() throws {
        var player = try Self.player(splitting: false)
        #expect(player.answer(to: [0x30, 0x00]) == .diverged("diverged at exchange 2: sent 30 00, trace has 3A 00 05"))
        var again = try Self.player(splitting: false)
        #expect(again.answer(to: [0x3A, 0x00, 0x05]) == .answer(Array(0x00...0x17)))
    }

    /// An addressed ICODE SLIX2 trace: READ SINGLE BLOCK with the option flag, READ MULTIPLE
    /// BLOCKS of blocks 1–2, WRITE SINGLE BLOCK 5.
    static let vicinity = """
        {"format":"nfckit-reader-trace","version":1,"tool":"nfctool 0.1.0","connection":"pcsc","reader":"NFCKit test PCD 40123 00 00","firmware":null,"profile":"generic PC/SC Part 3","libnfc":null,"pcscLite":null,"modulations":["iso15693"],"listsSeveralTargets":false,"feedback":null,"redacted":true}
        {"n":1,"call":"poll","modulations":["iso15693"],"found":{"type":"iso15693","uid":"E004010853494D01","dsfid":0},"us":900}
        {"n":2,"call":"transceive","mode":"standard","command":"6220014D4953080104E000","answer":"0000E1402601","us":300}
        {"n":3,"call":"transceive","mode":"standard","command":"2223014D4953080104E00101","answer":"0003000000FE000000","us":300}
        {"n":4,"call":"transceive","mode":"standard","command":"2221014D4953080104E005AABBCCDD","answer":"00","us":300}

        """

    @Test("ISO 15693: the UID and option flag dropped, READ MULTIPLE BLOCKS as single blocks in turn, WRITE SINGLE BLOCK with its data; a wrong block diverges")
    func vicinityRequests() throws {
        var player = ReaderTraceTagPlayer(try ReaderTrace.parse(Array(Self.vicinity.utf8)), carriesAsPCSC: true)
        #expect(player.answer(to: [0x02, 0x20, 0x00]) == .answer([0x00, 0xE1, 0x40, 0x26, 0x01]), "without the security status byte")
        #expect(player.answer(to: [0x02, 0x20, 0x01]) == .answer([0x00, 0x03, 0x00, 0x00, 0x00]))
        #expect(player.answer(to: [0x02, 0x20, 0x02]) == .answer([0x00, 0xFE, 0x00, 0x00, 0x00]))
        #expect(player.answer(to: [0x02, 0x21, 0x05, 0xAA, 0xBB, 0xCC, 0xDD]) == .answer([0x00]))
        var other = ReaderTraceTagPlayer(try ReaderTrace.parse(Array(Self.vicinity.utf8)), carriesAsPCSC: true)
        #expect(other.answer(to: [0x02, 0x20, 0x01]) == .diverged("diverged at exchange 2: sent 02 20 01, trace has 62 20 01 4D 49 53 08 01 04 E0 00"))
        var libnfc = ReaderTraceTagPlayer(try ReaderTrace.parse(Array(Self.vicinity.utf8)))
        #expect(libnfc.answer(to: [0x02, 0x20, 0x00]) == .diverged("diverged at exchange 2: sent 02 20 00, trace has 62 20 01 4D 49 53 08 01 04 E0 00"))
    }
}
