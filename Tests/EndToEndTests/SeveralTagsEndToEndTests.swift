import Foundation
import NFCTestSupport
import Testing

/// Two tags in the simulator's field at once (`sim:A:FILE+B:FILE`), each command a fresh
/// nfctool process: the commands that write refuse, and the tag files are judged byte for byte.
@Suite("two tags in the field: every writing command refuses, scan lists both", .tags(.endToEnd), .timeLimit(.minutes(5)))
struct SeveralTagsEndToEndTests {
    /// Two NTAG tag files, each first written alone (so both exist and hold a message), and the
    /// connection string of a field holding both.
    static func field(_ directory: URL, first: String = "ntag213", second: String = "ntag215") async throws -> (device: String, files: [String]) {
        let a = directory.appendingPathComponent("a.json").path, b = directory.appendingPathComponent("b.json").path
        for (model, file, uid) in [(first, a, "0453494D000001"), (second, b, "0453494D000002")] {
            let alone = try await runBuiltNFCTool(["write", "--device", "sim:\(model)?file=\(file)&uid=\(uid)", "--url", "https://ex.io/\(model)"])
            #expect(alone.status == 0, "\(alone.standardError)")
        }
        return ("sim:\(first):\(a)+\(second):\(b)", [a, b])
    }

    static func bytes(_ files: [String]) throws -> [Data] {
        try files.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
    }

    @Test("write, erase, format, lock, protect and unprotect on a field of two exit 2 '2 tags in the field: take one away', both tag files unchanged",
          arguments: [["write", "--url", "https://ex.io/new"], ["erase"], ["format", "--force", "--yes"], ["lock", "--yes"], ["protect"], ["unprotect"],
                      ["write", "--url", "https://ex.io/new", "--plan"]])
    func writersRefuse(arguments: [String]) async throws {
        do {
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let (device, files) = try await Self.field(directory)
            let before = try Self.bytes(files)
            let run = try await runBuiltNFCTool(
                arguments + ["--device", device, "--timeout", "2"], environment: arguments[0] == "protect" ? ["NFCTOOL_PASSWORD": "12345678:ABCD"] : [:])
            #expect(run.status == 2, "\(run.standardOutput)\(run.standardError)")
            #expect(run.standardError.contains("2 tags in the field: take one away"), "\(run.standardError)")
            #expect(try Self.bytes(files) == before)
        }
    }

    @Test("ntag424 setup on two NTAG 424 DNA in the field exits 2 and changes neither tag file")
    func ntag424SetupRefuses() async throws {
        do {
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let a = directory.appendingPathComponent("a.json").path, b = directory.appendingPathComponent("b.json").path
            for (file, uid) in [(a, "0453494D000001"), (b, "0453494D000002")] {
                #expect(try await runBuiltNFCTool(["scan", "--device", "sim:ntag424?file=\(file)&uid=\(uid)"]).status == 0)
            }
            let before = try Self.bytes([a, b])
            let keys = directory.appendingPathComponent("k.keys").path
            try Data(NTAG424SetupCommandTests.keysText.utf8).write(to: URL(fileURLWithPath: keys))
            let run = try await runBuiltNFCTool([
                "ntag424", "setup", "--yes", "--device", "sim:ntag424:\(a)+ntag424:\(b)", "--url", NTAG424SetupCommandTests.template, "--keys", keys,
                "--timeout", "2",
            ])
            #expect(run.status == 2, "\(run.standardError)")
            #expect(run.standardError.contains("2 tags in the field: take one away"), "\(run.standardError)")
            #expect(try Self.bytes([a, b]) == before)
        }
    }

    @Test("batch on a field of two writes neither tag: it says so once and waits until one is left (here: its idle timeout)")
    func batchWaits() async throws {
        do {
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let (device, files) = try await Self.field(directory)
            let before = try Self.bytes(files)
            let ledger = directory.appendingPathComponent("l.db").path
            let run = try await runBuiltNFCTool(["batch", "--device", device, "--url", "https://ex.io/b", "--ledger", ledger, "-t", "1", "--json"])
            let lines = run.standardError.split(separator: "\n").filter { $0.contains("2 tags in the field: take one away") }
            #expect(lines.count == 1, "\(run.standardError)")
            #expect(try Self.bytes(files) == before)
            let report = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any], "\(run.standardOutput)")
            #expect(report["done"] as? Int == 0)
            #expect(report["failed"] as? Int == 0)
            let rows = try await runPython("import sqlite3, sys\nprint(sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM attempts').fetchone()[0])", [ledger])
            #expect(rows.status == 0)
            #expect(rows.standardOutput == "0\n")
        }
    }

    @Test("scan lists both tags of the field, in text and in JSON (the first tag's object with tagsInField and otherTags)")
    func scanListsBoth() async throws {
        do {
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let (device, _) = try await Self.field(directory)
            let text = try await runBuiltNFCTool(["scan", "--device", device, "--timeout", "2"])
            #expect(text.status == 0, "\(text.standardError)")
            #expect(text.standardOutput.hasPrefix("2 tags in the field\n"), "\(text.standardOutput)")
            #expect(text.standardOutput.contains("UID:        04 53 49 4D 00 00 01"))
            #expect(text.standardOutput.contains("UID:        04 53 49 4D 00 00 02"))
            #expect(text.standardOutput.contains("model:      NTAG213"))
            #expect(text.standardOutput.contains("model:      NTAG215"))
            let json = try await runBuiltNFCTool(["scan", "--device", device, "--timeout", "2", "--json"])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
            #expect(object["uid"] as? String == "0453494D000001")
            #expect(object["tagsInField"] as? Int == 2)
            let others = try #require(object["otherTags"] as? [[String: Any]])
            #expect(others.map { $0["uid"] as? String } == ["0453494D000002"])
            #expect(others.map { $0["model"] as? String } == ["NTAG215"])
        }
    }
}
