import Foundation
import NFCCore
import NFCTags
import Testing
import VirtualTags

/// The ST25TV02KC's TD_STATUS (READ CONFIGURATION, FID `03`, PID `06`) on the in-process
/// simulator and as parsed. The frame is written out here from ST's community answer "How to get
/// the tamper status of ST25TV02KC RFID chip?" (flags `22`, `A0`, `02`, UID least significant byte
/// first, `03 06`; answered `00 30 30 63` with the loop closed) and TheKiwil/CheckTamper (`6F`
/// open).
@Suite("ST25TV02KC tamper status", .timeLimit(.minutes(2)))
struct ST25TVCTamperStatusTests {
    static let uid: [UInt8] = [0xE0, 0x02, 0x08, 0x00, 0x0B, 0x1B, 0x31, 0xE0]

    static func open(_ chip: sending Type5Chip) async throws -> (SimulatedReader, ISO15693Tag) {
        try await ST25Tests.open(chip)
    }

    @Test("identified as the ST25TV02KC (IC reference 08, 80 blocks); the loop read with one READ CONFIGURATION 22 A0 02 <UID> 03 06 and no password", arguments: [(false, ST25TVCTamperStatus.Loop.closed, UInt8(0x63)), (true, .open, 0x6F)])
    func readsLoop(open: Bool, loop: ST25TVCTamperStatus.Loop, byte: UInt8) async throws {
        let chip = Type5Chip(.st25tv02kc, uid: Self.uid)
        chip.tamperOpen = open
        let (reader, tag) = try await Self.open(chip)
        #expect(tag.identity.model == "ST25TV02KC" && tag.identity.blockCount == 80, "\(tag.identity)")
        #expect(tag.hasST25TVCTamperDetect && !tag.hasST25TVConfiguration && !tag.hasST25DVPasswords)
        await reader.withField { $0.trace = [] }
        let status = try await tag.st25tvcTamperStatus()
        #expect(status.loop == loop && status.bytes == [0x30, 0x30, byte] && status.summary == loop.rawValue)
        let exchanges = await reader.withField { $0.trace }
        #expect(exchanges.map(\.command) == [[0x22, 0xA0, 0x02] + Self.uid.reversed() + [0x03, 0x06]], "\(exchanges)")
    }

    @Test("a byte that is neither factory message is unknown, naming it; an answer of another length is a tagResponse error")
    func parsing() throws {
        let other = try ST25TVCTamperStatus(bytes: [0x30, 0x30, 0x41])
        #expect(other.loop == nil && other.summary.hasPrefix("unknown") && other.summary.contains("41"))
        #expect(throws: NFCTagError.self) { try ST25TVCTamperStatus(bytes: [0x30, 0x63]) }
        do {
            _ = try ST25TVCTamperStatus(bytes: [])
            Issue.record("an empty TD_STATUS parsed")
        } catch {
            #expect(error.code == .tagResponse)
        }
    }

    @Test("a chip that refuses the read (error 01) gives a tagResponse error, not a state; an ST25TV02K is not asked")
    func refusedAndOthers() async throws {
        var profile = Type5ChipProfile.st25tv02kc
        profile.tamperDetect = false
        let (_, refusing) = try await Self.open(Type5Chip(profile, uid: Self.uid))
        #expect(refusing.hasST25TVCTamperDetect)
        await #expect(throws: NFCTagError.self) { _ = try await refusing.st25tvcTamperStatus() }
        let (reader, st25tv02k) = try await ST25Tests.open(ST25VirtualTag(.st25tv02k, uid: ST25Tests.uid(.st25tv02k)))
        #expect(!st25tv02k.hasST25TVCTamperDetect)
        await reader.withField { $0.trace = [] }
        do {
            _ = try await st25tv02k.st25tvcTamperStatus()
            Issue.record("an ST25TV02K was asked for TD_STATUS")
        } catch {
            #expect(error.code == .notSupported)
        }
        #expect(await reader.withField { $0.trace }.isEmpty, "nothing sent")
    }
}
