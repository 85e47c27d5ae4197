import NFCCore
import NFCTags
import NFCTestSupport
import Testing

@Suite("PC/SC Part 3 ATRs of contactless cards", .tags(.pcsc), .timeLimit(.minutes(1)))
struct PCSCPart3ATRTests {
    /// A MIFARE Classic 1K's ATR as readers' manuals print it (Gemalto Prox-DU PC/SC guide,
    /// "ATR for MIFARE cards"): TCK 6A.
    static let classic1KATR: [UInt8] = [
        0x3B, 0x8F, 0x80, 0x01, 0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x6A,
    ]

    @Test("a MIFARE Classic 1K ATR from a reader manual parses as ISO 14443-A part 3, card name 0001")
    func parsesManualATR() throws {
        let atr = try PCSCContactlessATR(parsing: Bytes(Self.classic1KATR))
        #expect(atr == .storageCard(standard: 0x03, cardName: 0x0001))
    }

    @Test("encoding a storage card's ATR gives the manual's bytes, TCK included")
    func encodesManualATR() {
        #expect(PCSCContactlessATR.storageCard(standard: 0x03, cardName: 0x0001).bytes.array == Self.classic1KATR)
    }

    @Test("an ISO-DEP card's ATR carries the ATS historical bytes")
    func isoDEP() throws {
        let atr: [UInt8] = [0x3B, 0x81, 0x80, 0x01, 0x80, 0x80]
        #expect(try PCSCContactlessATR(parsing: Bytes(atr)) == .isoDEP(historicalBytes: Bytes([0x80])))
    }

    @Test("a wrong TCK, a short ATR and a contact card's ATR fail with the offset at fault")
    func malformed() {
        var wrong = Self.classic1KATR
        wrong[wrong.count - 1] ^= 0xFF
        #expect(throws: NFCTagError.self) { try PCSCContactlessATR(parsing: Bytes(wrong)) }
        do {
            _ = try PCSCContactlessATR(parsing: Bytes(wrong))
        } catch {
            #expect(error.offset == 19)
        }
        do {
            _ = try PCSCContactlessATR(parsing: Bytes([0x3B, 0x8F]))
            Issue.record("a 2-byte ATR parsed")
        } catch {
            #expect(error.offset == 2)
        }
        do {
            _ = try PCSCContactlessATR(parsing: Bytes([0x3B, 0x02, 0x14, 0x50, 0x00]))
            Issue.record("a contact card's ATR parsed")
        } catch {
            #expect(error.offset == 1)
        }
    }
}
