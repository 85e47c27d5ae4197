// pcsc-reader-emulator: a contactless PC/SC reader (generic Part 3 profile) holding a virtual
// tag, reached by pcscd through vsmartcard's vpcd driver (see docs/hardware.md).
import CommandLineKit
import NFCCore
import NFCTags
import PCSCReaderEmulator
import VirtualTags
#if canImport(Glibc)
import Glibc
#endif

// Termination signals reach this program whatever its parent blocked (a test runner does).
unblockTerminationSignals()

/// The command line, declared with CommandLineKit (nfctool's parser, help and usage errors).
enum Options {
    static let tag = TypedOption(
        .option("tag", valueName: "tag", help: "The tag on the reader, in the simulator's grammar (docs/simulator.md): a sim: string such as sim:ntag215?file=tag.json, or the same without 'sim:' (MODEL[:FILE])."),
        ValueType<SimulatorConfiguration> { text -> Result<SimulatorConfiguration, ValueTypeError> in
            do throws(NFCReaderDeviceError) {
                return .success(try SimulatorConfiguration(tagSpecification: text))
            } catch {
                return .failure(ValueTypeError(error.reason))
            }
        })
    static let replay = CommandOption.option(
        "replay", valueName: "file",
        help: """
            Play a reader trace (nfctool --trace FILE, docs/traces.md) instead of a --tag: the card \
            is the tag the trace's first poll found (its ATR and GET DATA built from the recorded \
            UID, SAK, ATS), whose frames (READ BINARY and UPDATE BINARY as READ and WRITE, APDUs) \
            get the recorded answers in order; once a command differs, it and every later APDU are \
            answered 6F00 and "replay diverged at exchange N: ..." goes to standard error and the \
            --log file. For traces recorded through a PC/SC reader.
            """)
    static let port = TypedOption(
        .option("port", valueName: "n", help: "vpcd's port (its reader.conf DEVICENAME /dev/null:0x<port>); default 35963."),
        ValueType(reason: "a port number") { UInt16($0).flatMap { $0 > 0 ? $0 : nil } })
    static let host = CommandOption.option("host", valueName: "ipv4", help: "Where vpcd listens; default 127.0.0.1.")
    static let wait = TypedOption(
        .option("wait", valueName: "seconds", help: "How long to retry connecting while vpcd is not up yet; default 10."),
        .number(in: 0...86_400, reason: "seconds"))
    static let log = CommandOption.option("log", valueName: "file", help: "Append every APDU and response to this file.")
    static let profile = TypedOption(
        .option("profile", valueName: "name", help: "The reader family: generic (default), transparent-session (PC/SC Part 3 FF C2, as an ACR1552U), acr122u (FF 00 00 00 direct transmit to a PN532)."),
        ValueType(reason: EmulatedReaderProfile.allCases.map(\.rawValue).joined(separator: ", ")) { EmulatedReaderProfile(rawValue: $0) })
    static let handOut = TypedOption(
        .option("hand-out", valueName: "when", help: "reset: a client that leaves the card with a reset (SCARD_RESET_CARD, as nfctool's deselect does) takes it away and the next of a sim:MODEL*N stack comes (an operator swapping stickers); never (default): only a `next` line does it."),
        ValueType(reason: "reset or never") { $0 == "reset" ? true : $0 == "never" ? false : nil })
    static let atsAnswer = TypedOption(
        .option("get-data-ats", valueName: "answer", help: "What GET DATA FF CA 01 00 00 answers for an ISO-DEP card: ats (default), unsupported (6A81, as Identiv uTrust), historical (the historical bytes only, as HID)."),
        ValueType(reason: "ats, unsupported or historical") { GenericPart3Reader.ATSAnswer(rawValue: $0) })
    static let cardName = TypedOption(
        .option("card-name", valueName: "hex", help: "The card name NN NN the ATR gives an ISO 14443-A storage card instead of the one its SAK maps to (e.g. 0030 Topaz, 0036 MIFARE Plus SL1 2K)."),
        ValueType(reason: "4 hex digits") { $0.count == 4 ? UInt16($0, radix: 16) : nil })
    static let feedbackLog = CommandOption.option(
        "feedback-log", valueName: "file",
        help: "Append a line per LED and buzzer command (acr122u's FF 00 40) carried out: 'feedback leds=green on=100ms buzzer=100ms'.")
    static let feedbackAnswer = TypedOption(
        .option("feedback-answer", valueName: "answer", help: "How acr122u answers its LED and buzzer command: success (default, 90 xx), fail (63 00), malformed (01 90 00)."),
        ValueType(reason: "success, fail or malformed") { GenericPart3Reader.FeedbackAnswer(rawValue: $0) })
    static let configuration = CommandConfiguration(
        name: "pcsc-reader-emulator",
        abstract: "A contactless PC/SC reader (generic Part 3 profile) holding a virtual tag, reached by pcscd through vsmartcard's vpcd driver (docs/hardware.md).",
        discussion: """
            Prints `connected <host>:<port>` once vpcd has the card, and exits 0 when vpcd \
            closes. Standard input takes `remove` (the card leaves the reader: the connection to \
            vpcd closes, `removed` is printed), `present` (it comes back: connected again; or, \
            after `remove`, `next`: the next of the stack is laid down instead) and \
            `next` (the card leaves and the next of the stack comes; `removed`, then \
            `connected`, or `empty` when the stack is done). A tag that leaves the field by a \
            sim: fault plan (leave-after=K) leaves the reader the same way (`removed`); \
            `present` brings it back.
            """,
        options: [tag.option, replay, port.option, host, wait.option, log, profile.option, handOut.option, atsAnswer.option, cardName.option, feedbackLog, feedbackAnswer.option])
}

/// Standard output and error, unbuffered (CommandLineKit's: the parent waits for the first line).
let io = StandardIO()

func fail(_ message: String, status: Int32) -> Never {
    io.printErrorLine("Error: \(message)")
    exit(status)
}

let formatter = HelpFormatter(tool: Options.configuration)
let tagSpec: SimulatorConfiguration?
let replayPath: String?
let port: UInt16
let host: String
let waitSeconds: Double
let logPath: String?
let profile: EmulatedReaderProfile
let handOutOnReset: Bool
let atsAnswer: GenericPart3Reader.ATSAnswer
let cardName: UInt16?
let feedbackLogPath: String?
let feedbackAnswer: GenericPart3Reader.FeedbackAnswer
do throws(CommandError) {
    guard case .run(let arguments) = try formatter.parser.parse(CommandLine.arguments.dropFirst()) else {
        io.printLine(String(formatter.helpText.dropLast()))
        exit(0)
    }
    tagSpec = try arguments.value(of: Options.tag)
    replayPath = arguments.value(of: Options.replay)
    switch (tagSpec, replayPath) {
    case (nil, nil): throw .usage("--tag (or --replay) is required")
    case (.some, .some): throw .usage("give --tag or --replay, not both")
    default: break
    }
    port = try arguments.value(of: Options.port) ?? 35963
    host = arguments.value(of: Options.host) ?? "127.0.0.1"
    waitSeconds = try arguments.value(of: Options.wait) ?? 10
    logPath = arguments.value(of: Options.log)
    profile = try arguments.value(of: Options.profile) ?? .generic
    handOutOnReset = try arguments.value(of: Options.handOut) ?? false
    atsAnswer = try arguments.value(of: Options.atsAnswer) ?? .ats
    cardName = try arguments.value(of: Options.cardName)
    feedbackLogPath = arguments.value(of: Options.feedbackLog)
    feedbackAnswer = try arguments.value(of: Options.feedbackAnswer) ?? .success
} catch {
    io.printErrorLine(String(formatter.errorText(error).dropLast()))
    exit(64)
}
signal(SIGPIPE, SIG_IGN)

let field: VirtualField
var player: TracePlayerTag?
do throws(NFCReaderDeviceError) {
    if let replayPath {
        // NFCKit's PC/SC reader sends a FAST_READ as READ BINARYs of 4 pages and ISO 15693
        // requests as READ BINARY / UPDATE BINARY of single blocks, whatever the profile.
        let tag = try TracePlayerTag.load(path: replayPath, carriesAsPCSC: true)
        player = tag
        field = SimulatorConfiguration.field([(tag: tag, file: nil)], faultPlan: .none)
        if tag.player.trace.header.profile == nil {
            // NFCKit's libnfc readers send a tag's own frames (GET_VERSION, FAST_READ); the
            // PC/SC reader sends what its profile carries: such a trace may part ways early.
            io.printErrorLine(
                "pcsc-reader-emulator: warning: the trace was recorded through \(TerminalSafeText.escaping(tag.player.trace.header.connection, newlines: .escape)), not a PC/SC reader: it may diverge at a command a PC/SC reader sends otherwise")
        }
    } else if let tagSpec {
        field = try tagSpec.makeField()
    } else {
        fail("--tag (or --replay) is required", status: 64)
    }
} catch {
    fail(error.description, status: 1)
}
if field.currentTag == nil { field.presentNext() }
let reader = GenericPart3Reader(field: field, profile: profile)
reader.atsAnswer = atsAnswer
reader.cardName = cardName
reader.feedbackAnswer = feedbackAnswer
if let feedbackLogPath {
    guard let feedbackFile = fopen(feedbackLogPath, "a") else { fail("cannot write the feedback log '\(feedbackLogPath)'", status: 1) }
    reader.onFeedback = { command in
        fputs("feedback leds=\(command.blinkingLEDs) on=\(Int(command.t1) * Int(command.repetitions) * 100)ms buzzer=\(command.buzzerMilliseconds)ms\n", feedbackFile)
        fflush(feedbackFile)
    }
}
var logFile: UnsafeMutablePointer<FILE>?
if let logPath {
    logFile = fopen(logPath, "a")
    if logFile == nil { fail("cannot write the log file '\(logPath)'", status: 1) }
}
// A replayed trace that stops matching says where, on standard error and in the log.
player?.onDivergence = { [logFile] message in
    io.printErrorLine("pcsc-reader-emulator: replay \(message)")
    if let logFile {
        fputs("# replay \(message)\n", logFile)
        fflush(logFile)
    }
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
    io.printLine("connected \(host):\(port)")
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
        io.printLine("removed")
        guard control.wait(for: "present") else { exit(0) }
        if let torn = reader.field.removedTags.last { reader.field.present(torn) }
        reader.reset()
    case .removeRequested:
        // The card leaves: vpcd sees the connection close. A `present` line brings it back, a
        // `next` line lays the next of the stack down instead (a card swapped for another).
        connection.close()
        reader.field.currentTag?.halt()
        io.printLine("removed")
        guard let line = control.wait(forAnyOf: ["present", "next"]) else { exit(0) }
        if line == "next", reader.field.presentNext() == nil {
            io.printLine("empty")
            _ = control.wait(for: "quit")
            exit(0)
        }
        reader.reset()
    case .handOut, .nextRequested:
        // An operator takes the sticker away and lays the next one on the reader.
        connection.close()
        io.printLine("removed")
        guard reader.field.presentNext() != nil else {
            io.printLine("empty")
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
