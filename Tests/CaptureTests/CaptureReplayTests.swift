import Foundation
import NFCCore
import NFCTags
import NFCTestSupport
import Originality
import PCSCReaderEmulator
import PN532Emulator
import Testing
import VirtualTags

/// The public captures of real chips and readers in `Tests/Fixtures/captures`, each held against
/// the part of NFCKit it speaks about: the chip models answer the captured commands as the real
/// chip did, the emulators give the real reader's ATR and PN532 answers, identification names
/// the chip as the capture's source does, the PC/SC ATR parser reads the real ATRs, and the
/// originality check accepts real signatures. Each side of every comparison is the capture's
/// bytes, never NFCKit's own output.
@Suite("Public captures of real chips and readers", .timeLimit(.minutes(1)))
struct CaptureReplayTests {
    static let all = Capture.all
    static let tagExchanges = all.filter { $0.simulatorModel != nil && $0.exchanges != nil && ($0.layer == "tag" || $0.layer == "apdu") }
    static let pn532Exchanges = all.filter { $0.layer == "pn532" }
    static let airInterface = all.filter { $0.simulatorModel != nil && ($0.atqa != nil || $0.sak != nil) && $0.atr == nil }
    static let emulatedATRs = all.filter { $0.simulatorModel != nil && $0.atr != nil }
    static let atrs = all.filter { $0.atr != nil }
    static let identifications = all.filter { $0.identifiedAs != nil }
    static let signatures = all.filter { $0.signature != nil }

    /// The simulator's tag for a capture: its model, with the capture's UID when it fits the
    /// model (answers that carry the UID then compare byte for byte) and its signature.
    static func virtualTag(_ capture: Capture) throws -> any VirtualTag {
        let name = try #require(capture.simulatorModel)
        let model = try #require(TagModel.named(name), "no simulator model \(name)")
        let uid = bytes(capture.uid)
        let signature = capture.signature.map { bytes($0) }
        return model.make(uid.count == model.uidLength ? uid : model.defaultUID, TagModelOptions(signature: signature))
    }

    @Test("the directory holds at least 20 captures from at least 4 independent sources, each with a chip and a source")
    func directory() {
        #expect(Capture.loadFailures.isEmpty, "\(Capture.loadFailures)")
        #expect(Self.all.count >= 20, "\(Self.all.count) captures under \(Capture.directory.path)")
        #expect(Set(Self.all.map(\.sourceOrigin)).count >= 4, "\(Set(Self.all.map(\.sourceOrigin)))")
        for capture in Self.all {
            #expect(!capture.chip.isEmpty && capture.source.count > 20, "\(capture.name) names no chip or source")
        }
        #expect(FileManager.default.fileExists(atPath: Capture.directory.appendingPathComponent("README.md").path))
    }

    @Test("a virtual tag answers each captured command as the real chip did", arguments: tagExchanges)
    func virtualTagAnswers(_ capture: Capture) throws {
        let tag = try Self.virtualTag(capture)
        if let activatable = tag as? any ActivatableVirtualTag { activatable.activate() } else { tag.powerOn() }
        for exchange in capture.exchanges ?? [] {
            let command = bytes(exchange.command), expected = bytes(exchange.answer)
            let answer: [UInt8]
            if capture.layer == "apdu" {
                let isoDEP = try #require(tag as? any ISODEPVirtualTag, "\(capture.simulatorModel ?? "") is not an ISO-DEP model")
                answer = isoDEP.respond(toAPDU: command)
            } else {
                guard case .data(let data) = tag.respond(to: command) else {
                    Issue.record("\(exchange.command): the model gave no data, the chip answered \(exchange.answer)")
                    continue
                }
                answer = data
            }
            if exchange.compare == "uid-and-length" {
                #expect(answer.count == expected.count, "\(exchange.command): \(Hex.encode(answer)) vs \(exchange.answer)")
                #expect(answer.starts(with: bytes(capture.uid)), "\(exchange.command): \(Hex.encode(answer)) does not start with the UID")
                #expect(answer.suffix(2) == expected.suffix(2), "\(exchange.command): status \(Hex.encode(answer.suffix(2)))")
            } else {
                #expect(Hex.encode(answer, uppercase: true) == exchange.answer.uppercased(), "\(exchange.command)")
            }
        }
    }

    @Test("a virtual tag shows the real chip's ATQA and SAK", arguments: airInterface)
    func atqaAndSAK(_ capture: Capture) throws {
        guard case .iso14443A(let a) = try Self.virtualTag(capture).targetInfo else {
            Issue.record("\(capture.simulatorModel ?? "") is not an ISO 14443-A model")
            return
        }
        if let atqa = capture.atqa { #expect(Hex.encode([UInt8(a.atqaValue >> 8), UInt8(a.atqaValue & 0xFF)], uppercase: true) == atqa.uppercased()) }
        if let sak = capture.sak { #expect(Hex.encode([a.sak], uppercase: true) == sak.uppercased()) }
    }

    @Test("the PN532 emulator answers each captured command as a real PN532 did", arguments: pn532Exchanges)
    func pn532Answers(_ capture: Capture) throws {
        let tags = try capture.simulatorModel.map { _ in [try Self.virtualTag(capture)] } ?? []
        let chip = PN532Chip(field: TagField(tags: tags))
        for exchange in capture.exchanges ?? [] {
            #expect(chip.handle(bytes(exchange.command)) == .response(bytes(exchange.answer)), "\(exchange.command)")
        }
    }

    @Test("the PC/SC reader emulator gives the ATR a real reader gave for the card", arguments: emulatedATRs)
    func emulatedATR(_ capture: Capture) throws {
        let reader = GenericPart3Reader(field: VirtualField(tags: [try Self.virtualTag(capture)]))
        #expect(reader.atr.map { Hex.encode($0, uppercase: true) } == capture.atr?.uppercased())
    }

    /// The SAK NFCKit must give a card whose ATR carries this Part 3 card name: the chip's own
    /// (NXP AN10833: Classic 1K `08`, 4K `18`; every Ultralight `00`).
    static let sakOfCardName: [String: UInt8] = [
        "MIFARE Classic 1K": 0x08, "MIFARE Classic 4K": 0x18, "MIFARE Ultralight": 0x00, "MIFARE Ultralight C": 0x00,
    ]

    @Test("a real reader's ATR parses as PC/SC Part 3 builds it, to the card name its source gives, and a Type A card name leads to the chip's SAK", arguments: atrs)
    func parsesRealATR(_ capture: Capture) throws {
        let atr = bytes(capture.atr)
        let parsed = try PCSCContactlessATR(parsing: Bytes(atr))
        #expect(parsed.bytes == Bytes(atr), "the ATR encodes back")
        guard case .storageCard(let standard, let name) = parsed else {
            #expect(capture.atrCardName == nil, "an ISO-DEP card's ATR carries no card name")
            return
        }
        if let cardName = capture.atrCardName {
            #expect(PCSCPart3.CardName.describe(name) == cardName)
            if standard == PCSCPart3.Standard.iso14443APart3, let sak = Self.sakOfCardName[cardName] {
                #expect(PCSCPart3.CardName.sak(name) == sak, "NFCKit's PC/SC reader gives the card SAK \(Hex.encode([sak]))")
            }
        }
    }

    /// The target a reader reports for the capture's chip: ISO 15693 by an `E0` UID, FeliCa by
    /// its PMm, ISO-DEP as NFCKit's PC/SC reader builds it from an ISO-DEP ATR, else ISO 14443-A
    /// with the captured ATQA and SAK.
    static func target(_ capture: Capture) throws -> TargetInfo {
        let uid = bytes(capture.uid)
        if let pmm = capture.pmm {
            let code = bytes(capture.systemCode)
            return .felica(FeliCaTarget(idm: Bytes(bytes(capture.idm)), pmm: Bytes(bytes(pmm)),
                                        systemCode: code.count == 2 ? UInt16(code[0]) << 8 | UInt16(code[1]) : nil))
        }
        if uid.count == 8, uid[0] == 0xE0 { return .iso15693(ISO15693Target(uid: Bytes(uid))) }
        if let atr = capture.atr, case .isoDEP(let historical) = try PCSCContactlessATR(parsing: Bytes(bytes(atr))) {
            return .iso14443A(ISO14443ATarget(uid: Bytes(uid), atqa: Bytes(), sak: 0x20, ats: Bytes([UInt8(historical.count + 2), 0x00] + historical.array)))
        }
        let atqa = bytes(capture.atqa ?? "0044")
        return .iso14443A(ISO14443ATarget(uid: Bytes(uid.isEmpty ? [0x04, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06] : uid),
                                          atqa: Bytes(atqa.reversed()), sak: bytes(capture.sak ?? "00").first ?? 0))
    }

    @Test("identification names the chip as the capture's source does, from the captured answers", arguments: identifications)
    func identification(_ capture: Capture) async throws {
        var answers: [[UInt8]: [UInt8]] = [:]
        for exchange in capture.exchanges ?? [] where answers[bytes(exchange.command)] == nil {
            answers[bytes(exchange.command)] = bytes(exchange.answer)
        }
        let target = try Self.target(capture)
        let reader = ScriptedReader(answers: answers, otherwise: .timeout, target: target)
        let identity = await ChipIdentification.identify(target, on: reader, probesNDEF: false)
        #expect(identity.model == capture.identifiedAs)
        if let memory = capture.memoryBytes { #expect(identity.memoryBytes == memory) }
    }

    @Test("originality verification accepts a real chip's published signature under the key its source names, and refuses a non-NXP chip's", arguments: signatures)
    func originality(_ capture: Capture) throws {
        let uid = Bytes(bytes(capture.uid)), signature = Bytes(bytes(capture.signature))
        let verdict = OriginalityVerifier().verify(uid: uid, signature: signature)
        if capture.signatureGenuine == false {
            #expect(verdict.isGenuine != true)
            return
        }
        #expect(verdict.isGenuine == true)
        #expect(verdict.key?.name == capture.signatureKey)
        // A Type 2 model answers READ_SIG (3C 00) with the 32 bytes a real chip sends.
        if capture.simulatorModel != nil, let type2 = try Self.virtualTag(capture) as? Type2VirtualTag {
            type2.activate()
            #expect(type2.respond(to: [NXPNativeCommand.readSignature, 0x00]) == .data(signature.array))
            #expect(signature.count == 32)
        }
    }
}
