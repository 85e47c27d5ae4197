import Foundation
import NFCTestSupport
import Testing

/// `pn532-emulator … &` in an interactive shell must not read the terminal (the shell would stop
/// it: "Stopped (tty input)"); `--control -` asks for it. The terminal is a real pty made by
/// Python's `pty` module, which also reads back what the emulator left unread.
@Suite("pn532-emulator reads control commands from a terminal only when asked", .timeLimit(.minutes(1)))
struct ControlInputTests {
    /// Starts the emulator with a pty as standard input, types `status` on it, and prints
    /// `answered <line>` when the emulator answers, or `unread <text>` when the line is still
    /// waiting in the terminal for someone else to read.
    static let probe = """
        import os, pty, select, subprocess, sys, time
        master, slave = pty.openpty()
        p = subprocess.Popen(sys.argv[1:], stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        first = p.stdout.readline()
        os.write(master, b"status\\n")
        deadline = time.time() + 5
        answer = None
        while time.time() < deadline:
            ready, _, _ = select.select([p.stdout], [], [], 0.05)
            if ready:
                answer = p.stdout.readline().decode().strip()
                break
            # Still in the terminal: nobody has read it (canonical mode hands out whole lines).
            r, _, _ = select.select([slave], [], [], 0)
            if r and time.time() > deadline - 4.5:
                answer = "unread " + os.read(slave, 100).decode().strip()
                break
        p.kill()  # SIGKILL: a test process may ignore SIGTERM, and its children inherit that
        p.wait()
        print(answer if answer and answer.startswith("unread") else "answered %s" % answer)
        """

    /// Runs the probe on `arguments` as a child whose end is awaited (no thread waits for it);
    /// its standard output, trimmed.
    static func run(_ arguments: [String]) async throws -> String {
        let emulator = try #require(Executables.emulator, "pn532-emulator is not built")
        let run = try await runTool("/usr/bin/env", ["python3", "-c", probe, emulator.path] + arguments,
                                    environment: ProcessInfo.processInfo.environment, timeout: 30, mergingStandardError: false)
        #expect(!run.timedOut, "the probe did not end: \(run.output)")
        return run.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("standard input a terminal: left alone, the typed line stays in the terminal")
    func terminalLeftAlone() async throws {
        #expect(try await Self.run(["--tag", "ntag215"]) == "unread status")
    }

    @Test("--control - reads the terminal: the control command is answered")
    func controlDashReadsTerminal() async throws {
        let answer = try await Self.run(["--tag", "ntag215", "--control", "-"])
        #expect(answer.hasPrefix("answered ok "), "\(answer)")
    }
}
