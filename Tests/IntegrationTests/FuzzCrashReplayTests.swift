import Foundation
import NDEF
import NFCTags
import PN532Emulator
import Provisioning
import Testing

/// Replays the fuzzers' inputs kept in the repository through the parsers they fuzz, so a past
/// crash stays fixed without running libFuzzer: every seed of `Fuzz/corpus/TARGET/` and every
/// past crash of `Tests/Fixtures/fuzz-crashes/TARGET/` (docs/robustness.md; the `ndef` target's
/// are replayed by `NDEFTests/FuzzCorpusReplayTests`). Each parser must return a value or a typed
/// error with an offset, never trap, and keep the harness's main invariants.
@Suite("Fuzz corpus and crash replay for every parser", .timeLimit(.minutes(1)))
struct FuzzCrashReplayTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let targets = ["type2-memory", "type3-attribute", "type4-cc", "type5-memory", "classic-mad", "pn532-frame", "manifest", "template"]

    /// "target/kind/file" for every input (kind: corpus or crashes).
    static let inputs: [String] = targets.flatMap { target in
        [("corpus", "Fuzz/corpus/\(target)"), ("crashes", "Tests/Fixtures/fuzz-crashes/\(target)")].flatMap { kind, directory in
            let names = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(directory).path)) ?? []
            return names.filter { $0 != "README.md" && !$0.hasPrefix(".") }.sorted().map { "\(target)/\(kind)/\($0)" }
        }
    }

    static func bytes(_ input: String) throws -> [UInt8] {
        let parts = input.split(separator: "/", maxSplits: 2).map(String.init)
        let directory = parts[1] == "corpus" ? "Fuzz/corpus/\(parts[0])" : "Tests/Fixtures/fuzz-crashes/\(parts[0])"
        return [UInt8](try Data(contentsOf: root.appendingPathComponent("\(directory)/\(parts[2])")))
    }

    @Test("every target has seeds and a crash directory is documented")
    func corporaAreFound() {
        for target in Self.targets {
            #expect(Self.inputs.contains { $0.hasPrefix("\(target)/corpus/") }, "no seeds for \(target)")
        }
        #expect(FileManager.default.fileExists(atPath: Self.root.appendingPathComponent("Tests/Fixtures/fuzz-crashes/README.md").path))
    }

    @Test("every seed and past crash goes through its parser without trapping", arguments: inputs)
    func replay(_ input: String) throws {
        let bytes = try Self.bytes(input)
        let target = String(input.prefix(while: { $0 != "/" }))
        switch target {
        case "type2-memory":
            if let area = try? Type2TLVArea.parse(memory: bytes) {
                #expect(area.messageAddresses.allSatisfy { $0 < bytes.count })
                #expect(area.ndefAddresses.allSatisfy { $0 >= 16 && $0 < 16 + area.capabilityContainer.dataAreaSize })
                _ = NDEFMessage.decodeLeniently(area.messageAddresses.map { bytes[$0] })
            }
            _ = try? Type2TLVArea.parse(memory: bytes, userMemoryEnd: 160)
        case "type3-attribute":
            if let info = try? Type3AttributeInformation(parsing: bytes) { #expect(info.encoded == bytes) }
        case "type4-cc":
            if let cc = try? Type4CapabilityContainer(bytes: bytes) { #expect(cc.capacity > 0 && cc.reachableFileSize <= 0x8000) }
        case "type5-memory":
            if let area = try? Type5TLVArea.parse(memory: bytes) {
                #expect(area.messageAddresses.upperBound <= area.capabilityContainer.areaEnd)
            }
            _ = try? Type5TLVArea.parse(memory: bytes, memoryEnd: 320)
        case "classic-mad":
            let sector16: [UInt8]? = bytes.count > 32 ? Array(bytes[32...].prefix(48)) : nil
            if let mad = try? MADDirectory(sector0: Array(bytes.prefix(32)), sector16: sector16) {
                #expect(mad.sector0Bytes == Array(bytes.prefix(32)))
                #expect(mad.ndefSectors.allSatisfy { $0 > 0 && $0 < mad.applications.count })
            }
        case "pn532-frame":
            if let frame = try? PN532Frame.parse(bytes[...]) { #expect(try PN532Frame.parse(frame.encoded[...]) == frame) }
            for strict in [false, true] {
                var decoder = PN532FrameDecoder(strict: strict)
                _ = decoder.feed(bytes)
            }
        case "manifest":
            let text = String(decoding: bytes, as: UTF8.self)
            _ = try? Manifest.parse(text, format: .csv)
            _ = try? Manifest.parse(text, format: .jsonl)
        case "template":
            if let template = try? ProvisioningTemplate(String(decoding: bytes, as: UTF8.self), loadKey: { Array($0.utf8) }) {
                let uid: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6]
                #expect(template.render(uid: uid, counter: 99_999).utf8.count <= template.maximumLength(uidLength: 7, maxCounter: 99_999))
            }
        default:
            Issue.record("no parser for \(input)")
        }
    }
}
