import Foundation
import NFCTestSupport
import Testing

/// Values the built nfctool refuses with a usage error (64) that says why, leaving the tag file
/// and the ledger untouched: blank run names, negative or non-decimal numbers, URLs with
/// invisible controls, Wi-Fi keys a network cannot have, and `format` without `--yes` when
/// nobody can be asked.
@Suite("values that would surprise are refused with the reason", .tags(.endToEnd), .serialized, .timeLimit(.minutes(3)))
struct RefusedValuesTests {
    static func nfctool(_ arguments: [String], in directory: URL) async throws -> ToolRun {
        let tool = try #require(Executables.built("nfctool"), "nfctool is not built").path
        var environment = ProcessInfo.processInfo.environment
        environment["NFCTOOL_WIFI_KEY"] = nil
        return try await runTool(tool, arguments, environment: environment, timeout: 30, in: directory)
    }

    @Test("a blank run name is refused by ledger load as by batch, and no ledger is created", arguments: ["", " ", "\t"])
    func blankRunName(name: String) async throws {
        do {
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            try Data("url\nhttps://a.example\n".utf8).write(to: directory.appendingPathComponent("m.csv"))
            for arguments in [["ledger", "load", "--ledger", "run.db", "--run", name, "m.csv"],
                              ["batch", "--device", "sim:ntag215?poll-wait=0", "--manifest", "m.csv", "--ledger", "run.db", "--run", name]] {
                let run = try await Self.nfctool(arguments, in: directory)
                #expect(run.status == 64, "\(arguments): \(run.output)")
                #expect(run.output.contains("--run needs a name (not empty or blank)"), "\(run.output)")
            }
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("run.db").path))
        }
    }

    @Test("--timeout -1 says the value is negative; 0x10 and 1e3 are not numbers of seconds", arguments: [
        ("-1", "the value is negative"), ("0x10", "in decimal digits"), ("1e3", "in decimal digits"), ("inf", "in decimal digits"),
    ])
    func timeoutValues(value: String, reason: String) async throws {
        do {
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let run = try await Self.nfctool(["scan", "--device", "sim:empty?poll-wait=0", "--timeout", value], in: directory)
            #expect(run.status == 64, "\(run.output)")
            #expect(run.output.hasPrefix("Error: The value '\(value)' is invalid for '--timeout <s>': "), "\(run.output)")
            #expect(run.output.contains(reason), "\(run.output)")
            #expect(!run.output.contains("Missing value"))
        }
    }

    @Test("a URL holding a C1 or bidirectional control is refused (64) and the tag file keeps its message",
          arguments: ["https://example.com/\u{9B}31m", "https://example.com/\u{202E}gnp.exe", "https://example.com/a\u{2066}b"])
    func urlControls(url: String) async throws {
        do {
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let device = "sim:ntag215?file=tag.json"
            #expect(try await Self.nfctool(["write", "--device", device, "--url", "https://example.com/kept"], in: directory).status == 0)
            let before = try Data(contentsOf: directory.appendingPathComponent("tag.json"))
            let run = try await Self.nfctool(["write", "--device", device, "--url", url], in: directory)
            #expect(run.status == 64, "\(run.output)")
            #expect(run.output.contains("percent-encode it"), "\(run.output)")
            #expect(try Data(contentsOf: directory.appendingPathComponent("tag.json")) == before)
            let encode = try await Self.nfctool(["ndef", "encode", "--url", url], in: directory)
            #expect(encode.status == 64, "\(encode.output)")
        }
    }

    @Test("a WPA2-Personal key is 8 to 63 characters or 64 hex digits; open with an encryption type is refused", arguments: [
        (["--wifi-key-file", "short.key"], 64, "8 to 63 printable ASCII characters, or 64 hex digits"),
        (["--wifi-key-file", "long.key"], 64, "8 to 63 printable ASCII characters, or 64 hex digits"),
        (["--wifi-key-file", "nothex.key"], 64, "8 to 63 printable ASCII characters, or 64 hex digits"),
        (["--wifi-auth", "open", "--wifi-encryption", "aes"], 64, "an open network has no encryption"),
        (["--wifi-key-file", "good.key"], 0, ""),
        (["--wifi-key-file", "hex.key"], 0, ""),
        (["--wifi-auth", "open"], 0, ""),
    ] as [([String], Int32, String)])
    func wifiKeys(options: [String], status: Int32, reason: String) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let keys = ["short.key": "1234567", "long.key": String(repeating: "k", count: 64), "nothex.key": String(repeating: "g", count: 64),
                    "good.key": "correct horse", "hex.key": String(repeating: "a1", count: 32)]
        for (name, key) in keys { try Data(key.utf8).write(to: directory.appendingPathComponent(name)) }
        let run = try await Self.nfctool(["ndef", "encode", "--wifi-ssid", "net"] + options, in: directory)
        #expect(run.status == status, "\(options): \(run.output)")
        #expect(reason.isEmpty || run.output.contains(reason), "\(run.output)")
    }

    @Test("format without a terminal needs --yes (64, the tag file unchanged); with --yes it formats")
    func formatNeedsYes() async throws {
        do {
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let device = "sim:ultralight?file=tag.json"
            #expect(try await Self.nfctool(["read", "--device", device], in: directory).status == 4)
            let before = try Data(contentsOf: directory.appendingPathComponent("tag.json"))
            let refused = try await Self.nfctool(["format", "--device", device], in: directory)
            #expect(refused.status == 64, "\(refused.output)")
            #expect(refused.output.contains("Add --yes to confirm"), "\(refused.output)")
            #expect(try Data(contentsOf: directory.appendingPathComponent("tag.json")) == before)
            #expect(try await Self.nfctool(["format", "--device", device, "--plan"], in: directory).status == 0)
            let done = try await Self.nfctool(["format", "--device", device, "--yes"], in: directory)
            #expect(done.status == 0, "\(done.output)")
            #expect(try Data(contentsOf: directory.appendingPathComponent("tag.json")) != before)
        }
    }
}
