import NFCCore
import NFCTags
import Testing
import VirtualTags

/// Every simulated model becomes the ``NFCTag`` case of its command set, named as identification
/// names it.
@Suite("NFCTag.connect on every simulated model", .timeLimit(.minutes(10)))
struct NFCTagConnectTests {
    @Test("each model maps to its case and model name", arguments: [
        ("ntag213", "miFare", "NTAG213", "Type 2"),
        ("ntag215", "miFare", "NTAG215", "Type 2"),
        ("ntag216", "miFare", "NTAG216", "Type 2"),
        ("ultralight", "miFare", "MIFARE Ultralight EV1 (MF0UL11)", "Type 2"),
        ("ultralight-ev1-mf0ul21", "miFare", "MIFARE Ultralight EV1 (MF0UL21)", "Type 2"),
        ("type4", "iso7816", "NFC Forum Type 4 tag", "Type 4"),
        ("felica-lite-s", "feliCa", "FeliCa Lite-S", "Type 3"),
        ("classic1k", "miFare", "MIFARE Classic 1K", "MIFARE Classic"),
        ("slix2", "iso15693", "ICODE SLIX2", "Type 5"),
        ("topaz96", "miFare", "Topaz 96 (BCM20203T96)", "Type 1"),
        ("topaz512", "miFare", "Topaz 512 (BCM20203T512)", "Type 1"),
    ])
    func connect(name: String, kind: String, model: String, platform: String) async throws {
        let entry = try #require(TagModel.named(name))
        let reader = SimulatedReader(tags: [entry.make(entry.defaultUID, TagModelOptions())], emptyFieldWait: .zero)
        let target = try #require(try await reader.poll(for: Modulation.allCases, timeout: .zero))
        let tag = try await NFCTag.connect(to: target, on: reader)
        let found: String = switch tag {
        case .miFare: "miFare"
        case .iso7816: "iso7816"
        case .feliCa: "feliCa"
        case .iso15693: "iso15693"
        }
        #expect(found == kind)
        #expect(tag.identity.model == model)
        #expect(tag.identity.platform.rawValue == platform)
        #expect(tag.identifier == target.identifier)
    }

    @Test("a Jewel target that does not answer RID is still a Type 1 tag, of unknown model, reported as MIFARE of unknown family")
    func jewel() async throws {
        let reader = SimulatedReader(tags: [], emptyFieldWait: .zero)
        let target = TargetInfo.jewel(JewelTarget(sensRes: [0x00, 0x0C], id: [1, 2, 3, 4]))
        let tag = try await NFCTag.connect(to: target, on: reader)
        guard case .miFare(let mifare) = tag, mifare.mifareFamily == .unknown else { Issue.record("not miFare of unknown family: \(tag)"); return }
        #expect(mifare.type1?.target == JewelTarget(sensRes: [0x00, 0x0C], id: [1, 2, 3, 4]))
        #expect(mifare.target.uid == Bytes([1, 2, 3, 4]) && mifare.target.atqa == Bytes([0x0C, 0x00]) && !mifare.target.supportsISODEP)
        #expect(tag.identity.platform == .type1 && tag.identity.model == "Innovision Jewel / Topaz")
    }

    @Test("an Ultralight/NTAG is the ultralight family with a Type 2 platform; Classic has no Type 2 platform")
    func families() async throws {
        for (name, family) in [("ntag215", MiFareFamily.ultralight), ("classic1k", .classic)] {
            let entry = try #require(TagModel.named(name))
            let reader = SimulatedReader(tags: [entry.make(entry.defaultUID, TagModelOptions())], emptyFieldWait: .zero)
            let target = try #require(try await reader.poll(for: [.iso14443A], timeout: .zero))
            guard case .miFare(let tag) = try await NFCTag.connect(to: target, on: reader) else {
                Issue.record("\(name) is not miFare")
                continue
            }
            #expect(tag.mifareFamily == family)
            #expect((tag.type2 != nil) == (family == .ultralight))
        }
    }

    @Test("a tag lost inside GET_VERSION: connect refuses the next tag of the stack that answers the re-select (connectionLost), and nothing is written to it")
    func lostDuringIdentification() async throws {
        let first = NTAG21xTag(.ntag215, uid: [0x04, 0xA1, 0, 0, 0, 0, 0x01])
        let second = NTAG21xTag(.ntag215, uid: [0x04, 0xA1, 0, 0, 0, 0, 0x02])
        let reader = SimulatedReader(tags: [first, second], faultPlan: FaultPlan(leaveDuringCommand: 1), emptyFieldWait: .zero)
        await reader.withField { $0.isTracing = true }
        let target = try #require(try await reader.poll(for: [.iso14443A], timeout: .zero))
        await #expect {
            _ = try await NFCTag.connect(to: target, on: reader)
        } throws: { error in
            let error = error as? NFCTagError
            return error?.code == .connectionLost && error?.reason.contains("04A10000000002") == true
        }
        #expect(await reader.withField { $0.trace.filter { $0.command.first == 0xA2 }.count } == 0)
    }
}
