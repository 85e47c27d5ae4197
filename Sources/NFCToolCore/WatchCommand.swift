import CommandLineKit
import Foundation
import NDEF
import NFCCore
import NFCKit
import NFCTags
import Synchronization

/// `nfctool watch`: reports tags as they come and go, and runs a handler for each one.
struct WatchCommand: ToolCommand {
    static let exec = CommandOption.option(
        "exec", valueName: "cmd",
        help: "Run this shell command (/bin/sh -c) for every arriving tag, with the tag's JSON on standard input and NFC_UID, NFC_TYPE, NFC_MODEL, NFC_URL in its environment.")
    static let handlerTimeout = TypedOption(
        .option("handler-timeout", valueName: "s", help: "Kill a handler still running after this many seconds (default 30)."),
        .seconds(upTo: 86_400))
    static let events = CommandOption.option(
        "events", valueName: "list", help: "Which events to print: arrive, leave or arrive,leave (default arrive).")
        .completing(.words(["arrive", "leave", "arrive,leave"]))
    static let debounce = TypedOption(
        .option("debounce", valueName: "ms",
                help: "A tag missing for less than this has not left: no departure, and its return is no new arrival (default 0)."),
        .integer(in: 0...600_000))
    static let timeout = TypedOption(
        .option("timeout", short: "t", valueName: "s", help: "Stop after this many seconds (default: run until interrupted)."),
        .seconds(upTo: 31_536_000))
    static let json = CommandOption.flag("json", help: "Print one JSON object per line on standard output.")

    /// `nfctool watch | head -n 1`: the reader going away ends the watch, status 0, no message.
    static let endsQuietlyWhenOutputCloses = true

    static let configuration = CommandConfiguration(
        name: "watch",
        abstract: "Report tags as they arrive and leave; run a handler for each.",
        discussion: """
            Runs until interrupted (Ctrl-C, SIGTERM) or the --timeout. Each arriving tag is \
            identified and its NDEF message read, then released (a stack handed out on \
            deselect presents its next tag); a tag that stays is reported once. An unreadable \
            tag is reported with an error and the watch goes on. When the reader is lost (unplugged, \
            emulator gone) it is opened again, waiting up to 5 s between attempts; this is said \
            on standard error.

            Handlers run one at a time, in arrival order, while tags are still watched; their \
            output goes to standard error. A handler that fails or is killed is reported on \
            standard error and counted, never fatal. On interrupt the running handler may finish; \
            those still queued are dropped.

            Examples:
              nfctool watch --device pn532_uart:/dev/ttyUSB0 --json
              nfctool watch --events arrive,leave --debounce 300
              nfctool watch --exec 'logger "tag $NFC_UID: $NFC_URL"'
            """,
        options: TagCommandSupport.readerOptions + [json, events, debounce.option, exec, handlerTimeout.option, timeout.option]
    )

    let arguments: ParsedArguments
    let printsJSON: Bool
    let printsArrivals: Bool
    let printsDepartures: Bool
    let debounceMilliseconds: Int
    let command: String?
    let handlerSeconds: Double
    let runSeconds: Double?
    /// `--trace` and `--trace-unredacted`.
    let trace: ReaderTraceOptions

    init(_ arguments: ParsedArguments) throws(CommandError) {
        self.arguments = arguments
        trace = try ReaderTraceOptions(arguments)
        printsJSON = arguments.contains(Self.json)
        let list = (arguments.value(of: Self.events) ?? "arrive").split(separator: ",", omittingEmptySubsequences: false)
        for item in list where item != "arrive" && item != "leave" {
            throw .usage("--events takes arrive, leave or arrive,leave, not '\(item)'")
        }
        printsArrivals = list.contains("arrive")
        printsDepartures = list.contains("leave")
        debounceMilliseconds = try arguments.value(of: Self.debounce) ?? 0
        command = arguments.value(of: Self.exec)
        if let command, command.trimmingCharacters(in: .whitespaces).isEmpty { throw .usage("--exec needs a command") }
        handlerSeconds = try arguments.value(of: Self.handlerTimeout) ?? 30
        runSeconds = try arguments.value(of: Self.timeout)
    }

    func run(_ context: CommandContext) async throws(CommandError) {
        let connection = TagCommandSupport.connection(arguments, context.environment)
        let opened = try await TagCommandSupport.openReader(connection, trace: trace, context)
        let first = opened.reader
        let reader = await ReaderLabel(first)
        // The reader just opened serves first; a lost one is opened again from the string (and
        // recorded to the same trace).
        let pending = Mutex<(any NFCReader)?>(first)
        let watcher = TagWatcher(options: .init(debounce: .milliseconds(debounceMilliseconds))) {
            [trace = opened.trace] () async throws(NFCReaderDeviceError) -> any NFCReader in
            if let reader = pending.withLock({ $0.take() }) { return reader }
            let again = try await ReaderConnection.open(connection)
            guard let trace else { return again }
            return await RecordingReader(again, recordingTo: trace)
        }
        let handlers = command.map { HandlerQueue(command: $0, timeout: .milliseconds(Int(handlerSeconds * 1000)), environment: context.environment, io: context.io) }
        let io = context.io
        if io is StandardIO { Self.catchBrokenPipes() }
        let task = Task { () -> NFCReaderDeviceError? in
            do throws(NFCReaderDeviceError) {
                for try await event in watcher {
                    self.handle(event, reader: reader, io: io, handlers: handlers)
                    // Nobody reads any more (`| head`): stop, as an interrupt does.
                    if io.standardOutputFailure == .closed || (io is StandardIO && Self.isStandardOutputClosed()) {
                        return nil
                    }
                }
                return nil
            } catch {
                return error
            }
        }
        // SIGINT and SIGTERM stop the watch; so does the --timeout.
        let interrupt = SignalTrap([SIGINT, SIGTERM]) { task.cancel() }
        let timer = runSeconds.map { seconds in
            Task {
                try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
                if !Task.isCancelled { task.cancel() }
            }
        }
        // Cancelling the task that runs the command (an embedding program, a test) stops the
        // watch as an interrupt does.
        let failure = await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
        timer?.cancel()
        // A second Ctrl-C or SIGTERM while the last handler finishes ends nfctool at once.
        interrupt.stop()
        let failures = await handlers?.finish() ?? 0
        if failures > 0 {
            context.io.printErrorLine("nfctool watch: \(failures) handler\(failures == 1 ? "" : "s") failed")
        }
        // The watcher has closed the readers; the trace ends and a replay is checked here.
        let (divergence, traceFailure) = await opened.close()
        if let divergence { throw divergence }
        if let traceFailure { throw traceFailure }
        if let failure {
            throw .failure("the watch on \(connection) ended: \(failure)")
        }
        // A closed standard output ended the watch as an interrupt does: status 0, nothing
        // printed (CommandLineTool lets the closed output pass for this command).
    }

    /// While the watch runs, SIGPIPE does nothing: a write to a pipe nobody reads fails with
    /// EPIPE and the watch ends as on SIGINT, the same whether the shell left SIGPIPE at its
    /// default or ignored it. A handler (not SIG_IGN) so that handlers started by --exec get
    /// the default action back when they exec.
    static func catchBrokenPipes() {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        sigaction(SIGPIPE, &action, nil)
    }

    /// Whether standard output is a pipe whose reading end was closed.
    static func isStandardOutputClosed() -> Bool {
        var descriptor = pollfd(fd: STDOUT_FILENO, events: Int16(POLLOUT), revents: 0)
        return poll(&descriptor, 1, 0) > 0 && descriptor.revents & Int16(POLLERR) != 0
    }

    /// Prints one event line: JSON or text.
    private func print(_ report: WatchReport, io: any ToolIO) {
        guard printsJSON else { return io.write(report.line) }
        do {
            io.write(try toolJSON(report, pretty: false))
        } catch {
            io.printErrorLine("nfctool watch: \(error.message)")
        }
    }

    /// Prints `event` and queues its handler.
    private func handle(_ event: TagWatchEvent, reader: ReaderLabel, io: any ToolIO, handlers: HandlerQueue?) {
        switch event {
        case .arrived(let arrival):
            var report = WatchReport(arrival)
            report.time = WatchReport.timestamp(Date())
            report.reader = reader.connection
            report.readerName = reader.name
            if printsArrivals { print(report, io: io) }
            handlers?.enqueue(report)
        case .departed(let departure):
            var report = WatchReport(departure)
            report.time = WatchReport.timestamp(Date())
            report.reader = reader.connection
            report.readerName = reader.name
            if printsDepartures { print(report, io: io) }
        case .readerLost(let error):
            io.printErrorLine("nfctool watch: reader lost (\(error)); opening it again")
        case .readerReconnected(let connection):
            io.printErrorLine("nfctool watch: reader \(connection) is back")
        }
    }
}

/// One event as `watch` prints it and hands it to handlers.
struct WatchReport: Encodable, Sendable {
    var event: String
    /// When nfctool saw the event, ISO 8601 in UTC with milliseconds: `2026-12-02T17:40:00.123Z`.
    var time: String?
    var uid: String
    var type: String
    var model: String
    var technology: String?
    var records: [NDEFPayload]?
    var error: String?
    var errorCode: String?
    var seconds: Double?
    /// The connection string of the reader the tag was on.
    var reader: String?
    /// The reader's name, where it has one.
    var readerName: String?

    init(_ arrival: TagArrival) {
        event = "arrived"
        uid = Hex.encode(arrival.identifier, uppercase: true)
        type = arrival.identity.platform.rawValue
        model = arrival.identity.model
        technology = arrival.technology.rawValue
        switch arrival.message {
        case .success(let message): records = message.records
        case .failure(let failure):
            error = failure.description
            errorCode = failure.code.rawValue
        }
    }

    init(_ departure: TagDeparture) {
        event = "left"
        uid = Hex.encode(departure.identifier, uppercase: true)
        type = departure.identity.platform.rawValue
        model = departure.identity.model
        let parts = departure.duration.components
        seconds = ((Double(parts.seconds) + Double(parts.attoseconds) / 1e18) * 1000).rounded() / 1000
    }

    /// The first URI on the tag: of a URI record or a smart poster.
    var firstURL: String? {
        for record in records ?? [] {
            switch try? record.content() {
            case .uri(let uri): return uri
            case .smartPoster(let poster): return poster.uri
            default: continue
            }
        }
        return nil
    }

    /// One line for people, at most 80 columns.
    var line: String {
        let text: String
        if event == "left" {
            text = "left    \(uid) \(model) after \(String(format: "%.1f", seconds ?? 0)) s"
        } else {
            let what: String
            if let error {
                what = "unreadable: \(error)"
            } else if let records, !records.allSatisfy({ $0.typeNameFormat == .empty }) {
                what = firstURL ?? "\(records.count) record\(records.count == 1 ? "" : "s")"
            } else {
                what = "empty"
            }
            text = "arrived \(uid) \(model) (\(type)): \(TerminalSafeText.escaping(what, newlines: .escape))"
        }
        return (text.count > HelpFormatter.screenWidth ? String(text.prefix(HelpFormatter.screenWidth - 1)) + "…" : text) + "\n"
    }

    private enum CodingKeys: String, CodingKey {
        case event, time, uid, type, model, technology, records, error, errorCode, seconds, reader, readerName
    }

    /// `date` as the events' `time`: ISO 8601, UTC, milliseconds (`2026-12-02T17:40:00.123Z`).
    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}

/// Runs `--exec` handlers one at a time, in order, in a task of its own so that watching goes on.
final class HandlerQueue: Sendable {
    private let continuation: AsyncStream<WatchReport>.Continuation
    private let task: Task<Int, Never>
    private let stopping = StopFlag()

    /// Set once the watch stops: queued handlers are dropped.
    final class StopFlag: Sendable {
        private let flag = Atomic<Bool>(false)
        var isSet: Bool { flag.load(ordering: .relaxed) }
        func set() { flag.store(true, ordering: .relaxed) }
    }

    init(command: String, timeout: Duration, environment: [String: String], io: any ToolIO) {
        let (stream, continuation) = AsyncStream.makeStream(of: WatchReport.self)
        self.continuation = continuation
        let stopping = self.stopping
        task = Task {
            var failures = 0
            for await report in stream where !stopping.isSet {
                if let problem = await Self.run(command, report: report, timeout: timeout, environment: environment) {
                    failures += 1
                    io.printErrorLine("nfctool watch: handler for \(report.uid) \(problem)")
                }
            }
            return failures
        }
    }

    /// Queues the handler for an arrival.
    func enqueue(_ report: WatchReport) { continuation.yield(report) }

    /// Drops the queued handlers, waits for the running one; the number of failures.
    func finish() async -> Int {
        stopping.set()
        continuation.finish()
        return await task.value
    }

    /// Runs one handler; what went wrong, or nil.
    private static func run(_ command: String, report: WatchReport, timeout: Duration, environment: [String: String]) async -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        var variables = environment
        variables["NFC_UID"] = report.uid
        variables["NFC_TYPE"] = report.type
        variables["NFC_MODEL"] = report.model
        variables["NFC_URL"] = report.firstURL ?? ""
        process.environment = variables
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.standardError
        process.standardError = FileHandle.standardError
        let (ended, endedContinuation) = AsyncStream.makeStream(of: Void.self)
        process.terminationHandler = { _ in
            endedContinuation.yield()
            endedContinuation.finish()
        }
        do {
            try process.run()
        } catch {
            return "could not start: \(error.localizedDescription)"
        }
        let json: Data
        do {
            json = Data(try toolJSON(report, pretty: false).utf8)
        } catch {
            return error.message
        }
        // Written from a thread of its own: a handler that reads nothing must not block the watch.
        let writer = input.fileHandleForWriting
        Thread.detachNewThread {
            // A handler that exits without reading makes the write fail (EPIPE) rather than
            // send SIGPIPE to nfctool: the signal is blocked in this thread only.
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
            try? writer.write(contentsOf: json)
            try? writer.close()
        }
        let pid = process.processIdentifier
        let finished = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await _ in ended { return true }
                return true
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        if !finished {
            // The shell and what it started: its process group when it has one of its own.
            if getpgid(pid) == pid { kill(-pid, SIGKILL) }
            kill(pid, SIGKILL)
            for await _ in ended { break }
            return "was killed after \(ScanCommand.format(Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18)) s"
        }
        if process.terminationReason == .uncaughtSignal {
            return "was killed by signal \(process.terminationStatus)"
        }
        if process.terminationStatus != 0 {
            return "failed with exit status \(process.terminationStatus)"
        }
        return nil
    }
}
