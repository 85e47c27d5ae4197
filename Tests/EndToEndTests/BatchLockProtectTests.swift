import Foundation
import NFCTestSupport
import Testing

/// `nfctool batch` defects found by review, judged from outside: a fresh `nfctool` process on
/// simulated tag files, then the tag files' bytes and the ledger read by python3 (json,
/// sqlite3), never by our own code.
@Suite("nfctool batch: lock with protect, failures counted", .tags(.endToEnd), .serialized, .timeLimit(.minutes(5)))
struct BatchLockProtectTests {

    /// Runs python3 `script` with `arguments`; its standard output parsed as JSON.
    static func python(_ script: String, _ arguments: [String]) async throws -> Any {
        let run = try await runPython(script, arguments)
        #expect(run.status == 0, "python3 failed: \(run.standardOutput)")
        return try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8))
    }

    /// The ledger's attempts as python3's sqlite3 reads them.
    static func ledgerRows(_ path: String) async throws -> [[String: Any]] {
        let script = """
            import json, sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.row_factory = sqlite3.Row
            rows = [dict(r) for r in db.execute('select * from attempts order by id')]
            print(json.dumps(rows))
            """
        return try #require(try await python(script, [path]) as? [[String: Any]])
    }

    /// The memory bytes of a simulator tag file, as python3's json reads them.
    static func tagMemory(_ path: String) async throws -> [Int] {
        let script = """
            import json, sys
            state = json.load(open(sys.argv[1]))
            print(json.dumps(list(bytes.fromhex(state['memory']))))
            """
        return try #require(try await python(script, [path]) as? [Int])
    }

    @Test("--lock --protect on an NTAG213: protected first, then locked with the new password; the ledger says done, locked and protected; the tag file holds the lock bytes, CFGLCK, AUTH0 and PWD")
    func lockAndProtectNTAG213() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tagFile = directory.appendingPathComponent("tag.json").path
        let ledger = directory.appendingPathComponent("run.db").path
        let passwordFile = directory.appendingPathComponent("pw").path
        try "11223344:A1B2\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        let run = try await runTool(
            try Executables.nfctool(),
            ["batch", "--device", "sim:ntag213?poll-wait=0&file=\(tagFile)", "--url", "https://ex.io/t/{uid}", "--count", "1",
             "--lock", "--yes", "--protect", "--password-file", passwordFile, "--ledger", ledger, "--json"],
            environment: ProcessInfo.processInfo.environment, timeout: 30)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("\"done\" : 1"), "\(run.output)")
        #expect(run.output.contains("\"failed\" : 0"), "\(run.output)")

        let rows = try await Self.ledgerRows(ledger)
        #expect(rows.count == 1)
        #expect(rows.first?["status"] as? String == "done", "\(rows)")
        #expect(rows.first?["locked"] as? Int == 1, "\(rows)")
        #expect(rows.first?["protected"] as? Int == 1, "\(rows)")

        // NTAG213 datasheet 8.5: 45 pages; static lock bytes at 0Ah–0Bh, CC at 0Ch, dynamic lock
        // bytes at page 28h, CFG0 (AUTH0 its byte 3) at 29h, CFG1 (ACCESS, CFGLCK bit 6) at
        // 2Ah, PWD at 2Bh, PACK at 2Ch.
        let memory = try await Self.tagMemory(tagFile)
        try #require(memory.count == 45 * 4)
        #expect(memory[10] == 0xFF && memory[11] == 0xFF, "static lock bytes \(memory[10]) \(memory[11])")
        #expect(memory[15] & 0x0F == 0x0F, "CC3 write access \(memory[15])")
        #expect(memory[0x28 * 4] == 0xFF && memory[0x28 * 4 + 1] & 0x0F == 0x0F, "dynamic lock bytes \(memory[160...162])")
        #expect(memory[0x29 * 4 + 3] == 4, "AUTH0 \(memory[0x29 * 4 + 3])")
        #expect(memory[0x2A * 4] & 0x40 != 0, "ACCESS \(memory[0x2A * 4]): CFGLCK not set")
        #expect(Array(memory[(0x2B * 4)..<(0x2B * 4 + 4)]) == [0x11, 0x22, 0x33, 0x44], "PWD")
        #expect(Array(memory[(0x2C * 4)..<(0x2C * 4 + 2)]) == [0xA1, 0xB2], "PACK")
    }

    @Test("--lock on an ICODE SLIX2 and a MIFARE Classic 1K (with the read-back now in place): the ledger row done and locked, and the tag file shows it (every T5T block's lock status and CC write access 11b; every trailer's read-only access bits 07 8F 0F)")
    func lockType5AndClassic() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (model, extra) in [("slix2", [String]()), ("classic1k", ["--format"])] {
            let tagFile = directory.appendingPathComponent("\(model).json").path
            let ledger = directory.appendingPathComponent("\(model).db").path
            let run = try await runTool(
                try Executables.nfctool(),
                ["batch", "--device", "sim:\(model)?poll-wait=0&file=\(tagFile)", "--url", "https://ex.io/{n}", "--count", "1",
                 "--lock", "--yes", "--ledger", ledger, "--json"] + extra,
                environment: ProcessInfo.processInfo.environment, timeout: 30)
            #expect(run.status == 0, "\(model): \(run.output)")
            let rows = try await Self.ledgerRows(ledger)
            #expect(rows.map { $0["status"] as? String } == ["done"], "\(model): \(rows)")
            #expect(rows.first?["locked"] as? Int == 1, "\(model): \(rows)")
            let memory = try await Self.tagMemory(tagFile)
            if model == "slix2" {
                // The tag file image: 320 bytes of memory, then one security status byte per block
                // (80); the CC (E1 40 27 01) declares a T5T area through block 78.
                try #require(memory.count == 320 + 80 + 3)
                #expect(memory[1] & 0x03 == 0x03, "CC write access \(memory[1])")
                #expect(memory[320..<(320 + 79)].allSatisfy { $0 & 0x01 == 1 }, "block locks \(memory[320..<400])")
            } else {
                // AN1304 read-only: access bits 07 8F 0F in every sector trailer (bytes 6–8).
                try #require(memory.count == 1024)
                for sector in 0..<16 {
                    let trailer = (sector * 4 + 3) * 16
                    #expect(Array(memory[(trailer + 6)..<(trailer + 9)]) == [0x07, 0x8F, 0x0F], "sector \(sector)")
                }
            }
        }
    }

    @Test("a tag whose data cannot be built ({n} = 100 gives odd-length hex) fails: the summary counts it, the ledger has it as failed, the exit is 1")
    func dataThatCannotBeBuiltIsAFailure() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tags = directory.appendingPathComponent("tags").path
        let ledger = directory.appendingPathComponent("run.db").path
        let run = try await runTool(
            try Executables.nfctool(),
            ["batch", "--device", "sim:ntag215*2?poll-wait=0&dir=\(tags)", "--mime", "application/x-t", "--data-hex", "{n}",
             "--start", "99", "--count", "2", "--ledger", ledger, "--json"],
            environment: ProcessInfo.processInfo.environment, timeout: 30)
        #expect(run.status == 1, "\(run.output)")
        #expect(run.output.contains("\"done\" : 1"), "\(run.output)")
        #expect(run.output.contains("\"failed\" : 1"), "\(run.output)")
        let rows = try await Self.ledgerRows(ledger)
        #expect(rows.map { $0["status"] as? String } == ["done", "failed"], "\(rows)")
        #expect(rows.map { $0["counter"] as? Int } == [99, 100], "\(rows)")
        #expect((rows.last?["error"] as? String)?.contains("could not be built") == true, "\(rows)")
        // The second tag was not written: it still holds the empty NDEF TLV it came with.
        let second = try await Self.tagMemory(tags + "/0453494d000002.json")
        #expect(Array(second[16..<19]) == [0x03, 0x00, 0xFE], "\(second[16..<19])")
    }
}
