import NFCCore
import NFCTestSupport
import Testing
import VirtualTags
@testable import NFCTags

/// A GET_VERSION whose answer is lost on the air (a CRC or parity error) is asked once more, with
/// the tag selected again: an NTAG whose answer was lost is named, not taken for a plain MIFARE
/// Ultralight (which, like an Ultralight C, stays silent: libnfc reports that silence as the
/// same RF error, so the Ultralight C suites through libnfc check that side).
@Suite("Type 2 identification when GET_VERSION's answer is lost on the air", .timeLimit(.minutes(2)))
struct IdentificationLostAnswerTests {
    static let uid: [UInt8] = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]

    /// Identifies a virtual NTAG213 whose answers to the listed commands (1-based, counted from
    /// the poll) are lost; returns the identity and how many GET_VERSIONs the tag received.
    static func identify(losing commands: Set<Int>) async throws -> (ChipIdentity, Int) {
        let tag = NTAG21xTag(.ntag213, uid: uid)
        let reader = SimulatedReader(tags: [tag], emptyFieldWait: .zero)
        let target = try #require(try await reader.poll(for: [.iso14443A], timeout: .seconds(1)))
        let start = await reader.commandCount
        await reader.withField {
            $0.faultPlan = FaultPlan(rfErrorOnCommands: Set(commands.map { start + $0 }))
            $0.isTracing = true
        }
        let identity = await ChipIdentification.identify(target, on: reader)
        let versions = await reader.withField { field in field.trace.filter { $0.command == [0x60] }.count }
        return (identity, versions)
    }

    @Test("one lost answer: the tag is selected again, GET_VERSION sent again and the NTAG213 named")
    func askedAgain() async throws {
        let (identity, versions) = try await Self.identify(losing: [1])
        #expect(identity.model == "NTAG213")
        #expect(identity.family == .ntag21x)
        #expect(identity.memoryBytes == 144)
        #expect(versions == 2)
    }

    @Test("both answers lost: GET_VERSION is not sent a third time, and the chip is probed as one that does not know it")
    func bothLost() async throws {
        let (identity, versions) = try await Self.identify(losing: [1, 2])
        #expect(versions == 2)
        #expect(identity.platform == .type2)
    }

    @Test("no answer at all is still a plain MIFARE Ultralight (the chip does not know GET_VERSION)")
    func silentChipIsUltralight() async throws {
        let reader = ScriptedReader(answers: [[0x30, 0x03]: [0xE1, 0x10, 0x06, 0x00] + [UInt8](repeating: 0, count: 12)], otherwise: .timeout)
        let target = TargetInfo.iso14443A(ISO14443ATarget(uid: Bytes(Self.uid), atqa: [0x44, 0x00], sak: 0x00))
        let identity = await ChipIdentification.identify(target, on: reader)
        #expect(identity.model == "MIFARE Ultralight")
    }
}
