import Foundation
import NDEF
import NFCCore
import NFCTags
import PN532Emulator
import Provisioning
import NFCTestSupport
import Testing
import VirtualTags

/// Replays the fuzzers' inputs kept in the repository through the parsers they fuzz, so a past
/// crash stays fixed without running libFuzzer: every seed of `Fuzz/corpus/TARGET/` and every
/// past crash of `Tests/Fixtures/fuzz-crashes/TARGET/` (docs/robustness.md; the `ndef` target's
/// are replayed by `NDEFTests/FuzzCorpusReplayTests`). Each parser must return a value or a typed
/// error with an offset, never trap, and keep the harness's main invariants.
@Suite("Fuzz corpus and crash replay for every parser", .tags(.endToEnd), .timeLimit(.minutes(1)))
struct FuzzCrashReplayTests {
    static let zeroKey = Bytes([UInt8](repeating: 0, count: 16))
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let targets = [
        "type2-memory", "type3-attribute", "type4-cc", "type5-memory", "classic-mad", "pn532-frame", "manifest", "template",
        "sun-url", "sdm-template", "sdm-picc", "ntag424-settings", "ntag424-keys", "ultralight-c", "reader-trace", "desfire",
        "ultralight-aes",
        "iso15693-identity",
        "type1-memory",
        "desfire-light",
    ]

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
        case "sun-url":
            let url = String(decoding: bytes, as: UTF8.self)
            let keys = try SDMKeys(metaRead: Self.zeroKey, fileRead: Self.zeroKey)
            for names in [SUNParameterNames(), SUNParameterNames(picc: "picc_data", mac: "cmac", encryptedFileData: "enc")] {
                do { _ = try SUNVerifier.verify(url: url, names: names, keys: keys) } catch {
                    #expect(error.subject == .sdmData)
                    #expect((0...url.utf8.count).contains(error.offset ?? 0), "\(error)")
                }
            }
        case "sdm-template":
            do {
                let template = try SDMURLTemplate(String(decoding: bytes, as: UTF8.self))
                #expect(template.file.count <= NTAG424SDM.ndefFileSize)
                let keys = try SDMKeys(metaRead: Self.zeroKey, fileRead: Self.zeroKey)
                let read = try template.layout.mirror(file: template.file, uid: Bytes([0x04, 0xDE, 0x5F, 0x1E, 0xAC, 0xC0, 0x40]), counter: 61, keys: keys,
                                                      padding: [UInt8](repeating: 0xA5, count: 16))
                #expect(read.count == template.file.count)
            } catch {
                #expect([.invalidPlaceholder, .illegalLayout, .invalidMessage].contains(error.code), "\(error)")
            }
        case "sdm-picc":
            if bytes.count == 16, let picc = try? SDMPICCData(plaintext: Bytes(bytes)) {
                let head = 1 + (picc.uid?.count ?? 0) + (picc.readCounter == nil ? 0 : 3)
                #expect(try picc.plaintext(padding: Array(bytes[head...])).array == bytes)
            }
            _ = try? SDMPICCData.decrypt(Bytes(bytes), metaReadKey: Self.zeroKey)
        case "desfire-light":
            if let settings = try? DESFireLightFileSettings(parsing: bytes) {
                #expect(settings.encoded == bytes)
                #expect(try DESFireLightFileSettings(parsing: settings.encoded) == settings)
            }
        case "ntag424-settings":
            if let settings = try? NTAG424FileSettings(parsing: bytes) {
                #expect(try NTAG424FileSettings(parsing: settings.encoded()) == settings)
            }
            if let settings = try? NTAG424FileSettings(parsingChange: bytes, fileSize: 256) {
                #expect(try NTAG424FileSettings(parsingChange: settings.changeData(), fileSize: 256) == settings)
            }
        case "ntag424-keys":
            // Read as a file would be, and with CRLF line ends made LF: the same keys, or the same line at fault.
            let text = String(decoding: bytes, as: UTF8.self)
            let lf = text.replacingOccurrences(of: "\r\n", with: "\n")
            switch (Result { () throws(NTAG424Error) in try NTAG424KeyFile(text: text) }, Result { () throws(NTAG424Error) in try NTAG424KeyFile(text: lf) }) {
            case (.success(let file), .success(let same)): #expect(file == same)
            case (.failure(let error), .failure(let same)): #expect(error.offset == same.offset && (error.offset ?? 0) >= 1)
            case (let file, let same): Issue.record("\(file) with CRLF, \(same) with LF")
            }
        case "ultralight-c":
            if let key = try? UltralightCKey(hex: String(decoding: bytes, as: UTF8.self)) {
                #expect(try UltralightCKey(pageImage: key.pageImage) == key)
            }
            #expect(((try? UltralightCConfiguration(bytes: bytes)) != nil) == (bytes.count == 16))
            let rndA: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
            let shaped = bytes.count == 9 && bytes[0] == 0xAF
            #expect(((try? UltralightCAuthentication.secondStep(key: .factoryDefault, answer: bytes, rndA: rndA)) != nil) == shaped)
        case "ultralight-aes":
            if let key = try? UltralightAESKey(hex: String(decoding: bytes, as: UTF8.self)) {
                #expect(try UltralightAESKey(pageImage: key.pageImage) == key)
            }
            #expect(((try? UltralightAESConfiguration(bytes: bytes)) != nil) == (bytes.count == 16))
            let rndA = [UInt8](repeating: 1, count: 16)
            let shaped = bytes.count == 17 && bytes[0] == 0xAF
            #expect(((try? UltralightAESAuthentication.secondStep(key: .factoryDefault, answer: bytes, rndA: rndA)) != nil) == shaped)
        case "reader-trace":
            do {
                let trace = try ReaderTrace.parse(bytes)
                #expect(try ReaderTrace.parse(Array(trace.jsonLines.utf8)) == trace)
            } catch {
                #expect(error.line >= 1 && error.offset >= 0, "\(error)")
            }
        case "iso15693-identity":
            // As the fuzz target: system information decodes or not, the identity stays Type 5
            // with a memory only from a decoded answer; password files' XOR inverts.
            for extended in [false, true] {
                let memory = ISO15693ChipMemory.decode(answer: bytes, extended: extended)
                let identity = ISO15693ChipTable.identity(uid: Bytes(Array(bytes.prefix(8))), systemInfo: memory)
                #expect(identity.platform == .type5)
                if memory?.blockCount == nil, identity.memoryFromModelTable == nil { #expect(identity.memoryBytes == nil) }
            }
            if let passwords = try? ICodePasswords(hex: String(decoding: bytes, as: UTF8.self)) {
                #expect(ICodePassword.recovered(from: passwords.write.xored(with: [0x5A, 0xA5]), random: [0x5A, 0xA5]) == passwords.write)
            }
            if let password = try? ST25Password(hex: String(decoding: bytes, as: UTF8.self)) { #expect(password.bytes.count == 8) }
            if let first = bytes.first { #expect(ST25AreaSecurity(register: first).register == first & 0x0F) }
            if let info = try? NXPSystemInformation(answer: bytes) {
                #expect(info.bytes == Array(bytes.prefix(7)))
                #expect(info.blockStatuses(blockCount: 600).allSatisfy { $0 & ICodeBlockProtection.locked == 0 })
            }
            if let id = ICodeEASAlarm.easID(answer: bytes) { #expect(bytes.count >= 3 && id == UInt16(bytes[1]) | UInt16(bytes[2]) << 8) }
        case "type1-memory":
            // As the fuzz target: the first byte picks the parser, the second is HR0.
            guard bytes.count >= 2 else { break }
            let body = Array(bytes.dropFirst(2))
            switch bytes[0] % 3 {
            case 0:
                do {
                    let area = try Type1TLVArea.parse(memory: body, hr0: bytes[1], reachedAll: bytes[0] & 0x80 == 0)
                    #expect(area.messageAddresses.count == area.messageLength && area.end <= body.count)
                } catch {
                    #expect((error.offset ?? 0) <= max(body.count, 12))
                }
            case 1: if let byte = try? Type1Answer.byte(body, address: Int(bytes[1] & 0x7F)) { #expect(body.last == byte) }
            default: if (try? Type1Answer.readAll(body)) != nil { #expect(body.count == 122) }
            }
        case "desfire":
            // As the fuzz target: the first byte picks the parser; what parses encodes back.
            let body = Array(bytes.dropFirst())
            switch (bytes.first ?? 0) % 8 {
            case 0: if let version = try? DESFireVersion(parsing: body) { #expect(version.encoded == body) }
            case 1: if let settings = try? DESFireFileSettings(parsing: body) { #expect(settings.encoded == body) }
            case 2: if let image = try? DESFireImage(parsing: body) { #expect(image.encoded == body) }
            case 3:
                if let file = try? DESFireFormatOptions.keys(fromText: String(decoding: body, as: UTF8.self)) {
                    #expect([file.picc, file.application].compactMap { $0 }.allSatisfy { $0.bytes.count == $0.type.keyLength })
                }
            case 4:
                let key: [UInt8] = [0x01, 0x02, 0x03, 0x04, 0x11, 0x12, 0x13, 0x14]
                if let data = try? DESFireLegacyAuthentication.decipherReceived(sessionKey: key, body, length: 3) {
                    #expect(try DESFireLegacyAuthentication.encipherForSending(sessionKey: key, data) == body)
                }
            case 6:
                var chip = DESFireEV1Session(keyNumber: 0, key: try DESFireKey(.aes, Array(0..<16))), host = chip
                if body.count % 16 == 0, let data = try? chip.decipher(command: 0x5F, header: [0x02], body, length: 3) {
                    #expect(try host.encipher(command: 0x5F, header: [0x02], data) == body)
                }
            case 7:
                var host = DESFireEV1Session(keyNumber: 0, key: try DESFireKey(.aes, Array(0..<16))), chip = host
                if let data = try? host.verifyAnswer(body) { #expect(try chip.macAnswer(data) == body) }
            default: if let (data, _) = try? DESFireTag.split(body, command: DESFire.Command.readData) { #expect(data.count + 2 == body.count) }
            }
        default:
            Issue.record("no parser for \(input)")
        }
    }
}
