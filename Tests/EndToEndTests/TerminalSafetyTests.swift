import Foundation
import NFCTestSupport
import Testing

/// Issue 11: a tag whose records hold escape sequences, BEL, C1 controls and bidirectional
/// overrides cannot reach the operator's terminal raw through any command's human output, while
/// JSON keeps the exact value.
@Suite("tag text is terminal-safe in every command's output", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(3)))
struct TerminalSafetyTests {
    /// The hostile Text: clear screen, an OSC window title ended by BEL, a right-to-left
    /// override, DEL, a C1 CSI, a carriage return.
    static let hostileText = "ESC:\u{1B}[2J OSC:\u{1B}]0;pwned\u{07} RLO:\u{202E}gnp.exe DEL:\u{7F} C1:\u{9B}31m CR:\r!"
    /// A URL whose file name reads backwards on screen, with an SGR sequence after it.
    static let hostileURL = "https://example.com/\u{202E}txt.exe\u{1B}[31m"

    /// The characters a terminal must never receive raw, written out here independently of
    /// the product's own list: C0 but newline and tab, DEL, C1, bidi controls, line separators,
    /// and U+FFFD (the mark of a byte that was not valid UTF-8).
    static func rawControls(in output: String) -> [String] {
        output.unicodeScalars.filter { scalar in
            let v = scalar.value
            return (v < 0x20 && v != 0x0A && v != 0x09) || (0x7F...0x9F).contains(v)
                || [0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E,
                    0x2066, 0x2067, 0x2068, 0x2069, 0xFFFD].contains(v)
        }.map { String(format: "U+%04X", $0.value) }
    }

    /// One NDEF record with a short payload: MB/ME as given, SR set, IL when `id` is not empty.
    static func record(tnf: UInt8, type: [UInt8], id: [UInt8] = [], payload: [UInt8], first: Bool, last: Bool) -> [UInt8] {
        var header = tnf | 0x10
        if first { header |= 0x80 }
        if last { header |= 0x40 }
        if !id.isEmpty { header |= 0x08 }
        var bytes = [header, UInt8(type.count), UInt8(payload.count)]
        if !id.isEmpty { bytes.append(UInt8(id.count)) }
        return bytes + type + id + payload
    }

    /// The hostile message: a Text record, a URI record (no prefix code) and a MIME record whose
    /// type holds an escape and whose id is not valid UTF-8.
    static var hostileMessage: [UInt8] {
        record(tnf: 1, type: [0x54], payload: [0x02] + Array("en".utf8) + Array(hostileText.utf8), first: true, last: false)
            + record(tnf: 1, type: [0x55], payload: [0x00] + Array(hostileURL.utf8), first: false, last: false)
            + record(tnf: 2, type: Array("text/x\u{1B}]2;t\u{07}".utf8), id: [0xFF, 0x9B, 0x41], payload: Array("a\u{1B}[2Jb".utf8),
                     first: false, last: true)
    }

    static func nfctool(_ arguments: [String], environment extra: [String: String] = [:], in directory: URL? = nil) async throws -> ToolRun {
        let tool = try #require(Executables.built("nfctool"), "nfctool is not built")
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LIBNFC_") && $0.key != "NFCTOOL_DEVICE" }
        environment["LIBNFC_LOG_LEVEL"] = "0"
        environment.merge(extra) { _, new in new }
        return try await runTool(tool.path, arguments, environment: environment, timeout: 30, in: directory)
    }

    /// A simulated NTAG216 in a tag file holding the hostile message (written by nfctool itself).
    static func hostileTag(_ dir: URL) async throws -> String {
        let message = dir.appendingPathComponent("hostile.ndef")
        try Data(hostileMessage).write(to: message)
        let device = "sim:ntag216?file=\(dir.appendingPathComponent("tag.json").path)"
        let write = try await nfctool(["write", "--device", device, "--ndef", message.path])
        #expect(write.status == 0, "\(write.output)")
        return device
    }

    @Test("read, scan, info, dump, verify and watch show the hostile tag with every control escaped")
    func tagCommands() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let device = try await Self.hostileTag(dir)
        let runs: [[String]] = [
            ["read", "--device", device],
            ["scan", "--device", device],
            ["info", "--device", device],
            ["dump", "--device", device],
            ["verify", "--device", device, "--expect-url", "https://example.com/"],
            ["verify", "--device", device, "--expect-ndef", dir.appendingPathComponent("hostile.ndef").path, "--expect-read-only"],
            ["watch", "--device", device, "--timeout", "1"],
            ["write", "--device", device, "--ndef", dir.appendingPathComponent("hostile.ndef").path, "--plan"],
        ]
        for arguments in runs {
            let run = try await Self.nfctool(arguments)
            #expect(!run.timedOut, "\(arguments)")
            #expect(Self.rawControls(in: run.output) == [], "\(arguments[0]): \(run.output.debugDescription)")
        }
        // The content did reach the output, escaped (not dropped): the reader of the screen sees it.
        let read = try await Self.nfctool(["read", "--device", device])
        #expect(read.output.contains(#"ESC:\x1b[2J OSC:\x1b]0;pwned\x07 RLO:\u{202E}gnp.exe DEL:\x7f C1:\u{9B}31m CR:\x0d!"#), "\(read.output)")
        #expect(read.output.contains(#"https://example.com/\u{202E}txt.exe\x1b[31m"#), "\(read.output)")
        #expect(read.output.contains(#"MIME (media "text/x\x1b]2;t\x07")"#), "\(read.output)")
        #expect(read.output.contains(#"  id:         "\xff\x9bA""#), "\(read.output)")
        let mismatch = try await Self.nfctool(["verify", "--device", device, "--expect-url", "https://example.com/"])
        #expect(mismatch.status == 8)
        #expect(mismatch.output.contains(#"found:    https://example.com/\u{202E}txt.exe\x1b[31m"#), "\(mismatch.output)")
        let watch = try await Self.nfctool(["watch", "--device", device, "--timeout", "1"])
        #expect(watch.output.contains(#"https://example.com/\u{202E}txt.exe"#), "\(watch.output)")
    }

    @Test("JSON keeps the exact value and still holds no raw control character")
    func jsonKeepsExactValue() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let device = try await Self.hostileTag(dir)
        for arguments in [["read", "--device", device, "--json"], ["watch", "--device", device, "--timeout", "1", "--json"]] {
            let run = try await Self.nfctool(arguments)
            #expect(Self.rawControls(in: run.output) == [], "\(run.output.debugDescription)")
            let json = run.output.split(separator: "\n").first { $0.hasPrefix("{") }.map(String.init) ?? run.output
            // Parsed by an independent JSON parser, the text is the hostile text, byte for byte.
            let object = try JSONSerialization.jsonObject(with: Data((arguments[0] == "watch" ? json : run.output).utf8))
            #expect(Self.strings(in: object).contains(Self.hostileText), "\(run.output)")
            #expect(Self.strings(in: object).contains { $0.contains("\u{202E}txt.exe\u{1B}[31m") }, "\(run.output)")
            // Every tag command's JSON names its reader (watch's events too).
            #expect((object as? [String: Any])?["reader"] as? String == device, "\(run.output)")
        }
    }

    /// Every string anywhere in a parsed JSON value.
    static func strings(in value: Any) -> [String] {
        switch value {
        case let string as String: [string]
        case let array as [Any]: array.flatMap { strings(in: $0) }
        case let object as [String: Any]: object.values.flatMap { strings(in: $0) }
        default: []
        }
    }

    @Test("batch progress, summary and the ledger's human forms escape what a manifest row carries; the CSV export into a file keeps it exact")
    func batchAndLedger() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let manifest = dir.appendingPathComponent("rows.jsonl")
        // URIs refuse control characters and bidirectional controls (percent-encode them), so the
        // escapes and the right-to-left override ride in the Text.
        func escaped(_ text: String) -> String {
            text.unicodeScalars.map { $0.value < 0x20 || $0.value > 0x7E ? String(format: "\\u%04x", $0.value) : String($0) }.joined()
        }
        let rows = [("https://ex.io/1", "one\u{202E}\u{1B}[2J"), ("https://ex.io/2", "two\u{202E}\u{07}\u{9B}")].map { url, text in
            "{\"url\":\"\(escaped(url))\",\"text\":\"\(escaped(text))\"}"
        }
        try (rows.joined(separator: "\n") + "\n").write(to: manifest, atomically: true, encoding: .utf8)
        let ledger = dir.appendingPathComponent("run.db").path
        let stack = "sim:ntag215*2?dir=\(dir.appendingPathComponent("tags").path)"
        let batch = try await Self.nfctool(["batch", "--device", stack, "--manifest", manifest.path, "--ledger", ledger, "--count", "2", "--timeout", "5"])
        #expect(batch.status == 0, "\(batch.output)")
        #expect(batch.output.contains(#"one\u{202E}"#), "\(batch.output)")
        #expect(Self.rawControls(in: batch.output) == [], "\(batch.output.debugDescription)")
        for arguments in [["ledger", "stats", ledger], ["ledger", "export", "--jsonl", ledger]] {
            let run = try await Self.nfctool(arguments)
            #expect(run.status == 0, "\(arguments) \(run.output)")
            #expect(Self.rawControls(in: run.output) == [], "\(arguments): \(run.output.debugDescription)")
        }
        // The CSV export into a file is data: the exact values, not their escaped display.
        let csv = try await Self.nfctool(["ledger", "export", ledger])
        #expect(csv.status == 0)
        #expect(csv.output.contains("https://ex.io/1; Text \"\"one\u{202E}\u{1B}[2J\"\""), "\(csv.output.debugDescription)")
    }

    @Test("emulate: a message an external reader wrote is reported escaped")
    func emulateReport() async throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("reader-log-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: log) }
        let text = Self.record(tnf: 1, type: [0x54], payload: [0x02] + Array("en".utf8) + Array(Self.hostileText.utf8), first: true, last: true)
        let hex = text.map { String(format: "%02X", $0) }.joined()
        let emulator = try await EmulatorProcess.start(["--external-reader", "type4-write:\(hex)", "--reader-log", log])
        defer { emulator.stop() }
        var environment = emulator.libnfcEnvironment
        environment["LIBNFC_LOG_LEVEL"] = "0"
        let tool = try #require(Executables.built("nfctool"), "nfctool is not built")
        let run = try await runTool(tool.path, ["emulate", "--url", "https://example.com", "--timeout", "10", "--device", emulator.connectionString],
                              environment: environment, timeout: 30)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains(#"RLO:\u{202E}gnp.exe"#), "\(run.output)")
        #expect(Self.rawControls(in: run.output) == [], "\(run.output.debugDescription)")
    }
}
