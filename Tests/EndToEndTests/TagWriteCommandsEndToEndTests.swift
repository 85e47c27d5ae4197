import Foundation
import NFCTestSupport
import Testing
@testable import NFCToolCore

/// The tag-writing commands run as a user runs them: the built nfctool in a subprocess, against
/// a simulated NTAG kept in a tag file between runs (`sim:ntag215?file=…`).
@Suite("read, write, lock, format, erase, protect and unprotect: the built nfctool on a tag file", .tags(.endToEnd), .timeLimit(.minutes(10)))
struct TagWriteCommandsEndToEndTests {
    /// A fresh directory for tag and password files, removed by the caller.
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("nfctool-tagw-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// `sim:MODEL?file=DIR/tag.json`.
    static func device(_ directory: URL, _ model: String = "ntag215") -> String {
        "sim:\(model)?file=\(directory.appendingPathComponent("tag.json").path)"
    }

    @Test("write then read: the records come back decoded, in command-line order, and as JSON with uid and model")
    func writeThenRead() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let write = try await runBuiltNFCTool(["write", "--device", Self.device(dir), "--url", "https://example.com", "--text", "Hi"])
        #expect(write.status == 0)
        #expect(write.standardOutput == """
            Wrote 25 bytes (2 records) to NTAG215 04 53 49 4D 00 00 01, capacity 492 bytes.
            Verified: the message read back is the one written.

            """)
        let read = try await runBuiltNFCTool(["read", "--device", Self.device(dir)])
        #expect(read.status == 0)
        #expect(read.standardOutput == """
            NTAG215 04 53 49 4D 00 00 01, NDEF read-write, 25 of 492 bytes used
            NDEF message: 2 records, 25 bytes

            Record 1: URI (well-known "U"), payload 12 bytes
              uri:        https://example.com

            Record 2: Text (well-known "T"), payload 5 bytes
              text:       Hi
              language:   en
              encoding:   utf-8

            """)
        let json = try await runBuiltNFCTool(["read", "--device", Self.device(dir), "--json"])
        #expect(json.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        #expect(object["uid"] as? String == "0453494D000001")
        #expect(object["model"] as? String == "NTAG215")
        let records = try #require(object["records"] as? [[String: Any]])
        #expect(records.map { $0["kind"] as? String } == ["uri", "text"])
        let raw = try await runBuiltNFCTool(["read", "--device", Self.device(dir), "--raw"])
        #expect(raw.standardOutput == "91010c55046578616d706c652e636f6d5101055402656e4869\n")
    }

    @Test("write --ndef takes a file of raw NDEF bytes")
    func writeNDEFFile() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("m.ndef")
        try Data([0xD1, 0x01, 0x0C, 0x55, 0x04] + Array("example.com".utf8)).write(to: file)
        #expect(try await runBuiltNFCTool(["write", "--device", Self.device(dir), "--ndef", file.path]).status == 0)
        #expect(try await runBuiltNFCTool(["read", "--device", Self.device(dir), "--raw"]).standardOutput == "d1010c5504" + "6578616d706c652e636f6d\n")
    }

    @Test("an empty tag is said to be empty and exits 0; erase empties a written tag")
    func emptyAndErase() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fresh = try await runBuiltNFCTool(["read", "--device", Self.device(dir)])
        #expect(fresh.status == 0)
        #expect(fresh.standardOutput.hasSuffix("The tag holds an empty NDEF message (no records).\n"))
        _ = try await runBuiltNFCTool(["write", "--device", Self.device(dir), "--url", "https://example.com"])
        let erase = try await runBuiltNFCTool(["erase", "--device", Self.device(dir)])
        #expect(erase.status == 0)
        #expect(erase.standardOutput == "Erased NTAG215 04 53 49 4D 00 00 01: empty NDEF message, 492 bytes free.\n")
        #expect(try await runBuiltNFCTool(["read", "--device", Self.device(dir)]).standardOutput.hasSuffix("(no records).\n"))
    }

    @Test("read --raw of the empty message prints d00000, which ndef decode accepts and verify --expect-ndef calls equal")
    func rawEmptyMessage() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let raw = try await runBuiltNFCTool(["read", "--device", Self.device(dir), "--raw"])
        #expect(raw.status == 0)
        #expect(raw.standardOutput == "d00000\n")
        let decoded = try await runBuiltNFCTool(["ndef", "decode", raw.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)])
        #expect(decoded.status == 0, "\(decoded.standardError)")
        let expected = dir.appendingPathComponent("empty.hex")
        try Data(raw.standardOutput.utf8).write(to: expected)
        let verify = try await runBuiltNFCTool(["verify", "--device", Self.device(dir), "--expect-ndef", expected.path])
        #expect(verify.status == 0, "\(verify.standardOutput)\(verify.standardError)")
    }

    @Test("a blank Ultralight EV1: read exits 4, write exits 4 without --format and writes with it; format --force")
    func blankTag() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let device = Self.device(dir, "ultralight")
        #expect(try await runBuiltNFCTool(["read", "--device", device]).status == 4)
        let refused = try await runBuiltNFCTool(["write", "--device", device, "--url", "https://a.example"])
        #expect(refused.status == 4)
        #expect(refused.standardError.contains("add --format"))
        let formatted = try await runBuiltNFCTool(["write", "--device", device, "--url", "https://a.example", "--format", "--yes"])
        #expect(formatted.status == 0)
        #expect(formatted.standardOutput.hasPrefix("Formatted the MIFARE Ultralight EV1 (MF0UL11) for NDEF.\n"))
        let again = try await runBuiltNFCTool(["format", "--device", device, "--yes"])
        #expect(again.status == 11)
        #expect(try await runBuiltNFCTool(["format", "--device", device, "--force", "--yes"]).status == 0)
        #expect(try await runBuiltNFCTool(["read", "--device", device]).standardOutput.hasSuffix("(no records).\n"))
    }

    @Test("lock: refused without --yes when not interactive (64, nothing written); with --yes the tag reports read-only and a write then exits 5")
    func lock() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let refused = try await runBuiltNFCTool(["lock", "--device", Self.device(dir)])
        #expect(refused.status == 64)
        #expect(refused.standardError.hasPrefix("Error: lock makes the tag read-only for good and cannot be undone. Add --yes"))
        #expect(try await runBuiltNFCTool(["read", "--device", Self.device(dir)]).standardOutput.contains("NDEF read-write"))
        let lock = try await runBuiltNFCTool(["lock", "--device", Self.device(dir), "--yes"])
        #expect(lock.status == 0)
        #expect(lock.standardOutput == "Locked NTAG215 04 53 49 4D 00 00 01: it now reports read-only.\n")
        let write = try await runBuiltNFCTool(["write", "--device", Self.device(dir), "--url", "https://example.com"])
        #expect(write.status == 5)
        #expect(write.standardError == "Error: the NTAG215 is read-only; nothing was written\n")
        #expect(try await runBuiltNFCTool(["erase", "--device", Self.device(dir)]).status == 5)
    }

    @Test("write --lock needs --yes without a terminal, and with it writes, locks and checks")
    func writeAndLock() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try await runBuiltNFCTool(["write", "--device", Self.device(dir), "--url", "https://example.com", "--lock"]).status == 64)
        let run = try await runBuiltNFCTool(["write", "--device", Self.device(dir), "--url", "https://example.com", "--lock", "--yes"])
        #expect(run.status == 0)
        #expect(run.standardOutput.hasSuffix("Locked: the tag is now read-only for good.\n"))
        #expect(try await runBuiltNFCTool(["read", "--device", Self.device(dir)]).standardOutput.contains("NDEF read-only"))
    }

    @Test("lock on a Type 4 tag exits 10 with the platform's reason")
    func lockType4() async throws {
        let run = try await runBuiltNFCTool(["lock", "--device", "sim:type4", "--yes"])
        #expect(run.status == 10)
        #expect(run.standardError.contains("Type 4 has no lock command"))
    }

    @Test("protect, then a write without the password exits 9, with a wrong one 9, with the right one (environment) 0; unprotect")
    func passwords() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let right = dir.appendingPathComponent("right.pwd"), wrong = dir.appendingPathComponent("wrong.pwd")
        try Data("12345678:ABCD\n".utf8).write(to: right)
        try Data("11111111\n".utf8).write(to: wrong)
        let protect = try await runBuiltNFCTool(["protect", "--device", Self.device(dir), "--password-file", right.path])
        #expect(protect.status == 0)
        #expect(protect.standardOutput == "Protected NTAG215 04 53 49 4D 00 00 01: pages 4 on need the password to write.\n")
        #expect(try await runBuiltNFCTool(["write", "--device", Self.device(dir), "--url", "https://a.example"]).status == 9)
        let wrongRun = try await runBuiltNFCTool(["write", "--device", Self.device(dir), "--url", "https://a.example", "--password-file", wrong.path])
        #expect(wrongRun.status == 9)
        #expect(!wrongRun.standardError.contains("11111111"))
        let rightRun = try await runBuiltNFCTool(["write", "--device", Self.device(dir), "--url", "https://a.example"],
                                           environment: ["NFCTOOL_PASSWORD": "12345678:ABCD"])
        #expect(rightRun.status == 0)
        #expect(try await runBuiltNFCTool(["unprotect", "--device", Self.device(dir), "--password-file", wrong.path]).status == 9)
        #expect(try await runBuiltNFCTool(["unprotect", "--device", Self.device(dir), "--password-file", right.path]).status == 0)
        #expect(try await runBuiltNFCTool(["write", "--device", Self.device(dir), "--url", "https://b.example"]).status == 0)
    }

    @Test("protect again needs the current password (9 without it); --current-password-file changes it")
    func changePassword() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let first = dir.appendingPathComponent("first.pwd"), second = dir.appendingPathComponent("second.pwd")
        try Data("12345678".utf8).write(to: first)
        try Data("CAFEBABE:1234".utf8).write(to: second)
        #expect(try await runBuiltNFCTool(["protect", "--device", Self.device(dir), "--password-file", first.path]).status == 0)
        #expect(try await runBuiltNFCTool(["protect", "--device", Self.device(dir), "--password-file", second.path]).status == 9)
        let change = try await runBuiltNFCTool(["protect", "--device", Self.device(dir), "--password-file", second.path, "--current-password-file", first.path, "--read-protect"])
        #expect(change.status == 0)
        #expect(change.standardOutput == "Protected NTAG215 04 53 49 4D 00 00 01: pages 4 on need the password to read\nand write.\n")
        #expect(try await runBuiltNFCTool(["read", "--device", Self.device(dir), "--password-file", first.path]).status == 9)
        #expect(try await runBuiltNFCTool(["read", "--device", Self.device(dir), "--password-file", second.path]).status == 0)
    }

    @Test("a password that is not hex is a usage error that does not repeat it")
    func badPassword() async throws {
        let run = try await runBuiltNFCTool(["protect", "--device", "sim:ntag215"], environment: ["NFCTOOL_PASSWORD": "secretword"])
        #expect(run.status == 64)
        #expect(!run.standardError.contains("secretword"))
        #expect(try await runBuiltNFCTool(["protect", "--device", "sim:ntag215"]).status == 64)
    }

    @Test("bad input: invalid URL 64, unknown flag 64, oversize 6 by N bytes, no tag 2, no reader 3, tag pulled 7")
    func badInput() async throws {
        let url = try await runBuiltNFCTool(["write", "--url", "example.com"])
        #expect(url.status == 64)
        #expect(url.standardError.hasPrefix("Error: The value 'example.com' is invalid for '--url <uri>'"))
        for command in ["read", "write", "lock", "format", "erase", "protect", "unprotect"] {
            #expect(try await runBuiltNFCTool([command, "--bogus"]).status == 64, "\(command)")
        }
        let big = try await runBuiltNFCTool(["write", "--device", "sim:ntag213", "--text", String(repeating: "x", count: 200)])
        #expect(big.status == 6)
        #expect(big.standardError == "Error: the message of 207 bytes is too big by 70 bytes: the NTAG213 holds at most 137; nothing was written\n")
        for arguments in [["read"], ["write", "--url", "https://a.example"], ["lock", "--yes"], ["format", "--yes"], ["erase"], ["protect"], ["unprotect"]] {
            let run = try await runBuiltNFCTool(arguments + ["--device", "sim:empty", "--timeout", "0.3"], environment: ["NFCTOOL_PASSWORD": "12345678"])
            #expect(run.status == 2, "\(arguments)")
            #expect(run.standardError == "Error: no tag within 0.3 s on sim:empty\n")
        }
        #expect(try await runBuiltNFCTool(["read", "--device", "pn532_uart:/dev/nfctool-no-such-port"]).status == 3)
        let torn = try await runBuiltNFCTool(["write", "--device", "sim:ntag215?leave-after=12", "--url", "https://example.com/" + String(repeating: "a", count: 100)])
        #expect(torn.status == 7)
    }

    @Test("--plan and --dry-run leave the tag file as it was and print the pages")
    func planWritesNothing() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        _ = try await runBuiltNFCTool(["read", "--device", Self.device(dir)])  // creates the file
        let file = dir.appendingPathComponent("tag.json")
        let before = try Data(contentsOf: file)
        let plan = try await runBuiltNFCTool(["write", "--device", Self.device(dir), "--url", "https://example.com", "--plan"])
        #expect(plan.status == 0)
        #expect(plan.standardOutput == """
            Plan for write on NTAG215 04 53 49 4D 00 00 01: 5 writes; nothing was sent.
              page 5 (0x05)    0C 55 04 65
              page 6 (0x06)    78 61 6D 70
              page 7 (0x07)    6C 65 2E 63
              page 8 (0x08)    6F 6D FE 00
              page 4 (0x04)    03 10 D1 01

            """)
        let lock = try await runBuiltNFCTool(["lock", "--device", Self.device(dir), "--dry-run"])
        #expect(lock.status == 0)
        #expect(lock.standardOutput.contains("IRREVERSIBLE: static lock bytes"))
        #expect(lock.standardOutput.hasSuffix("4 of these cannot be undone.\n"))
        for arguments in [["format", "--force", "--plan"], ["erase", "--plan"], ["unprotect", "--plan"]] {
            #expect(try await runBuiltNFCTool(arguments + ["--device", Self.device(dir)]).status == 0, "\(arguments)")
        }
        let protect = try await runBuiltNFCTool(["protect", "--device", Self.device(dir), "--plan"], environment: ["NFCTOOL_PASSWORD": "12345678:ABCD"])
        #expect(protect.status == 0)
        #expect(protect.standardOutput.contains("(password, not shown)"))
        #expect(!protect.standardOutput.contains("12 34 56 78"))
        #expect(try Data(contentsOf: file) == before)
    }
}
