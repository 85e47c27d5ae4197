import Foundation
import NDEF
import NFCTestSupport
import Testing

/// NFC Forum Type 1 (Topaz 96 / 512) in fresh `nfctool` processes, on the simulator and through
/// real libnfc and the PN532 emulator. Judges: the tag file read by a parser written here (not
/// NFCTags'), libnfc's `nfc-list` (lists the Jewel target) and `nfc-jewel` (dumps the 120
/// static bytes byte by byte with READ).
@Suite("Type 1 (Topaz) through nfctool, libnfc, nfc-list and nfc-jewel", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(10)))
struct Type1ThroughLibNFCTests {
    static let url = "https://example.com/topaz"

    /// Tag memory from a tag file, read with JSONSerialization.
    static func memory(ofTagFile path: String) throws -> [UInt8] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        let hex = try #require(object["memory"] as? String)
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(try #require(UInt8(hex[index..<next], radix: 16)))
            index = next
        }
        return bytes
    }

    /// The NDEF message bytes of a Type 1 image, found by this test's own walk: CC `E1` at byte
    /// 8, TLVs from byte 12, bytes 104…127 and the areas of Lock/Memory Control TLVs skipped.
    static func ndefBytes(_ memory: [UInt8]) -> [UInt8]? {
        guard memory.count >= 12, memory[8] == 0xE1 else { return nil }
        var skip = Set(104..<128)
        let usable = { (from: Int) -> [Int] in (from..<memory.count).filter { !skip.contains($0) } }
        var addresses = usable(12)
        while let t = addresses.first {
            switch memory[t] {
            case 0x00: addresses.removeFirst()
            case 0xFE: return nil
            default:
                guard addresses.count >= 2 else { return nil }
                var length = Int(memory[addresses[1]]), header = 2
                if length == 0xFF, addresses.count >= 4 {
                    length = Int(memory[addresses[2]]) << 8 | Int(memory[addresses[3]])
                    header = 4
                }
                guard addresses.count >= header + length else { return nil }
                let value = addresses[header..<(header + length)].map { memory[$0] }
                if memory[t] == 0x03 { return value }
                if memory[t] == 0x01 || memory[t] == 0x02, value.count == 3 {
                    let page = 1 << Int(value[2] & 0x0F)
                    let start = Int(value[0] >> 4) * page + Int(value[0] & 0x0F)
                    let size = memory[t] == 0x01 ? (Int(value[1]) + 7) / 8 : Int(value[1])
                    skip.formUnion(start..<(start + size))
                }
                let next = addresses[header + length - 1] + 1
                addresses = usable(length == 0 ? addresses[header - 1] + 1 : next)
            }
        }
        return nil
    }

    static func encodedURL() throws -> [UInt8] {
        try NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: url)]).encoded()
    }

    @Test("write, read, info and lock in fresh nfctool processes on sim:topaz512, the tag file judged between them")
    func simulator() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("topaz.json").path
        let device = "sim:topaz512?file=\(file)"
        let long = String(repeating: "x", count: 300)
        let written = try await runBuiltNFCTool(["write", "--device", device, "--text", long])
        #expect(written.status == 0, "\(written.output)")
        let memory = try Self.memory(ofTagFile: file)
        #expect(memory.count == 512 && Array(memory[8..<12]) == [0xE1, 0x10, 0x3F, 0x00])
        let stored = try #require(Self.ndefBytes(memory))
        let message = try NDEFMessage(bytes: stored)
        #expect(String(decoding: message.records[0].payload.array.dropFirst(3), as: UTF8.self) == long)
        let read = try await runBuiltNFCTool(["read", "--device", device, "--json"])
        #expect(read.status == 0 && read.standardOutput.contains(long), "\(read.output)")
        let info = try await runBuiltNFCTool(["info", "--device", device])
        #expect(info.status == 0, "\(info.output)")
        #expect(info.standardOutput.contains("Topaz 512 (BCM20203T512)") && info.standardOutput.contains("Type 1"), "\(info.standardOutput)")
        let locked = try await runBuiltNFCTool(["lock", "--device", device, "--yes"])
        #expect(locked.status == 0, "\(locked.output)")
        let after = try Self.memory(ofTagFile: file)
        #expect(after[11] == 0x0F && after[112] == 0xFF && after[113] == 0xFF)
        let refused = try await runBuiltNFCTool(["write", "--device", device, "--url", Self.url])
        #expect(refused.status == 5, "\(refused.output)")
    }

    @Test("nfc-list lists the emulated Topaz 96 as a Jewel target; nfctool writes it through libnfc; nfc-jewel dumps the same 120 bytes",
          ExternalTool.nfcList.trait, ExternalTool.nfcJewel.trait)
    func topaz96ThroughLibNFC() async throws {
        let list = try ExternalTool.nfcList.require()
        let jewel = try ExternalTool.nfcJewel.require()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("topaz96.json").path
        let emulator = try await EmulatorProcess.start(["--tag", "topaz96:\(file)"])
        defer { emulator.stop() }
        let listed = try await runTool(list, [], against: emulator, timeout: 30)
        #expect(listed.status == 0, "\(listed.output)")
        #expect(listed.output.contains("1 ISO14443A-3 Jewel passive target(s) found"), "\(listed.output)")
        #expect(listed.output.contains("4-LSB JEWELID: 01  53  49  4d"), "\(listed.output)")
        let written = try await runBuiltNFCTool(["write", "--device", emulator.connectionString, "--url", Self.url])
        #expect(written.status == 0, "\(written.output)")
        let read = try await runBuiltNFCTool(["read", "--device", emulator.connectionString, "--json"])
        #expect(read.status == 0 && read.standardOutput.contains(Self.url), "\(read.output)")
        let dump = directory.appendingPathComponent("topaz.jwd")
        let dumped = try await runTool(jewel, ["r", dump.path], against: emulator, timeout: 30)
        #expect(dumped.status == 0 && dumped.output.contains("Done, 15 of 15 blocks read."), "\(dumped.output)")
        let bytes = [UInt8](try Data(contentsOf: dump))
        #expect(bytes.count == 120)
        #expect(bytes == Array(try Self.memory(ofTagFile: file).prefix(120)))
        #expect(Self.ndefBytes(bytes) == (try Self.encodedURL()))
    }

    @Test("through libnfc a Topaz 512 takes a message within byte 127; a longer one is refused (exit 10) with the tag unchanged")
    func topaz512ThroughLibNFC() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("topaz512.json").path
        let emulator = try await EmulatorProcess.start(["--tag", "topaz512:\(file)"])
        defer { emulator.stop() }
        let written = try await runBuiltNFCTool(["write", "--device", emulator.connectionString, "--url", Self.url])
        #expect(written.status == 0, "\(written.output)")
        let read = try await runBuiltNFCTool(["read", "--device", emulator.connectionString, "--json"])
        #expect(read.status == 0 && read.standardOutput.contains(Self.url), "\(read.output)")
        let before = try Self.memory(ofTagFile: file)
        #expect(Self.ndefBytes(before) == (try Self.encodedURL()))
        let refused = try await runBuiltNFCTool(["write", "--device", emulator.connectionString, "--text", String(repeating: "y", count: 200)])
        #expect(refused.status == 10, "\(refused.output)")
        #expect(try Self.memory(ofTagFile: file) == before)
    }

    @Test("batch provisions Type 1 tags: a stack of two Topaz 512 on the simulator, and a Topaz 96 through libnfc and the PN532 emulator: ledger rows done, each tag file holds its URL by this test's own walk")
    func batch() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let stack = directory.appendingPathComponent("stack").path
        let ledger = directory.appendingPathComponent("run.db").path
        let run = try await runBuiltNFCTool(
            ["batch", "--device", "sim:topaz512*2?dir=\(stack)&poll-wait=0", "--url", "https://t1.example/{uid}", "--count", "2", "--ledger", ledger, "--timeout", "20"])
        #expect(run.status == 0 && run.output.contains("2 done, 0 failed"), "\(run.output)")
        let files = try FileManager.default.contentsOfDirectory(atPath: stack).sorted()
        #expect(files.count == 2, "\(files)")
        for name in files {
            let memory = try Self.memory(ofTagFile: "\(stack)/\(name)")
            let uid = memory[0..<4].map { String(format: "%02X", $0) }.joined()
            let wanted = try NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: "https://t1.example/\(uid)")]).encoded()
            #expect(Self.ndefBytes(memory) == wanted, "\(name)")
        }

        let file = directory.appendingPathComponent("topaz96.json").path
        let emulator = try await EmulatorProcess.start(["--tag", "topaz96:\(file)"])
        defer { emulator.stop() }
        let second = directory.appendingPathComponent("libnfc.db").path
        let libnfc = try await runBuiltNFCTool(
            ["batch", "--device", emulator.connectionString, "--url", Self.url, "--count", "1", "--ledger", second, "--timeout", "30"], timeout: 60)
        #expect(libnfc.status == 0 && libnfc.output.contains("1 done, 0 failed"), "\(libnfc.output)")
        #expect(Self.ndefBytes(try Self.memory(ofTagFile: file)) == (try Self.encodedURL()))
    }
}
