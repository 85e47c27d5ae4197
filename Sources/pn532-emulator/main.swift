// pn532-emulator: a PN532 on a pseudo-terminal with virtual tags (see docs/emulator.md).
import CommandLineKit
import PN532Emulator
import VirtualTags
#if canImport(Glibc)
import Glibc
#endif

// Termination signals reach this program whatever its parent blocked (a test runner does).
unblockTerminationSignals()

/// Standard output and error, unbuffered (CommandLineKit's: the parent waits for the first line).
let io = StandardIO()

func fail(_ message: String, status: Int32) -> Never {
    io.printErrorLine("Error: \(message)")
    exit(status)
}

let options: EmulatorCommandLine
do {
    options = try EmulatorCommandLine.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    // Error, usage line and where to find help, as nfctool words a usage error (exit 64).
    io.printErrorLine(String(EmulatorCommandLine.errorText(error).dropLast()))
    exit(64)
}
if options.wantsHelp {
    io.printLine(EmulatorCommandLine.help)
    exit(0)
}
signal(SIGPIPE, SIG_IGN)

/// The `--link` path as a C string, for the signal handler (set once before the handler is
/// installed, read only by it).
nonisolated(unsafe) var linkToRemove: UnsafeMutablePointer<CChar>?

let terminal: PseudoTerminal
do {
    terminal = try PseudoTerminal()
    if let link = options.linkPath {
        try terminal.link(at: link)
        linkToRemove = strdup(link)
        // SIGTERM / SIGINT / SIGHUP: remove the link, then leave.
        for signalNumber in [SIGTERM, SIGINT, SIGHUP] {
            signal(signalNumber) { number in
                if let path = linkToRemove { unlink(path) }
                _exit(128 + number)
            }
        }
    }
} catch {
    fail(error.description, status: 1)
}
var trace: TraceLog?
if let path = options.tracePath {
    guard let log = TraceLog(path: path) else { fail("cannot write the trace file '\(path)'", status: 1) }
    trace = log
}
// Control commands come from standard input when it is not a terminal (a parent process's
// pipe) or when asked with `--control -`; a terminal is left alone otherwise, so that
// `pn532-emulator … &` in an interactive shell is not stopped for reading it ("Stopped (tty input)").
var control: Int32? = isatty(STDIN_FILENO) == 1 ? nil : STDIN_FILENO
if options.controlPath == "-" {
    control = STDIN_FILENO
} else if let path = options.controlPath {
    if access(path, F_OK) != 0 && mkfifo(path, 0o600) != 0 { fail("cannot make the FIFO '\(path)'", status: 1) }
    // Read and write, so the FIFO never reports end of file between two writers.
    let descriptor = open(path, O_RDWR)
    if descriptor < 0 { fail("cannot open the control FIFO '\(path)'", status: 1) }
    control = descriptor
}

let field: TagField
do {
    field = try options.makeField()
} catch {
    fail(error.description, status: 1)
}
if let player = field.tagInField as? TracePlayerTag {
    // A replayed trace that stops matching says where, on standard error and in the log.
    player.onDivergence = { [trace] message in
        io.printErrorLine("pn532-emulator: replay \(message)")
        trace?.log("#", "replay \(message)")
    }
}
let chip = PN532Chip(field: field, delayModel: options.delayModel)
if let procedure = options.externalReader {
    let reader = ExternalReader(procedure: procedure)
    var readerLog: TraceLog?
    if let path = options.readerLogPath {
        guard let log = TraceLog(path: path) else { fail("cannot write the reader log '\(path)'", status: 1) }
        readerLog = log
    }
    reader.onLog = { [trace] line in
        trace?.log("#", "external reader: \(line)")
        readerLog?.log("#", line)
    }
    chip.externalReader = reader
}
let host = PN532Host(chip: chip, terminal: terminal, trace: trace)
io.printLine(terminal.slavePath)
host.run(control: control) { line in
    io.printLine(line)
}
if let link = options.linkPath { unlink(link) }
