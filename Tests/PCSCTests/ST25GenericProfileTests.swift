import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags
@testable import PCSC
@testable import PCSCReaderEmulator

/// Blocks past 255 (an ST25DV64K) through the generic PC/SC profile: the host maps the extended
/// ISO 15693 commands to READ/UPDATE BINARY with the block number in P1-P2, the virtual reader
/// sends the tag the extended command (checked against the model's own frames).
@Suite("ISO 15693 blocks past 255 through the generic PC/SC profile", .tags(.pcsc), .timeLimit(.minutes(1)))
struct ST25GenericProfileTests {
    @Test("the generic profile carries EXTENDED READ SINGLE/MULTIPLE and EXTENDED WRITE SINGLE BLOCK, not EXTENDED LOCK BLOCK nor EXTENDED GET SYSTEM INFORMATION")
    func carriedExtendedCommands() {
        let uid = [UInt8](repeating: 0, count: 8)
        #expect(PCSCReader.iso15693Carries([0x22, 0x30] + uid + [0x00, 0x01]))
        #expect(PCSCReader.iso15693Carries([0x22, 0x33] + uid + [0x00, 0x01, 0x1F, 0x00]))
        #expect(PCSCReader.iso15693Carries([0x22, 0x31] + uid + [0x00, 0x01, 1, 2, 3, 4]))
        #expect(!PCSCReader.iso15693Carries([0x22, 0x32] + uid + [0x00, 0x01]), "EXTENDED LOCK BLOCK")
        #expect(!PCSCReader.iso15693Carries([0x02, 0x3B, 0x3F]), "EXTENDED GET SYSTEM INFORMATION")
        #expect(!PCSCReader.iso15693Carries([0x22, 0x30] + uid + [0x00]), "a 1-byte number is no extended read")
    }

    @Test("UPDATE BINARY and READ BINARY of block 0x0123 on an ST25DV64K reach the tag's block 291 (EXTENDED WRITE/READ SINGLE BLOCK), what the model reads itself")
    func blockPast255() throws {
        let r = GenericPart3Reader(field: try SimulatorConfiguration(parsing: "sim:st25dv64k").makeField())
        #expect(r.respond(to: [0xFF, 0xD6, 0x01, 0x23, 0x04, 0xDE, 0xAD, 0xBE, 0xEF]) == [0x90, 0x00])
        guard case .frame(.data(let read)) = r.field.exchange(frame: [0x02, 0x30, 0x23, 0x01]) else {
            Issue.record("the model did not answer EXTENDED READ SINGLE BLOCK")
            return
        }
        #expect(read == [0x00, 0xDE, 0xAD, 0xBE, 0xEF])
        #expect(r.respond(to: [0xFF, 0xB0, 0x01, 0x23, 0x04]) == [0xDE, 0xAD, 0xBE, 0xEF, 0x90, 0x00])
        #expect(r.respond(to: [0xFF, 0xB0, 0x08, 0x00, 0x04]) == [0x6A, 0x82], "block 2048 does not exist")
    }
}
