// pcsc-reader-emulator: a contactless PC/SC reader (generic Part 3 profile) holding a virtual
// tag, reached by pcscd through vsmartcard's vpcd driver (see docs/hardware.md).
import PCSCReaderEmulator
import VirtualTags
#if canImport(Glibc)
import Glibc
#endif

let usage = """
    Usage: pcsc-reader-emulator --tag sim:<model>[?file=<path>…] [--port <n>] [--host <ipv4>] [--wait <seconds>] [--log <file>] [--profile <name>] [--hand-out reset|never]
      --tag   the tag on the reader, as a simulator connection string (docs/simulator.md)
      --port  vpcd's port (its reader.conf DEVICENAME /dev/null:0x<port>); default 35963
      --host  where vpcd listens; default 127.0.0.1
      --wait  how long to retry connecting while vpcd is not up yet; default 10
      --log   append every APDU and response to this file
      --profile  the reader family: generic (default), transparent-session (PC/SC Part 3 FF C2,
              as an ACR1552U), acr122u (FF 00 00 00 direct transmit to a PN532)
      --hand-out  reset: a client that leaves the card with a reset (SCARD_RESET_CARD, as
              nfctool's deselect does) takes it away and the next of a sim:MODEL*N stack comes
              (an operator swapping stickers); never (default): only a `next` line does it
    Prints `connected <host>:<port>` once vpcd has the card, and exits 0 when vpcd closes.
    Standard input takes `remove` (the card leaves the reader: the connection to vpcd closes,
    `removed` is printed), `present` (it comes back: connected again) and `next` (the card
    leaves and the next of the stack comes; `removed`, then `connected`, or `empty` when the
    stack is done). A tag that leaves the field by a sim: fault plan (leave-after=K) leaves the
    reader the same way (`removed`); `present` brings it back.
    """

/// Writes `text` and a newline straight to a file descriptor (unbuffered: the parent waits for
/// the `connected` line).
func emit(_ text: String, to descriptor: Int32) {
    let bytes = Array((text + "\n").utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if written <= 0 { return }
        offset += written
    }
}

func fail(_ message: String, status: Int32) -> Never {
    emit("Error: \(message)", to: STDERR_FILENO)
    if status == 64 { emit(usage, to: STDERR_FILENO) }
    exit(status)
}

var tagSpec: String?
var port: UInt16 = 35963
var host = "127.0.0.1"
var waitSeconds = 10.0
var logPath: String?
var profile = EmulatedReaderProfile.generic
var handOutOnReset = false
var arguments = Array(CommandLine.arguments.dropFirst())
while !arguments.isEmpty {
    let flag = arguments.removeFirst()
    if flag == "--help" || flag == "-h" {
        emit(usage, to: STDOUT_FILENO)
        exit(0)
    }
    guard !arguments.isEmpty else { fail("\(flag) needs a value", status: 64) }
    let value = arguments.removeFirst()
    switch flag {
    case "--tag": tagSpec = value
    case "--port":
        guard let n = UInt16(value), n > 0 else { fail("--port takes a port number, not '\(value)'", status: 64) }
        port = n
    case "--host": host = value
    case "--wait":
        guard let s = Double(value), s >= 0 else { fail("--wait takes seconds, not '\(value)'", status: 64) }
        waitSeconds = s
    case "--log": logPath = value
    case "--profile":
        guard let p = EmulatedReaderProfile(rawValue: value) else {
            fail("--profile takes \(EmulatedReaderProfile.allCases.map(\.rawValue).joined(separator: ", ")), not '\(value)'", status: 64)
        }
        profile = p
    case "--hand-out":
        guard value == "reset" || value == "never" else { fail("--hand-out takes reset or never, not '\(value)'", status: 64) }
        handOutOnReset = value == "reset"
    default: fail("unknown option \(flag)", status: 64)
    }
}
guard let tagSpec else { fail("--tag is required", status: 64) }
signal(SIGPIPE, SIG_IGN)

let field: VirtualField
do {
    field = try SimulatorConfiguration(parsing: tagSpec).makeField()
} catch {
    fail(error.description, status: 1)
}
if field.currentTag == nil { field.presentNext() }
let reader = GenericPart3Reader(field: field, profile: profile)
var logFile: UnsafeMutablePointer<FILE>?
if let logPath {
    logFile = fopen(logPath, "a")
    if logFile == nil { fail("cannot write the log file '\(logPath)'", status: 1) }
}

let control = LineReader(descriptor: STDIN_FILENO)
var start = timespec.now
while true {
    var connection: VPCDConnection?
    while connection == nil {
        do {
            connection = try VPCDConnection(host: host, port: port)
        } catch {
            if timespec.now - start > waitSeconds { fail(error.description, status: 1) }
            usleep(100_000)
        }
    }
    guard let connection else { break }
    emit("connected \(host):\(port)", to: STDOUT_FILENO)
    let end = VPCDService.serve(connection, reader: reader, control: control, handOutOnReset: handOutOnReset) { line in
        if let logFile {
            fputs(line + "\n", logFile)
            fflush(logFile)
        }
    }
    switch end {
    case .closed:
        exit(0)
    case .tagLeft:
        // The tag left the field (fault plan): the card leaves the reader; `present` brings the
        // torn tag back.
        connection.close()
        emit("removed", to: STDOUT_FILENO)
        guard control.wait(for: "present") else { exit(0) }
        if let torn = reader.field.removedTags.last { reader.field.present(torn) }
        reader.reset()
    case .removeRequested:
        // The card leaves: vpcd sees the connection close. A `present` line brings it back.
        connection.close()
        reader.field.currentTag?.halt()
        emit("removed", to: STDOUT_FILENO)
        guard control.wait(for: "present") else { exit(0) }
        reader.reset()
    case .handOut, .nextRequested:
        // An operator takes the sticker away and lays the next one on the reader.
        connection.close()
        emit("removed", to: STDOUT_FILENO)
        guard reader.field.presentNext() != nil else {
            emit("empty", to: STDOUT_FILENO)
            // Nothing more to hand out: wait for the end (standard input closed or killed).
            _ = control.wait(for: "quit")
            exit(0)
        }
        reader.reset()
    }
    start = timespec.now
}
exit(0)

extension timespec {
    static var now: Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}
