import Foundation
import Testing
@testable import NFCToolCore

/// The tag-writing commands in-process: the confirmation asked on a terminal, and what is
/// refused before any reader is opened.
@Suite("read, write, lock, format, erase, protect, unprotect in-process", .timeLimit(.minutes(5)))
struct TagWriteCommandsTests {
    /// Runs nfctool in-process with standard input a terminal that answers `answer`.
    static func runInteractive(_ arguments: [String], answer: String) async -> (ExitCode, CapturedIO) {
        let io = CapturedIO(standardInput: Array(answer.utf8), isStandardInputTerminal: true)
        let status = await runTool(arguments: arguments, environment: [:], io: io)
        return (status, io)
    }

    @Test("lock on a terminal names the UID and model, says it cannot be undone, and asks on standard error")
    func lockAsks() async {
        let (status, io) = await Self.runInteractive(["lock", "--device", "sim:ntag215"], answer: "yes\n")
        #expect(status == .success)
        #expect(io.standardError == "the NTAG215 with UID 04 53 49 4D 00 00 01 becomes read-only for good: this\n"
            + "cannot be undone. Type 'yes' to go on: ")
        #expect(io.standardOutput == "Locked NTAG215 04 53 49 4D 00 00 01: it now reports read-only.\n")
    }

    @Test("any answer but yes stops lock before a write (exit 1): 'y' too, as the prompt asks for 'yes'",
          arguments: ["no\n", "\n", "", "y\n", "Y\n", "ye\n"])
    func lockDeclined(answer: String) async {
        let (status, io) = await Self.runInteractive(["lock", "--device", "sim:ntag215"], answer: answer)
        #expect(status == .failure)
        #expect(io.standardError.hasSuffix("Error: not confirmed; nothing was written\n"))
    }

    @Test("format on a terminal names the tag, says its capability container cannot be undone, and asks; 'y' is not yes")
    func formatAsks() async {
        let (declined, declinedIO) = await Self.runInteractive(["format", "--device", "sim:ultralight"], answer: "y\n")
        #expect(declined == .failure)
        #expect(declinedIO.standardError.hasPrefix("formatting the MIFARE Ultralight"), "\(declinedIO.standardError)")
        #expect(declinedIO.standardError.contains("one-time programmable"))
        #expect(declinedIO.standardError.hasSuffix("Error: not confirmed; nothing was written\n"))
        let (status, io) = await Self.runInteractive(["format", "--device", "sim:ultralight"], answer: "yes\n")
        #expect(status == .success, "\(io.standardError)")
        #expect(io.standardOutput.hasPrefix("Formatted "))
    }

    @Test("write --lock on a terminal asks before writing anything")
    func writeLockAsks() async {
        let (status, io) = await Self.runInteractive(["write", "--device", "sim:ntag215", "--url", "https://example.com", "--lock"], answer: "n\n")
        #expect(status == .failure)
        #expect(io.standardError.hasPrefix("After writing, the NTAG215 with UID 04 53 49 4D 00 00 01 becomes read-only"))
        #expect(io.standardOutput == "")
    }

    @Test("refused before any reader is opened: no message, both --ndef and records, --lock with --no-verify, --json with --raw, bad --from-page, bad --timeout")
    func usageErrors() async {
        let cases: [[String]] = [
            ["write"], ["write", "--ndef", "m.ndef", "--url", "https://a.example"],
            ["write", "--url", "https://a.example", "--lock", "--no-verify"], ["read", "--json", "--raw"],
            ["protect", "--from-page", "2"], ["read", "--timeout", "0"], ["write", "--text", "a", "--data", "x"],
        ]
        for arguments in cases {
            // A device that cannot be opened: exit 3 would mean the check came too late.
            let run = await runNFCTool(arguments + ["--device", "pn532_uart:/dev/nfctool-no-such-port"])
            #expect(run.status == .usage, "\(arguments): \(run.standardError)")
        }
    }

    @Test("write --ndef with bytes that are not NDEF is a data error (65)")
    func badNDEFFile() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("nfctool-bad-\(UUID().uuidString).ndef")
        try Data([0x01, 0x02, 0x03]).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let run = await runNFCTool(["write", "--ndef", file.path])
        #expect(run.status == .dataError)
    }

    @Test("a password file that is not a password: usage error naming the file, not its content")
    func badPasswordFile() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("nfctool-pwd-\(UUID().uuidString)")
        try Data("hunter2\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let run = await runNFCTool(["write", "--url", "https://a.example", "--password-file", file.path])
        #expect(run.status == .usage)
        #expect(run.standardError.contains(file.path))
        #expect(!run.standardError.contains("hunter2"))
    }

    @Test("a key or password file that is not UTF-8: data error naming the file and the offset of the first bad byte, not its content",
          arguments: [["write", "--url", "https://a.example", "--password-file"], ["read", "--keys"], ["format", "--yes", "--keys"], ["ntag424", "setup", "--url", "https://a.example/{sun:picc}", "--keys"]])
    func keyFileNotUTF8(_ command: [String]) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("nfctool-key-\(UUID().uuidString)")
        try Data(Array("0011".utf8) + [0xC3, 0x28] + Array("2233\n".utf8)).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let run = await runNFCTool(command + [file.path])
        #expect(run.status == .dataError, "\(run.standardError)")
        #expect(run.standardError.contains("'\(file.path)': not UTF-8 text (invalid byte at offset 4)"), "\(run.standardError)")
        #expect(!run.standardError.contains("0011"))
    }

    @Test("write --json reports what was done, with stable keys")
    func writeJSON() async throws {
        let run = await runNFCTool(["write", "--device", "sim:ntag215", "--url", "https://example.com", "--json"])
        #expect(run.status == .success)
        #expect(run.standardOutput == """
            {
              "bytes" : 16,
              "capacity" : 492,
              "formatted" : false,
              "locked" : false,
              "model" : "NTAG215",
              "reader" : "sim:ntag215",
              "readerName" : "simulator (ntag215)",
              "records" : 1,
              "uid" : "0453494D000001",
              "verified" : true
            }

            """)
    }
}
