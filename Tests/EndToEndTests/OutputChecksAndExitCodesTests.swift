import Foundation
import NFCTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What a run does with a broken output, an option that does nothing on this tag and a tag lost
/// at the end, each judged from outside in fresh nfctool processes: the tag file
/// compared byte for byte before and after, exit statuses against docs/cli.md.
@Suite("Broken pipes, output paths checked before the work, options refused where they do nothing, exit codes", .tags(.endToEnd), .timeLimit(.minutes(3)))
struct OutputChecksAndExitCodesTests {
    /// The raw bytes of a file (empty when it is missing).
    static func bytes(_ path: String) -> Data { (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data() }

    @Test("--trace to a FIFO whose reader leaves early: nfctool is not killed by SIGPIPE; it exits 1 naming the trace and saying the command finished, and the tag was protected")
    func traceToLeavingFIFO() async throws {
        let directory = try temporaryDirectory()
        let file = directory.appendingPathComponent("ntag215.json").path
        let fifo = directory.appendingPathComponent("ff").path
        let password = directory.appendingPathComponent("pw").path
        try "12345678\n".write(toFile: password, atomically: true, encoding: .utf8)
        let device = "sim:ntag215?file=\(file)"
        let write = try await runBuiltNFCTool(["write", "--device", device, "--text", "before"])
        #expect(write.status == 0, "\(write.output)")
        let before = Self.bytes(file)
        try #require(mkfifo(fifo, 0o600) == 0)
        // The reading end, open before nfctool opens the FIFO to write: closed as soon as the
        // trace's first bytes (its header, written before the tag is touched) arrive.
        let descriptor = open(fifo, O_RDONLY | O_NONBLOCK)
        try #require(descriptor >= 0)
        async let tool = runBuiltNFCTool(["protect", "--device", device, "--password-file", password, "--trace", fifo])
        let arrived = try await runBlocking { () -> Bool in
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, 60_000) > 0 && entry.revents & Int16(POLLIN) != 0
            close(descriptor)
            return ready
        }
        let run = try await tool
        #expect(arrived)
        #expect(run.status == 1, "not 141 (SIGPIPE): \(run.status) \(run.output)")
        #expect(run.standardError.contains(fifo) && run.standardError.contains("the command itself finished"), "\(run.output)")
        #expect(Self.bytes(file) != before, "the tag was protected (the message says so)")
        let info = try await runBuiltNFCTool(["info", "--device", device])
        #expect(info.output.lowercased().contains("password"), "\(info.output)")
    }

    @Test("emulate --save checks its path before anything is on the air: a directory or a missing directory exits 1 naming it with nothing emulated; a FIFO passes the check (the simulator then has no target mode: 10)")
    func emulateSaveCheckedFirst() async throws {
        let directory = try temporaryDirectory()
        let missing = directory.appendingPathComponent("missing/written.ndef").path
        for path in [directory.path, missing] {
            let run = try await runBuiltNFCTool(["emulate", "--text", "hi", "--save", path, "--device", "sim:ntag215", "--timeout", "1"])
            #expect(run.status == 1, "\(path): \(run.output)")
            #expect(run.standardError.contains(path) && run.standardError.contains("nothing was emulated"), "\(run.output)")
            #expect(!run.standardError.contains("Emulating"), "\(run.output)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("missing").path))
        let fifo = directory.appendingPathComponent("saved").path
        try #require(mkfifo(fifo, 0o600) == 0)
        let run = try await runBuiltNFCTool(["emulate", "--text", "hi", "--save", fifo, "--device", "sim:ntag215", "--timeout", "1"])
        #expect(run.status == 10, "\(run.output)")
    }

    @Test("format --ndef-size on a tag other than a MIFARE DESFire exits 64 naming DESFire, the tag file byte-identical; on a DESFire EV1 it is honoured")
    func ndefSizeOnlyWhereHonoured() async throws {
        let directory = try temporaryDirectory()
        for model in ["ultralight", "ntag215", "st25tv02k"] {
            let file = directory.appendingPathComponent("\(model).json").path
            let device = "sim:\(model)?file=\(file)"
            let info = try await runBuiltNFCTool(["info", "--device", device])
            #expect(info.status == 0, "\(info.output)")
            let before = Self.bytes(file)
            let run = try await runBuiltNFCTool(["format", "--device", device, "--ndef-size", "1024", "--force", "--yes"])
            #expect(run.status == 64 && run.standardError.contains("DESFire"), "\(model): \(run.output)")
            #expect(Self.bytes(file) == before, "\(model): nothing written")
        }
        let file = directory.appendingPathComponent("desfire.json").path
        let run = try await runBuiltNFCTool(["format", "--device", "sim:desfire-ev1?file=\(file)", "--ndef-size", "1024", "--yes", "--json"])
        #expect(run.status == 0 && run.standardOutput.contains("\"capacity\""), "\(run.output)")
    }

    @Test("format --keys on a tag other than a MIFARE DESFire or DESFire Light exits 64 naming them, the tag file byte-identical and no key in the output; on a DESFire EV1 the key is used")
    func keysOnlyWhereHonoured() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let keys = directory.appendingPathComponent("keys").path
        try Data("application aes 00112233445566778899AABBCCDDEEFF\n".utf8).write(to: URL(fileURLWithPath: keys))
        for model in ["ntag215", "ultralight-c", "topaz96", "slix2"] {
            let file = directory.appendingPathComponent("\(model).json").path
            let device = "sim:\(model)?file=\(file)"
            let info = try await runBuiltNFCTool(["info", "--device", device])
            #expect(info.status == 0, "\(info.output)")
            let before = Self.bytes(file)
            let run = try await runBuiltNFCTool(["format", "--device", device, "--keys", keys, "--force", "--yes"])
            #expect(run.status == 64 && run.standardError.contains("DESFire"), "\(model): \(run.output)")
            #expect(!run.output.contains("0011223344"), "\(model): a key in the output")
            #expect(Self.bytes(file) == before, "\(model): nothing written")
        }
        let file = directory.appendingPathComponent("desfire.json").path
        let run = try await runBuiltNFCTool(["format", "--device", "sim:desfire-ev1?file=\(file)", "--keys", keys, "--yes"])
        #expect(run.status == 0, "\(run.output)")
        let lockWithoutKey = try await runBuiltNFCTool(["lock", "--device", "sim:desfire-ev1?file=\(file)", "--yes"])
        #expect(lockWithoutKey.status == 9, "the application key format was given is not the one it set: \(lockWithoutKey.output)")
    }

    @Test("lock with the tag leaving after each number of commands: never exit 8 for a lost tag; a loss during the final read-only check exits 7 saying the lock may have been done")
    func lockLostTagIsSeven() async throws {
        let directory = try temporaryDirectory()
        let prepared = directory.appendingPathComponent("prepared.json").path
        let write = try await runBuiltNFCTool(["write", "--device", "sim:ntag215?file=\(prepared)", "--text", "to lock"])
        #expect(write.status == 0, "\(write.output)")
        let original = Self.bytes(prepared)
        var lostAfterLocking = false
        for leave in 1...40 {
            let file = directory.appendingPathComponent("tag-\(leave).json").path
            try original.write(to: URL(fileURLWithPath: file))
            let run = try await runBuiltNFCTool(["lock", "--yes", "--device", "sim:ntag215?file=\(file)&leave-after=\(leave)"])
            if run.status == 0 { break }
            #expect(run.status != 8, "leave-after=\(leave): \(run.output)")
            if run.standardError.contains("may have been done") {
                #expect(run.status == 7, "leave-after=\(leave): \(run.output)")
                #expect(Self.bytes(file) != original, "leave-after=\(leave): the lock was written")
                lostAfterLocking = true
            }
        }
        #expect(lostAfterLocking, "some leave-after falls in the final check")
    }

    @Test("a sim tag file that is missing (no model given) or unreadable (a device) is a reader that could not be opened: exit 3, as docs/cli.md says")
    func unopenableSimulatorIsThree() async throws {
        let directory = try temporaryDirectory()
        let missing = directory.appendingPathComponent("missing.json").path
        for device in ["sim:?file=\(missing)", "sim:?file=/dev/full", "sim:ntag215?file=/dev/full"] {
            let run = try await runBuiltNFCTool(["info", "--device", device])
            #expect(run.status == 3 && run.standardError.contains("cannot open reader"), "\(device): \(run.status) \(run.output)")
        }
        #expect(!FileManager.default.fileExists(atPath: missing))
    }
}
