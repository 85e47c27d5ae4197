import Foundation
import NFCTestSupport
import Testing

/// The tag-writing commands of the built nfctool through real libnfc (`pn532_uart`) and the
/// PN532 emulator, asserting on the emulator's frame trace that a refused or planned operation
/// sends no write command.
@Suite("nfctool read, write, lock, format, erase, protect, unprotect through real libnfc", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(10)))
struct TagWriteCommandsThroughLibNFCTests {
    /// The built nfctool run against `emulator`, libnfc quiet.
    static func nfctool(_ arguments: [String], _ emulator: EmulatorProcess, environment extra: [String: String] = [:]) async throws -> ToolRun {
        let tool = try #require(Executables.built("nfctool"), "nfctool is not built")
        var environment = emulator.libnfcEnvironment
        environment["LIBNFC_LOG_LEVEL"] = "0"
        environment.merge(extra) { _, new in new }
        return try await runTool(tool.path, arguments + ["--device", emulator.connectionString, "--timeout", "3"], environment: environment)
    }

    /// Trace lines of frames that carry a write-class command to the tag: Type 2 WRITE `A2`,
    /// COMPATIBILITY_WRITE / Classic WRITE `A0`, ISO 7816 UPDATE BINARY `D6`.
    static func writeFrames(_ trace: [String]) -> [String] {
        trace.filter { $0.contains("> D4 40 01 A2 ") || $0.contains("> D4 40 01 A0 ") || $0.contains("> D4 40 01 00 D6 ") }
    }

    /// A directory for tag and password files.
    static func directory() throws -> URL { try temporaryDirectory() }

    @Test("write then read through libnfc: WRITE frames on the wire, the same output as the simulator gives")
    func writeThenRead() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215:\(dir.appendingPathComponent("tag.json").path)"])
        defer { emulator.stop() }
        let write = try await Self.nfctool(["write", "--url", "https://example.com", "--text", "Hi"], emulator)
        #expect(write.status == 0, "\(write.output)")
        // 7 WRITEs: the blank tag's length byte is already 0, so the data pages go first and the
        // page with the length last, without a length-0 WRITE before them.
        #expect(Self.writeFrames(emulator.trace).count == 7)
        let read = try await Self.nfctool(["read"], emulator)
        #expect(read.status == 0)
        #expect(read.output == """
            NTAG215 04 53 49 4D 00 00 01, NDEF read-write, 25 of 492 bytes used
            NDEF message: 2 records, 25 bytes

            Record 1: URI (well-known "U"), payload 12 bytes
              uri:        https://example.com

            Record 2: Text (well-known "T"), payload 5 bytes
              text:       Hi
              language:   en
              encoding:   utf-8

            """)
    }

    @Test("every --plan and --dry-run sends no write frame and no PWD_AUTH with the planned password",
          arguments: [["write", "--url", "https://example.com", "--plan"], ["write", "--url", "https://example.com", "--lock", "--dry-run"],
                      ["lock", "--plan"], ["format", "--force", "--plan"], ["erase", "--dry-run"], ["protect", "--plan"],
                      ["unprotect", "--plan"]])
    func planSendsNoWrite(arguments: [String]) async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215"])
        defer { emulator.stop() }
        let run = try await Self.nfctool(arguments, emulator, environment: arguments[0] == "protect" ? ["NFCTOOL_PASSWORD": "12345678:ABCD"] : [:])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.hasPrefix("Plan for \(arguments[0]) on NTAG215 04 53 49 4D 00 00 01: "))
        #expect(Self.writeFrames(emulator.trace) == [])
        #expect(!emulator.trace.contains { $0.contains("> D4 40 01 1B 12 34 56 78") })
    }

    @Test("refused before writing: oversize 6 (by N bytes), locked 5, protected without password 9, wrong password 9, lock without --yes 64")
    func checksStopWrites() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let emulator = try await EmulatorProcess.start(["--tag", "ntag213:\(dir.appendingPathComponent("tag.json").path)"])
        defer { emulator.stop() }
        let big = try await Self.nfctool(["write", "--text", String(repeating: "x", count: 200)], emulator)
        #expect(big.status == 6)
        #expect(big.output.contains("too big by 70 bytes"))
        let unconfirmed = try await Self.nfctool(["lock"], emulator)
        #expect(unconfirmed.status == 64)
        #expect(Self.writeFrames(emulator.trace) == [])

        let password = dir.appendingPathComponent("pwd"), wrong = dir.appendingPathComponent("wrong")
        try Data("12345678:ABCD".utf8).write(to: password)
        try Data("11111111".utf8).write(to: wrong)
        #expect(try await Self.nfctool(["protect", "--password-file", password.path], emulator).status == 0)
        let writesAfterProtect = Self.writeFrames(emulator.trace).count
        #expect(try await Self.nfctool(["write", "--url", "https://a.example"], emulator).status == 9)
        #expect(try await Self.nfctool(["write", "--url", "https://a.example", "--password-file", wrong.path], emulator).status == 9)
        #expect(Self.writeFrames(emulator.trace).count == writesAfterProtect)

        let lock = try await Self.nfctool(["lock", "--yes", "--password-file", password.path], emulator)
        #expect(lock.status == 0, "\(lock.output)")
        #expect(lock.output == "Locked NTAG213 04 53 49 4D 00 00 01: it now reports read-only.\n")
        let writesAfterLock = Self.writeFrames(emulator.trace).count
        let locked = try await Self.nfctool(["write", "--url", "https://a.example", "--password-file", password.path], emulator)
        #expect(locked.status == 5)
        #expect(Self.writeFrames(emulator.trace).count == writesAfterLock)
    }

    @Test("the tag pulled in the middle of a write exits 7")
    func tagPulled() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215", "--leave-after", "12"])
        defer { emulator.stop() }
        let run = try await Self.nfctool(["write", "--url", "https://example.com/" + String(repeating: "a", count: 100)], emulator)
        #expect(run.status == 7, "\(run.output)")
    }

    @Test("lock on a Type 4 tag exits 10 with the platform's reason and sends no UPDATE BINARY")
    func lockType4() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "type4"])
        defer { emulator.stop() }
        let run = try await Self.nfctool(["lock", "--yes"], emulator)
        #expect(run.status == 10, "\(run.output)")
        #expect(run.output.contains("Type 4 has no lock command"))
        #expect(Self.writeFrames(emulator.trace) == [])
    }

    @Test("a reader that cannot be opened exits 3")
    func noReader() async throws {
        let tool = try #require(Executables.built("nfctool"))
        let run = try await runTool(tool.path, ["read", "--device", "pn532_uart:/dev/nfctool-no-such-port"], environment: ["LIBNFC_LOG_LEVEL": "0"])
        #expect(run.status == 3)
    }

    @Test("two tags before a PN532 (ntag215+ntag213): write and lock exit 2 with no WRITE frame and both tag files unchanged; scan lists both")
    func twoTagsInTheField() async throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = dir.appendingPathComponent("a.json").path, b = dir.appendingPathComponent("b.json").path
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215:\(a)+ntag213:\(b)"])
        defer { emulator.stop() }
        let scan = try await Self.nfctool(["scan", "--json"], emulator)
        #expect(scan.status == 0, "\(scan.output)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(scan.output.utf8)) as? [String: Any], "\(scan.output)")
        #expect(object["tagsInField"] as? Int == 2)
        #expect(object["model"] as? String == "NTAG215")
        let others = try #require(object["otherTags"] as? [[String: Any]])
        #expect(others.map { $0["uid"] as? String } == ["0453494D000002"])
        #expect(others.map { $0["model"] as? String } == ["NTAG213"])
        let before = [try? Data(contentsOf: URL(fileURLWithPath: a)), try? Data(contentsOf: URL(fileURLWithPath: b))]
        for arguments in [["write", "--url", "https://example.com"], ["lock", "--yes"]] {
            let run = try await Self.nfctool(arguments, emulator)
            #expect(run.status == 2, "\(run.output)")
            #expect(run.output.contains("2 tags in the field: take one away"), "\(run.output)")
        }
        #expect(Self.writeFrames(emulator.trace) == [])
        #expect([try? Data(contentsOf: URL(fileURLWithPath: a)), try? Data(contentsOf: URL(fileURLWithPath: b))] == before)
    }
}
