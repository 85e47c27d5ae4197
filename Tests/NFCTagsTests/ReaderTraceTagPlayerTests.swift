import NFCCore
import NFCTags
import Testing

/// The tag's side of a trace (``ReaderTraceTagPlayer``), frame by frame: a recorded FAST_READ
/// played as the READs a PC/SC reader sends in its place.
@Suite("the trace player's FAST_READ as READs", .timeLimit(.minutes(1)))
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
        ReaderTraceTagPlayer(try ReaderTrace.parse(Array(trace.utf8)), splitsFastRead: splitting)
    }

    @Test("split: READ 0 gets the first 16 bytes, READ 4 the rest filled up with 00, then the next exchange; a recorded error goes to the first READ")
    func splitsFastRead() throws {
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
}
