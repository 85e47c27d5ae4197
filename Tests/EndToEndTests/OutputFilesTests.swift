import Foundation
import NFCCore
import NFCTestSupport
import Testing

/// Where nfctool's output lands, judged from outside by a fresh process: a file named through a
/// symbolic link is written into the link's target (the link stays), a FIFO or a device is
/// written in place (never replaced by a regular file), and every failed write is exit 1 naming
/// the file or standard output.
@Suite("output files are written in place and every failed write is reported", .tags(.endToEnd), .serialized, .timeLimit(.minutes(3)))
struct OutputFilesTests {

    /// Runs nfctool with `arguments` (standard output and error merged).
    static func run(_ arguments: [String], timeout: Double = 30) async throws -> ToolRun {
        try await runTool(try Executables.nfctool(), arguments, environment: ProcessInfo.processInfo.environment, timeout: timeout)
    }

    /// Runs `command` under `/bin/sh -c`, `NFCTOOL` naming the built tool.
    static func shell(_ command: String, timeout: Double = 30) async throws -> ToolRun {
        var environment = ProcessInfo.processInfo.environment
        environment["NFCTOOL"] = try Executables.nfctool()
        return try await runTool("/bin/sh", ["-c", command], environment: environment, timeout: timeout)
    }

    /// `lstat`'s file type of `path` (`S_IFLNK`, `S_IFIFO`, `S_IFCHR`, `S_IFREG`), not following a link.
    static func fileType(_ path: String) -> mode_t? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        return status.st_mode & S_IFMT
    }

    /// The `memory` hex of a tag file, as python's json module reads it.
    static func tagMemory(_ path: String) async throws -> String {
        let result = try await runPython("import json, sys; print(json.load(open(sys.argv[1]))['memory'])", [path])
        #expect(result.status == 0)
        return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The URL-record message `ndef encode --url https://example.com/o` prints, as hex.
    static let encodedURL = "D1010E55046578616D706C652E636F6D2F6F"

    @Test("-o through a symbolic link writes the file the link names, and the link stays a link")
    func outputThroughLink() async throws {
        do {
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let target = directory.appendingPathComponent("real.ndef").path
            let link = directory.appendingPathComponent("link.ndef").path
            try Data("old".utf8).write(to: URL(fileURLWithPath: target))
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "real.ndef")

            let encode = try await Self.run(["ndef", "encode", "--url", "https://example.com/o", "-o", link])
            #expect(encode.status == 0, "\(encode.output)")
            #expect(Self.fileType(link) == S_IFLNK)
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "real.ndef")
            #expect(Hex.encode(try Data(contentsOf: URL(fileURLWithPath: target)), uppercase: true) == Self.encodedURL)

            // dump --binary through the link: the target holds the tag's pages as the tag file does
            // (the first 512 bytes: the password pages at the end read as zeros).
            let tag = directory.appendingPathComponent("tag.json").path
            let dump = try await Self.run(["dump", "--device", "sim:ntag215?file=\(tag)", "--binary", "-o", link])
            #expect(dump.status == 0, "\(dump.output)")
            #expect(Self.fileType(link) == S_IFLNK)
            let dumped = try Data(contentsOf: URL(fileURLWithPath: target))
            #expect(dumped.count == 540)
            #expect(Hex.encode(dumped.prefix(512), uppercase: true) == String((try await Self.tagMemory(tag)).uppercased().prefix(1024)))
        }
    }

    @Test("-o through a symbolic link whose target is not UTF-8 is exit 1 and creates no other file")
    func outputThroughLinkToNonUTF8Name() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // The shell makes the link (its target the bytes 'r' FF 'x'), nfctool writes through it,
        // and the directory is listed by ls in a fresh process afterwards.
        let run = try await Self.shell("""
            cd '\(directory.path)' && ln -s "$(printf 'r\\377x')" link.ndef && \
            "$NFCTOOL" ndef encode --url https://example.com/o -o link.ndef; echo "status=$?"; ls -1 | LC_ALL=C od -An -c | tr -s ' '
            """)
        #expect(run.output.contains("status=1"), "\(run.output)")
        #expect(run.output.contains("not UTF-8"), "\(run.output)")
        // Only the link is there: no file named with a replacement character (EF BF BD).
        #expect(!run.output.contains("357 277 275"), "\(run.output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["link.ndef"])
    }

    @Test("a sim tag file named through a symbolic link is saved into its target; the link stays a link")
    func tagFileThroughLink() async throws {
        do {
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let real = directory.appendingPathComponent("tags/real.json").path
            try FileManager.default.createDirectory(atPath: directory.appendingPathComponent("tags").path, withIntermediateDirectories: true)
            let link = directory.appendingPathComponent("tag.json").path
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "tags/real.json")
            // The link dangles: the first run creates the target through it.
            let create = try await Self.run(["write", "--device", "sim:ntag215?file=\(link)", "--url", "https://example.com/first"])
            #expect(create.status == 0, "\(create.output)")
            #expect(Self.fileType(link) == S_IFLNK)
            #expect(Self.fileType(real) == S_IFREG)
            let write = try await Self.run(["write", "--device", "sim:ntag215?file=\(link)", "--url", "https://example.com/second"])
            #expect(write.status == 0, "\(write.output)")
            #expect(Self.fileType(link) == S_IFLNK)
            #expect(try await Self.tagMemory(real).uppercased().contains(Hex.encode(Array("example.com/second".utf8), uppercase: true)))
        }
    }

    @Test("-o naming a FIFO writes into the FIFO, which its reader receives, and it stays a FIFO")
    func outputToFIFO() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("pipe").path
        #expect(mkfifo(fifo, 0o600) == 0)
        // The reader: opens the FIFO (waiting for the writer) and reads to its end, on a thread
        // of its own (a detached task would block a thread of the cooperative pool).
        let received = Task { () -> Data? in
            try? await runBlocking { () -> Data? in
                guard let handle = FileHandle(forReadingAtPath: fifo) else { return nil }
                defer { try? handle.close() }
                return try handle.readToEnd() ?? Data()
            }
        }
        let encode = try await runTool(try Executables.nfctool(), ["ndef", "encode", "--url", "https://example.com/o", "-o", fifo],
                                              environment: ProcessInfo.processInfo.environment, timeout: 30)
        #expect(encode.status == 0, "\(encode.output)")
        #expect(await received.value.map { Hex.encode(Array($0), uppercase: true) } == Self.encodedURL)
        #expect(Self.fileType(fifo) == S_IFIFO)
    }

    /// A character device that fails every write with ENOSPC, as /dev/full does: a node of its
    /// own (mknod 1,7) when the tests may make one, so that a regression cannot replace the
    /// machine's /dev/full; else /dev/full itself.
    static func fullDevice(in directory: URL) -> String {
        let own = directory.appendingPathComponent("full").path
        return mknod(own, S_IFCHR | 0o666, dev_t((1 << 8) | 7)) == 0 ? own : "/dev/full"
    }

    @Test("-o naming a full device is exit 1 naming it, and the device node stays a character device")
    func outputToFullDevice() async throws {
        do {
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let full = Self.fullDevice(in: directory)
            let tag = directory.appendingPathComponent("tag.json").path
            for arguments in [["dump", "--device", "sim:ntag215?file=\(tag)", "--binary", "-o", full],
                              ["ndef", "encode", "--url", "https://example.com/o", "-o", full]] {
                let run = try await Self.run(arguments)
                #expect(run.status == 1, "\(arguments): \(run.output)")
                #expect(run.output.contains("cannot write '\(full)': No space left on device"), "\(run.output)")
                #expect(Self.fileType(full) == S_IFCHR)
            }
            #expect(Self.fileType("/dev/full") == S_IFCHR)
        }
    }

    @Test("-o naming a directory is exit 1 saying it is a directory, and the directory is left as it was")
    func outputToDirectory() async throws {
        do {
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let run = try await Self.run(["ndef", "encode", "--url", "https://example.com/o", "-o", directory.path])
            #expect(run.status == 1, "\(run.output)")
            #expect(run.output == "Error: cannot write '\(directory.path)': is a directory\n", "\(run.output)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        }
    }

    @Test("-o /dev/fd/1 writes to the standard output the shell set up")
    func outputToDescriptor() async throws {
        do {
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let out = directory.appendingPathComponent("out.bin").path
            try Data("kept:".utf8).write(to: URL(fileURLWithPath: out))
            let run = try await Self.shell(#""$NFCTOOL" ndef encode --url https://example.com/o -o /dev/fd/1 >> '\#(out)'"#)
            #expect(run.status == 0, "\(run.output)")
            // Appended after what the file held: the descriptor itself was written, not a new file.
            #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == Data("kept:".utf8) + Data(try Hex.decode(Self.encodedURL)))
        }
    }

    @Test("standard output on a full device is exit 1 naming standard output: ledger export and ndef encode")
    func standardOutputFull() async throws {
        do {
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let full = Self.fullDevice(in: directory)
            let ledger = directory.appendingPathComponent("run.db").path
            let batch = try await Self.run(["batch", "--device", "sim:ntag215*2?poll-wait=0", "--url", "https://ex.io/{uid}", "--count", "2",
                                      "--ledger", ledger])
            #expect(batch.status == 0, "\(batch.output)")
            for command in ["\"$NFCTOOL\" ledger export '\(ledger)'", "\"$NFCTOOL\" ledger export --jsonl '\(ledger)'",
                            "\"$NFCTOOL\" ndef encode --url https://example.com/o"] {
                let run = try await Self.shell("\(command) > '\(full)'")
                #expect(run.status == 1, "\(command): \(run.output)")
                #expect(run.output.contains("Error: cannot write standard output: No space left on device"), "\(run.output)")
            }
            #expect(Self.fileType(full) == S_IFCHR)
        }
    }
}
