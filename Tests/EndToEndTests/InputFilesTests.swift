import Foundation
import NFCTestSupport
import Testing

/// What nfctool reads, judged by a fresh process: every input has a bound (`</dev/zero` is a
/// data error, not memory without end), and a file that cannot be read is named with what it
/// is (a directory, an empty device, a FIFO read to its end), never a framework's error number.
@Suite("inputs are bounded and file errors say what happened", .tags(.endToEnd), .serialized, .timeLimit(.minutes(3)))
struct InputFilesTests {
    /// Runs `command` under `/bin/sh -c` with `NFCTOOL` naming the built tool and the address
    /// space capped at 2 GB, so that an unbounded read fails fast instead of filling the machine.
    static func shell(_ command: String, in directory: URL? = nil) async throws -> ToolRun {
        var environment = ProcessInfo.processInfo.environment
        environment["NFCTOOL"] = try #require(Executables.built("nfctool"), "nfctool is not built").path
        return try await runTool("/bin/sh", ["-c", "ulimit -v 2000000; \(command)"], environment: environment, timeout: 60, in: directory)
    }

    @Test("standard input and input files beyond their limit are a data error (65) 'input larger than', for every reader of input",
          arguments: [
            (#""$NFCTOOL" ndef decode < /dev/zero"#, "standard input: input larger than 1 MiB"),
            (#""$NFCTOOL" ndef decode --input - < /dev/zero"#, "standard input: input larger than 1 MiB"),
            (#""$NFCTOOL" ndef decode --input /dev/zero"#, "input file '/dev/zero': input larger than 1 MiB"),
            (#""$NFCTOOL" write --device sim:ntag215 --ndef - < /dev/zero"#, "standard input: input larger than 1 MiB"),
            (#""$NFCTOOL" verify --device sim:ntag215 --expect-ndef /dev/zero"#, "input larger than 1 MiB"),
            (#""$NFCTOOL" ndef encode --json-file - < /dev/zero"#, "standard input: input larger than 4 MiB"),
            (#""$NFCTOOL" ndef encode --mime a/b --data-file /dev/zero"#, "data file '/dev/zero': input larger than 1 MiB"),
            (#""$NFCTOOL" batch --device sim:ntag215 --manifest /dev/zero --ledger /dev/null"#, "manifest '/dev/zero': input larger than 64 MiB"),
          ] as [(String, String)])
    func boundedInput(command: String, expected: String) async throws {
        let run = try await Self.shell(command)
        #expect(!run.timedOut)
        #expect(run.status == 65, "\(command): \(run.output)")
        #expect(run.output.contains("Error: \(expected)") || run.output.contains(expected), "\(command): \(run.output)")
    }

    @Test("a directory as input is 'is a directory', an empty device is empty input, a FIFO is read to its end")
    func fileKinds() async throws {
        do {
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let folder = directory.path
            for command in [#""$NFCTOOL" ndef decode --input '\#(folder)'"#,
                            #""$NFCTOOL" write --device sim:ntag215 --ndef '\#(folder)'"#,
                            #""$NFCTOOL" ndef encode --json-file '\#(folder)'"#] {
                let run = try await Self.shell(command)
                #expect(run.status == 1, "\(command): \(run.output)")
                #expect(run.output.contains("'\(folder)': is a directory"), "\(command): \(run.output)")
                #expect(!run.output.contains("NSCocoaErrorDomain"), "\(run.output)")
            }
            // /dev/null reads as empty: the empty message is the error, not permission.
            let empty = try await Self.shell(#""$NFCTOOL" ndef decode --input /dev/null"#)
            #expect(empty.status == 65, "\(empty.output)")
            #expect(!empty.output.lowercased().contains("permission"), "\(empty.output)")
            // A FIFO: what its writer sends is decoded.
            let fifo = directory.appendingPathComponent("in").path
            #expect(mkfifo(fifo, 0o600) == 0)
            let piped = try await Self.shell(#"printf D1010E55046578616D706C652E636F6D2F6F > '\#(fifo)' & "$NFCTOOL" ndef decode --input '\#(fifo)'; wait"#)
            #expect(piped.status == 0, "\(piped.output)")
            #expect(piped.output.contains("https://example.com/o"), "\(piped.output)")
        }
    }

    @Test("sim: file= naming a directory, and dir= naming a file, are usage errors (64)")
    func simulatorPathKinds() async throws {
        do {
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("plain").path
            try Data("x".utf8).write(to: URL(fileURLWithPath: file))
            let asFile = try await Self.shell(#""$NFCTOOL" read --device 'sim:ntag215?file=\#(directory.path)'"#)
            #expect(asFile.status == 64, "\(asFile.output)")
            #expect(asFile.output.contains("is a directory"), "\(asFile.output)")
            let asDirectory = try await Self.shell(#""$NFCTOOL" read --device 'sim:ntag215*2?dir=\#(file)'"#)
            #expect(asDirectory.status == 64, "\(asDirectory.output)")
            #expect(asDirectory.output.contains("is not a directory"), "\(asDirectory.output)")
        }
    }

    @Test("sim: file= with a one-character relative name creates the tag file in the working directory")
    func oneCharacterTagFileName() async throws {
        do {
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            for name in ["a", "b/c"] {
                let run = try await Self.shell(#""$NFCTOOL" read --device 'sim:ntag215?file=\#(name)'"#, in: directory)
                #expect(run.status == 0 || run.status == 4, "\(name): \(run.output)")
                #expect(run.status < 128, "\(name): killed by signal \(run.status - 128)")
                let saved = directory.appendingPathComponent(name).path
                #expect(FileManager.default.fileExists(atPath: saved), "\(name)")
                let model = try await runPython("import json, sys; print(json.load(open(sys.argv[1]))['model'])", [saved])
                #expect(model.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "ntag215")
            }
        }
    }
}
