import Foundation
import Testing
import NFCTestSupport

/// What the docs promised and the tool did not do (issue "What the docs say is what happens"),
/// checked on the built nfctool in fresh processes and, for the ledger, with sqlite3 itself.
@Suite("Docs findings: sim: strings, batch --plan and rows, the reader in every JSON", .tags(.endToEnd), .timeLimit(.minutes(3)))
struct DocsFindingsTests {
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("nfctool-docs-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("a tag file in a folder that does not exist: the folder is made, the tag is written and read back by a new process")
    func tagFileInNewFolder() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("tags/badges/badge.json")
        let write = try await runBuiltNFCTool(["write", "--device", "sim:ntag216?file=\(file.path)", "--url", "https://example.com/badge"])
        #expect(write.status == 0, "\(write.standardError)")
        #expect(FileManager.default.fileExists(atPath: file.path))
        let read = try await runBuiltNFCTool(["read", "--device", "sim:?file=\(file.path)", "--raw"])
        #expect(read.standardOutput == "d1011255046578616d706c652e636f6d2f6261646765\n")
    }

    @Test("sim:empty waits the whole timeout before saying no tag, with or without poll-wait; other options are usage errors",
          arguments: ["sim:empty", "sim:empty?poll-wait=0", "sim:empty?poll-wait=50"])
    func emptyFieldWaitsItsTimeout(_ device: String) async throws {
        let started = Date()
        let run = try await runBuiltNFCTool(["scan", "--device", device, "--timeout", "0.6"])
        let elapsed = Date().timeIntervalSince(started)
        #expect(run.status == 2)
        #expect(run.standardError == "Error: no tag within 0.6 s on \(device)\n")
        #expect(elapsed >= 0.6, "said 'no tag within 0.6 s' after \(elapsed) s")
    }

    @Test("sim:empty refuses options other than poll-wait as a usage error")
    func emptyFieldOptions() async throws {
        let run = try await runBuiltNFCTool(["scan", "--device", "sim:empty?count=2", "--timeout", "0.2"])
        #expect(run.status == 64, "\(run.standardError)")
        #expect(run.standardError.contains("poll-wait"))
    }

    /// Runs `script` with python3 and its sqlite3 module.
    static func python(_ script: String, _ arguments: [String]) async throws -> String {
        try await runPython(script, arguments).standardOutput
    }

    @Test("batch --plan is --dry-run; its 'row 1 (line 2)' is the ledger's row 1 after the run (read with sqlite3)")
    func batchPlanAndRows() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let manifest = dir.appendingPathComponent("m.csv")
        try Data("url\nhttps://ex.io/a\nhttps://ex.io/b\n".utf8).write(to: manifest)
        let ledger = dir.appendingPathComponent("run.db").path
        let plan = try await runBuiltNFCTool(["batch", "--manifest", manifest.path, "--ledger", ledger, "--plan", "--count", "2"])
        #expect(plan.status == 0, "\(plan.standardError)")
        #expect(plan.standardOutput.hasPrefix("row 1 (line 2): URI https://ex.io/a (12 bytes; fits NTAG210, NTAG212, NTAG213, NTAG215, NTAG216, MIFARE Ultralight EV1 (MF0UL11), MIFARE Ultralight EV1 (MF0UL21))\nrow 2 (line 3): URI https://ex.io/b (12 bytes; fits NTAG210, NTAG212, NTAG213, NTAG215, NTAG216, MIFARE Ultralight EV1 (MF0UL11), MIFARE Ultralight EV1 (MF0UL21))\n"))
        let dryRun = try await runBuiltNFCTool(["batch", "--manifest", manifest.path, "--ledger", ledger, "--dry-run", "--count", "2"])
        #expect(dryRun.standardOutput == plan.standardOutput)
        let run = try await runBuiltNFCTool(["batch", "--device", "sim:ntag215*2?poll-wait=0", "--manifest", manifest.path, "--ledger", ledger, "--timeout", "5"])
        #expect(run.status == 0, "\(run.standardError)")
        let rows = try await Self.python("""
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            print([tuple(r) for r in db.execute("SELECT row, summary FROM attempts WHERE status = 'done' ORDER BY row")])
            """, [ledger])
        #expect(rows == "[(1, 'URI https://ex.io/a'), (2, 'URI https://ex.io/b')]\n")
    }

    @Test("every tag command's JSON names the reader: connection string and name",
          arguments: [["read"], ["write", "--url", "https://a.example"], ["erase"], ["format", "--force", "--yes"], ["dump"],
                      ["verify", "--expect-model", "NTAG215"], ["write", "--url", "https://a.example", "--plan"],
                      ["lock", "--yes"]])
    func readerInJSON(_ command: [String]) async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let device = "sim:ntag215?file=\(dir.appendingPathComponent("tag.json").path)"
        let run = try await runBuiltNFCTool(command + ["--device", device, "--json"])
        #expect(run.status == 0, "\(run.standardError)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
        #expect(object["reader"] as? String == device)
        #expect(object["readerName"] as? String == "simulator (ntag215)")
    }

    @Test("protect and unprotect --json name the reader too")
    func readerInPasswordJSON() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let device = "sim:ntag215?file=\(dir.appendingPathComponent("tag.json").path)"
        for command in ["protect", "unprotect"] {
            let run = try await runBuiltNFCTool([command, "--device", device, "--json"], environment: ["NFCTOOL_PASSWORD": "12345678"])
            #expect(run.status == 0, "\(run.standardError)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
            #expect(object["reader"] as? String == device)
        }
    }

    @Test("a change made on a reader the command line did not name says which reader made it")
    func readerNamedWhenImplicit() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let device = "sim:ntag215?file=\(dir.appendingPathComponent("tag.json").path)"
        let implicit = try await runBuiltNFCTool(["write", "--url", "https://a.example"], environment: ["NFCTOOL_DEVICE": device])
        #expect(implicit.status == 0, "\(implicit.standardError)")
        #expect(implicit.standardOutput.hasSuffix("Reader: simulator (ntag215) (\(device)), from NFCTOOL_DEVICE.\n"), "\(implicit.standardOutput)")
        let named = try await runBuiltNFCTool(["erase", "--device", device])
        #expect(!named.standardOutput.contains("Reader:"))
    }
}
