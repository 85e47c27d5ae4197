import Foundation
import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

/// DESFire EV2/EV3 in fresh nfctool processes: format and lock ask GetVersion once (the one
/// identification sends).
@Suite("MIFARE DESFire EV2/EV3: one GetVersion, key change in EV2 secure messaging", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(10)))
struct DESFireEV2KeyChangeEndToEndTests {
    static let aesKey = DESFireThroughLibNFCTests.aesKey
    static let otherAESKey = DESFireThroughLibNFCTests.otherAESKey

    /// A tag file holding a blank DESFire of `generation` whose PICC master key is AES
    /// ``aesKey`` (key settings 09).
    static func saveAESPICC(_ path: String, generation: DESFireVirtualTag.Generation) throws {
        let image = DESFireImage(piccKeySettings: 0x09, piccMasterKey: try Hex.decode(aesKey), piccKeyTypeBits: DESFire.KeyCount.aes)
        try TagFile(path: path).save(DESFireVirtualTag(uid: hex("04AE5000000003"), image: image, generation: generation).tagState)
    }

    /// The commands of a trace file (JSON lines), as hex.
    static func commands(_ path: String) throws -> [String] { try activations(path).flatMap { $0 } }

    /// The commands of a trace file, as hex, in one list per activation: a `poll` call (the
    /// tag selected, again after a lock for its read-back) starts the next.
    static func activations(_ path: String) throws -> [[String]] {
        var groups: [[String]] = []
        for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") {
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { continue }
            if object["call"] as? String == "poll" { groups.append([]) }
            if let command = object["command"] as? String {
                if groups.isEmpty { groups.append([]) }
                groups[groups.count - 1].append(command.uppercased())
            }
        }
        return groups
    }

    /// How many commands of `commands` start with `prefix` (`9060`: GetVersion).
    static func count(_ commands: [String], _ prefix: String) -> Int { commands.filter { $0.hasPrefix(prefix) }.count }

    @Test("format and lock with AES keys on sim:desfire-ev2 in fresh processes: the activation each runs in holds exactly one GetVersion (90 60, identification's) and AuthenticateEV2First, no AuthenticateAES (lock's read-back, a new activation, identifies afresh)")
    func oneGetVersion() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("desfire.json").path
        try Self.saveAESPICC(file, generation: .ev2)
        let device = "sim:desfire-ev2?file=\(file)"
        let keys = try DESFireThroughLibNFCTests.keyFile(directory, "keys", "picc aes \(Self.aesKey)\napplication aes \(Self.aesKey)\n")
        let formatTrace = directory.appendingPathComponent("format.jsonl").path, lockTrace = directory.appendingPathComponent("lock.jsonl").path
        let formatted = try await runBuiltNFCTool(["format", "--device", device, "--yes", "--ndef-size", "256", "--keys", keys, "--trace", formatTrace])
        #expect(formatted.status == 0, "\(formatted.output)")
        let locked = try await runBuiltNFCTool(["lock", "--device", device, "--yes", "--keys", keys, "--trace", lockTrace])
        #expect(locked.status == 0, "\(locked.output)")
        for trace in [formatTrace, lockTrace] {
            // The activation format or lock runs in holds identification's GetVersion and no
            // other; lock's read-back selects the tag again and identifies it afresh.
            let activations = try Self.activations(trace)
            let working = try #require(activations.first { Self.count($0, "9071") > 0 }, "\(trace): \(activations)")
            #expect(Self.count(working, "9060") == 1 && working.first == "9060000000", "\(trace): \(working)")
            #expect(activations.allSatisfy { Self.count($0, "9060") <= 1 && Self.count($0, "90AA") == 0 }, "\(trace): \(activations)")
        }
        let state = try DESFireThroughLibNFCTests.lockState(file)
        #expect(state.ndefRights == [0xEF, 0xFF] && state.ccWriteAccess == 0xFF, "\(state)")
    }
}
