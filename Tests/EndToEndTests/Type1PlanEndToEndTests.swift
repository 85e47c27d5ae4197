import Foundation
import NFCCore
import NFCTags
import NFCTestSupport
import Testing

/// `--plan` on a Type 1 tag (Topaz) in fresh `nfctool` processes: every WRITE-E, WRITE-NE,
/// WRITE-E8 and WRITE-NE8 is held back and listed, the tag file stays byte-identical, and the run
/// that follows sends exactly the plan's writes. (The planning reader used to count no Type 1
/// command as a write: `lock --plan` said "0 writes; nothing was sent" and locked the tag.)
@Suite("Type 1 --plan lists its writes and sends none", .tags(.endToEnd), .serialized, .timeLimit(.minutes(5)))
struct Type1PlanEndToEndTests {
    /// The Type 1 write commands (code, address or block, data) a traced run sent, as hex.
    static func sentWrites(_ traceFile: String) throws -> [String] {
        let trace = try ReaderTrace.parse(Array(try Data(contentsOf: URL(fileURLWithPath: traceFile))))
        let writes: Set<UInt8> = [Type1Command.writeErase, Type1Command.writeNoErase, Type1Command.writeErase8, Type1Command.writeNoErase8]
        return trace.events.compactMap { event -> String? in
            guard case .transceive(let command, _) = event.request, let code = command.values.first ?? nil, writes.contains(code) else { return nil }
            let dataCount = code == Type1Command.writeErase || code == Type1Command.writeNoErase ? 1 : Type1Memory.blockSize
            return Hex.encode(Array(command.bytes.array.prefix(2 + dataCount)), uppercase: true)
        }
    }

    /// The plan's writes from its JSON, as the commands they stand for would start (code left out:
    /// location as the address byte, then the data).
    static func plannedWrites(_ json: String) throws -> [(location: String, data: String, note: String?)] {
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let rows = object?["writes"] as? [[String: Any]] ?? []
        return rows.map { ($0["location"] as? String ?? "", $0["data"] as? String ?? "", $0["note"] as? String) }
    }

    /// A plan row as the command it lists: WRITE-NE (`1A`/`1B`) when noted, else WRITE-E
    /// (`53`/`54`); the address from "byte N (…)" or "block N".
    static func command(of row: (location: String, data: String, note: String?)) -> String {
        let words = row.location.split(separator: " ")
        let number = words.count > 1 ? Int(words[1]) ?? -1 : -1
        let byte = words.first == "byte"
        let code: UInt8 = switch (byte, row.note != nil) {
        case (true, false): Type1Command.writeErase
        case (true, true): Type1Command.writeNoErase
        case (false, false): Type1Command.writeErase8
        case (false, true): Type1Command.writeNoErase8
        }
        return Hex.encode([code, UInt8(truncatingIfNeeded: number)], uppercase: true) + row.data.replacingOccurrences(of: " ", with: "")
    }

    @Test("write, format --force, erase and lock --plan on a written Topaz 96 and Topaz 512: exit 0, writes listed, the tag file byte-identical; the traced lock then sends exactly the plan's writes",
          arguments: [("topaz96", 40), ("topaz512", 200)])
    func plansWriteNothing(model: String, urlLength: Int) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("tag.json").path
        let device = "sim:\(model)?file=\(file)"
        let url = "https://example.com/" + String(repeating: "a", count: urlLength)
        let written = try await runBuiltNFCTool(["write", "--device", device, "--url", url])
        try #require(written.status == 0, "\(written.output)")
        let before = try Data(contentsOf: URL(fileURLWithPath: file))

        for arguments in [["write", "--text", "only planned"], ["format", "--force"], ["erase"], ["lock"]] {
            let plan = try await runBuiltNFCTool(arguments + ["--device", device, "--plan", "--json"])
            #expect(plan.status == 0, "\(arguments): \(plan.output)")
            #expect(try Self.plannedWrites(plan.standardOutput).count > 0, "\(arguments): \(plan.standardOutput)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before, "\(arguments) --plan changed the tag file")
        }
        let read = try await runBuiltNFCTool(["read", "--device", device, "--json"])
        #expect(read.standardOutput.contains(url), "\(read.output)")
        #expect(!read.standardOutput.contains("read-only"))

        let plan = try await runBuiltNFCTool(["lock", "--device", device, "--plan", "--json"])
        let rows = try Self.plannedWrites(plan.standardOutput)
        #expect(plan.standardOutput.contains("\"irreversible\""), "\(plan.standardOutput)")
        let traceFile = directory.appendingPathComponent("lock.trace").path
        let lock = try await runBuiltNFCTool(["lock", "--device", device, "--yes", "--trace", traceFile])
        #expect(lock.status == 0, "\(lock.output)")
        #expect(try Self.sentWrites(traceFile) == rows.map(Self.command(of:)))
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) != before)
    }

    @Test("lock --plan through libnfc and the PN532 emulator (topaz96): the emulator's tag file is unchanged and the tag still writable")
    func planThroughLibNFC() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("topaz.json").path
        let emulator = try await EmulatorProcess.start(["--tag", "topaz96:\(file)"])
        defer { emulator.stop() }
        let written = try await runBuiltNFCTool(["write", "--device", emulator.connectionString, "--url", "https://example.com/p"])
        try #require(written.status == 0, "\(written.output)")
        _ = try await emulator.control("save")
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        let plan = try await runBuiltNFCTool(["lock", "--device", emulator.connectionString, "--plan"])
        #expect(plan.status == 0, "\(plan.output)")
        #expect(plan.standardOutput.contains("3 writes"), "\(plan.standardOutput)")
        // WRITE-NE (1A) through InDataExchange or InCommunicateThru: none reached the tag.
        #expect(!emulator.trace.contains { $0.contains(" 1A 0B 0F") || $0.contains(" 1A 70 FF") }, "\(emulator.trace)")
        _ = try await emulator.control("save")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
        let again = try await runBuiltNFCTool(["write", "--device", emulator.connectionString, "--url", "https://example.com/q"])
        #expect(again.status == 0, "the tag was locked by a plan: \(again.output)")
    }
}
