import Foundation
import NFCTestSupport
import Testing

/// Manifests and arguments as stations get them from spreadsheets and shells, through the built
/// nfctool: what would write nothing or mangled text is a data error (65) naming the line and
/// column before the first tag (no ledger file, no tag file); a BOM is dropped; an argument
/// that is not UTF-8 is a usage error (64).
@Suite("manifests and arguments that would write nothing or mangled text are refused", .tags(.endToEnd), .serialized, .timeLimit(.minutes(3)))
struct ManifestInputTests {
    static func shell(_ command: String, in directory: URL) async throws -> ToolRun {
        var environment = ProcessInfo.processInfo.environment
        environment["NFCTOOL"] = try #require(Executables.built("nfctool"), "nfctool is not built").path
        return try await runTool("/bin/sh", ["-c", command], environment: environment, timeout: 30, in: directory)
    }

    @Test("batch refuses a bad manifest with exit 65, line and column, before any ledger or tag file exists", arguments: [
        ("m.csv", Array("url,text\rhttps://a.example,x\r".utf8), "", "(line 1, column 9)"),
        ("m.csv", Array("url,text\n".utf8), "", "no rows"),
        ("m.csv", Array("url,txt\nhttps://a.example,\n".utf8), "", "column 'txt' is neither uid nor a record option"),
        ("m.csv", Array("url\nhttps://a.example\n".utf8), "--match-uid", "needs a 'uid' column"),
        ("m.csv", Array("uid,url\n0453494D000001,https://a\n0453494d000001,https://b\n".utf8), "--match-uid", "(line 3, column 1)"),
        ("m.csv", Array("uid,url\n04:53:49:4D:00:00:01,https://a\n".utf8), "--match-uid", "separators"),
        ("m.csv", Array("url,text\nhttps://a.example,Caf".utf8) + [0xE9] + Array("\n".utf8), "", "byte 0xE9 is not UTF-8 text (save the manifest as UTF-8, not Latin-1 or another code page) (line 2, column 22)"),
        ("m.jsonl", Array("{\"url\": \"https://a\", \"txt\": null}\n".utf8), "", "(line 1, column 22)"),
    ] as [(String, [UInt8], String, String)])
    func refused(name: String, manifest: [UInt8], extra: String, expected: String) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(manifest).write(to: directory.appendingPathComponent(name))
        let run = try await Self.shell(#""$NFCTOOL" batch --device 'sim:ntag215*2?poll-wait=0&dir=tags' --manifest \#(name) --ledger run.db \#(extra)"#, in: directory)
        #expect(run.status == 65, "\(run.output)")
        #expect(run.output.contains("Error: manifest \(name): "), "\(run.output)")
        #expect(run.output.contains(expected), "\(run.output)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("run.db").path))
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("tags").path))
    }

    @Test("ledger load refuses a header-only manifest and a Latin-1 one (65) and loads nothing")
    func ledgerLoadRefuses() async throws {
        do {
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            try Data("url,text\n".utf8).write(to: directory.appendingPathComponent("empty.csv"))
            try Data(Array("url,text\nhttps://a.example,Caf".utf8) + [0xE9] + Array("\n".utf8)).write(to: directory.appendingPathComponent("latin1.csv"))
            for name in ["empty.csv", "latin1.csv"] {
                let run = try await Self.shell(#""$NFCTOOL" ledger load --ledger run.db --run r1 \#(name)"#, in: directory)
                #expect(run.status == 65, "\(run.output)")
                #expect(run.output.contains("(line 2"), "\(run.output)")
                #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("run.db").path))
            }
        }
    }

    @Test("a manifest with a UTF-8 BOM is read with its first column named as written; the tag holds the exact text")
    func byteOrderMark() async throws {
        do {
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            try Data([0xEF, 0xBB, 0xBF] + Array("url,text\nhttps://a.example/x,Caf\u{E9}\n".utf8)).write(to: directory.appendingPathComponent("m.csv"))
            let run = try await Self.shell(#""$NFCTOOL" batch --device 'sim:ntag215?poll-wait=0&file=tag.json' --manifest m.csv --ledger run.db --count 1"#, in: directory)
            #expect(run.status == 0, "\(run.output)")
            let memory = try await runPython("import json, sys; print(json.load(open(sys.argv[1]))['memory'].upper())",
                                       [directory.appendingPathComponent("tag.json").path])
            // "Café" as UTF-8: 43 61 66 C3 A9.
            #expect(memory.standardOutput.contains("436166C3A9"), "\(memory.standardOutput)")
        }
    }

    @Test("an argument that is not UTF-8 is a usage error (64) naming it, for record text and a batch URL")
    func argumentNotUTF8() async throws {
        do {
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            for command in [#""$NFCTOOL" ndef encode --text "$(printf 'Caf\351')""#,
                            #""$NFCTOOL" batch --device 'sim:ntag215?poll-wait=0' --url "$(printf 'https://a.example/\351')" --ledger run.db"#] {
                let run = try await Self.shell(command, in: directory)
                #expect(run.status == 64, "\(command): \(run.output)")
                #expect(run.output.contains("is not UTF-8 text (byte 0xE9"), "\(run.output)")
            }
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("run.db").path))
        }
    }
}
