import CommandLineKit
import Dispatch
import Synchronization
import Foundation
import NDEF
import NFCCore
import NFCKit
import NFCTags
import Provisioning
import Originality

/// `nfctool batch`: provisions a run of tags, each with its own data from a template or a
/// manifest, verified, optionally locked or protected, and recorded in a SQLite ledger.
struct BatchCommand: ToolCommand {
    static let device = CommandOption.option(
        "device", short: "d", valueName: "conn",
        help: "A reader (libnfc connection string, 'default', pcsc, pcsc:NAME, pcsc:#N, sim:MODEL, or replay:FILE); give it several times for one worker per reader (default: $NFCTOOL_DEVICE, else libnfc's default device).", repeatable: true)
        .completing(deviceCompletion)
    static let idle = CommandOption.option(
        "timeout", short: "t", valueName: "s", help: "Stop when no new tag has come for this many seconds; a tag left on the reader is not new (default: wait until --count or Ctrl-C).")
    static let manifest = CommandOption.option(
        "manifest", valueName: "file", help: "Data per tag from a CSV (header row) or JSONL manifest: columns named after the record options (url, text, lang, mime, data, ...); rows used in order.")
    static let matchUID = CommandOption.flag("match-uid", help: "Give each tag the manifest row whose 'uid' column names it, instead of the next row.")
    static let ledger = CommandOption.option(
        "ledger", valueName: "file|uri",
        help: "The ledger recording every attempt: a SQLite file (default: nfctool-ledger.db) or a PostgreSQL server, postgresql://user@host[:port]/db (password from PGPASSWORD or ~/.pgpass, never the command line).")
    static let run = CommandOption.option(
        "run", valueName: "name", help: "Work the named run with other stations on the same ledger: manifest rows claimed from the ledger, counters drawn from it (see 'nfctool ledger load').")
    static let station = CommandOption.option(
        "station", valueName: "name", help: "This station's name in the run (default: the host name); each station of a run needs its own.")
    static let lease = CommandOption.option(
        "lease", valueName: "s",
        help: "How long a claimed row stays this station's without a renewal before it returns to the pool if the station dies or is cut off (default 60); renewed while a tag is worked.")
    static let voidErase = CommandOption.flag(
        "void-erase",
        help: "With --run: erase at once a tag recorded void (its row went to another station while this one was cut off) that is still on the reader, and record it as erased.")
    static let journal = CommandOption.option(
        "journal", valueName: "file", help: "Where tags written but not recorded wait while the ledger is unreachable (default: nfctool-journal-STATION.jsonl).")
    static let resume = CommandOption.option(
        "resume", valueName: "file", help: "Continue the run of this existing ledger: manifest rows and counters already used are skipped.")
    static let start = CommandOption.option("start", valueName: "n", help: "The first {n} of a new ledger (default 1); a ledger never hands out a value twice.")
    static let count = CommandOption.option("count", short: "n", valueName: "n", help: "Stop after n tags done.")
    static let maxFailures = CommandOption.option("max-failures", valueName: "n", help: "Stop after n failed tags.")
    static let maxConsecutiveFailures = CommandOption.option(
        "max-consecutive-failures", valueName: "n",
        help: "Stop after n tags in a row failed the same way: the message does not fit, the tag is read-only, not NDEF formatted or cannot do it (default 3; 0: never).")
    static let format = CommandOption.flag("format", help: "Format blank tags first (needs --yes: a Type 2 tag's capability container is one-time programmable).")
    static let lock = CommandOption.flag("lock", help: "Make each tag read-only for good after its verified write (needs --yes).")
    static let protect = CommandOption.flag("protect", help: "Protect each NTAG21x with the password of --password-file or NFCTOOL_PASSWORD after the write.")
    /// `--plan` (batch's own words; `--dry-run` is its alias, as for the other writing commands).
    static let plan = CommandOption.flag(
        "plan", help: "Print what the next tags would get (row or counter, message); touch no reader and no counter.",
        aliases: ["dry-run"])
    static let allowRewrite = CommandOption.flag("allow-rewrite", help: "Write a tag the ledger already has as done.")
    /// The environment variable that may hold the NTAG 424 DNA keys, in the keys file's form.
    static let ntag424KeysVariable = "NFCTOOL_NTAG424_KEYS"
    static let ntag424Keys = CommandOption.option(
        "ntag424-keys", valueName: "file",
        help: "NTAG 424 DNA mode (a --url with {sun:picc}/{sun:mac}): the master keys file (key0Master, sdmFileReadMaster, sdmMetaRead, optional systemIdentifier; else $\(ntag424KeysVariable)); each tag gets keys diversified for its UID (AN10922).")
    static let quiet = CommandOption.flag(
        "quiet", short: "q", help: "Show no progress: only the summary at the end, a reader lost and the shared ledger's trouble.")
    static let eventLog = CommandOption.option(
        "event-log", valueName: "file|-",
        help: "Write one JSON line per event (tag found, done, failed with its cause, take away, two tags, reader lost, ledger, progress, summary), each with its ISO 8601 time, to this file or FIFO ('-': standard output) for a GUI; see docs/batch.md.")
    static let feedback = CommandOption.flag(
        "feedback", help: "Show each tag's outcome on the reader where it has a buzzer and LEDs (ACR122U, ACR1252U): a short beep and green when done, a long beep and red when failed; other readers get a note.")
    static let requireGenuine = CommandOption.flag(
        "require-genuine", help: "Skip a tag whose originality signature is not valid under NXP's keys, recording it in the ledger as 'counterfeit'.")

    static let configuration = CommandConfiguration(
        name: "batch",
        abstract: "Provision a run of tags: own data per tag, verified, recorded in a ledger.",
        discussion: """
            Per tag: wait for it, identify it, refuse it when the ledger already has its UID, \
            write its message (checked first, read back after), optionally lock or protect it, \
            record it in the ledger (after the verification, in one transaction), tell the \
            operator to take it away, and wait until it has left before taking the next.

            Record option values may hold placeholders: {uid}, {uid:lower}, {n}, {n:05} (a \
            counter from the ledger, never handed out twice), {hmac:KEYFILE} (HMAC-SHA-256 of \
            the UID under the key in KEYFILE, at least 16 bytes). A --url may also hold an \
            NTAG213/215/216 mirror, {mirror:uid}, {mirror:counter} or \
            {mirror:uid}x{mirror:counter}, as in 'nfctool write'. A --url with {sun:picc} and \
            {sun:mac} makes an NTAG 424 DNA batch: each tag is set up as by 'nfctool ntag424 \
            setup' with keys diversified for its UID from the master keys of --ntag424-keys \
            (AN10922), its URL read back and verified; the ledger records the key fingerprints, \
            never a key; check taps with 'nfctool sun verify --keys MASTERFILE'.

            Progress goes to standard error: on a terminal, one status line updated in place \
            (done/total, tags per minute, elapsed time, ETA, failures by cause, what the reader \
            waits for), each failure on a line of its own above it, and a summary table at the \
            end; elsewhere (a file, a pipe), one line per event. A resumed or named run shows the \
            run's totals. The summary goes to standard output (--json for scripts); --quiet \
            shows nothing else; --event-log writes every event as a JSON line.

            Ctrl-C (SIGINT), SIGTERM or SIGHUP finishes and records the tags in progress, \
            prints the summary (stop: interrupted) and exits 130, 143 or 129: the run did not \
            end by itself. Exit 0 when the run ended by itself (--count, --timeout, the manifest \
            done, the counter {n} used up) and no tag failed; 1 when a tag failed, or the ledger \
            or the --event-log file failed (the run stops after the tags in progress); 8 when \
            none failed but --require-genuine refused a counterfeit chip (counted apart, as \
            "counterfeit").

            Examples:
              nfctool batch --url 'https://ex.io/t/{uid}?n={n:05}' --count 100
              nfctool batch --manifest stickers.csv --ledger run1.db --lock --yes
              nfctool batch --resume run1.db --manifest stickers.csv
              nfctool batch --url 'https://ex.io/t?e={sun:picc}&c={sun:mac}' --ntag424-keys masters.keys
              nfctool batch -d pn532_uart:/dev/ttyUSB0 -d pn532_uart:/dev/ttyUSB1 --url 'https://ex.io/{n}'
            """,
        options: [device, ReaderTraceOptions.file, ReaderTraceOptions.unredacted, idle, TagCommandSupport.json] + RecordOptions.all
            + [manifest, matchUID, ledger, run, station, lease, voidErase, journal, resume, start, count, maxFailures, maxConsecutiveFailures, format, lock, TagWriteSupport.yes, protect,
               TagWriteSupport.passwordFile, allowRewrite, requireGenuine, feedback, ntag424Keys, quiet, eventLog, plan]
    )

    let arguments: ParsedArguments
    let devices: [String]
    /// `--trace` and `--trace-unredacted`.
    let trace: ReaderTraceOptions
    let idleSeconds: Double?
    let printsJSON: Bool
    let manifestPath: String?
    let ledgerPath: String
    let resuming: Bool
    let startValue: Int
    let countValue: Int?
    let maxFailuresValue: Int?
    let maxConsecutiveFailuresValue: Int?
    let dryRun: Bool
    let runName: String?
    let stationName: String
    let leaseSeconds: Double
    let journalPath: String
    let quiet: Bool
    let eventLogPath: String?

    init(_ arguments: ParsedArguments) throws(CommandError) {
        self.arguments = arguments
        devices = arguments.values(of: Self.device)
        trace = try ReaderTraceOptions(arguments)
        if trace.path != nil && devices.count > 1 { throw .usage("--trace records one reader: give one --device") }
        idleSeconds = try arguments.value(of: Self.idle) { DecimalText.number($0).flatMap { $0 > 0 && $0 <= 86_400 ? $0 : nil } }
        printsJSON = arguments.contains(TagCommandSupport.json)
        manifestPath = arguments.value(of: Self.manifest)
        let resumePath = arguments.value(of: Self.resume)
        if resumePath != nil && arguments.value(of: Self.ledger) != nil { throw .usage("give --ledger or --resume, not both") }
        ledgerPath = resumePath ?? arguments.value(of: Self.ledger) ?? "nfctool-ledger.db"
        resuming = resumePath != nil
        startValue = try arguments.value(of: Self.start) { Int($0).flatMap { $0 >= 0 ? $0 : nil } } ?? 1
        if startValue > LedgerCounter.maximum {
            throw .usage("--start \(startValue): the largest counter a ledger holds is \(LedgerCounter.maximum)")
        }
        countValue = try arguments.value(of: Self.count) { Int($0).flatMap { $0 > 0 ? $0 : nil } }
        maxFailuresValue = try arguments.value(of: Self.maxFailures) { Int($0).flatMap { $0 > 0 ? $0 : nil } }
        if let countValue, startValue > LedgerCounter.maximum - (countValue - 1) {
            throw .usage("--count \(countValue) from --start \(startValue) would pass \(LedgerCounter.maximum), the largest counter a ledger holds")
        }
        let consecutive = try arguments.value(of: Self.maxConsecutiveFailures) { Int($0).flatMap { $0 >= 0 ? $0 : nil } } ?? 3
        maxConsecutiveFailuresValue = consecutive == 0 ? nil : consecutive
        dryRun = arguments.contains(Self.plan)
        let hasRecords = arguments.occurrences.contains { RecordOptions.starters.contains($0.option) }
        if hasRecords == (manifestPath != nil) {
            throw .usage("give the data either as record options (--url 'https://ex.io/{uid}', ...) or with --manifest, one of the two")
        }
        if arguments.contains(Self.matchUID) && manifestPath == nil { throw .usage("--match-uid needs --manifest") }
        runName = arguments.value(of: Self.run)
        stationName = arguments.value(of: Self.station) ?? ProcessInfo.processInfo.hostName
        leaseSeconds = try arguments.value(of: Self.lease) { DecimalText.number($0).flatMap { $0 >= 0.1 && $0 <= 86_400 ? $0 : nil } } ?? 60
        journalPath = arguments.value(of: Self.journal)
            ?? "nfctool-journal-\(String(stationName.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." ? $0 : "_" })).jsonl"
        if runName != nil {
            if arguments.contains(Self.matchUID) { throw .usage("--match-uid cannot be used with --run (rows are claimed from the run in order)") }
            if resuming { throw .usage("--run continues its run by itself: give --ledger, not --resume") }
            try LedgerCommand.checkRunName(runName)
        } else if arguments.contains(Self.voidErase) {
            throw .usage("--void-erase needs --run (void tags are those of a named run's stations)")
        }
        quiet = arguments.contains(Self.quiet)
        eventLogPath = arguments.value(of: Self.eventLog)
        if eventLogPath == "-" && printsJSON {
            throw .usage("--event-log - writes events to standard output, where --json writes the summary: give --event-log a file")
        }
        if arguments.contains(Self.lock) && !arguments.contains(TagWriteSupport.yes) && !dryRun {
            throw .usage("--lock makes every tag read-only for good; add --yes to confirm")
        }
        if arguments.contains(Self.format) && !arguments.contains(TagWriteSupport.yes) && !dryRun {
            throw .usage("--format writes each blank tag's capability container, which on Type 2 tags is one-time programmable (it cannot be undone); add --yes to confirm")
        }
    }

    func run(_ context: CommandContext) async throws(CommandError) {
        let connections = devices.isEmpty ? [TagCommandSupport.connection(nil, context.environment)] : devices
        // Every input is checked before a reader is opened.
        let source: BatchSource
        var templateText: String?
        let ntag424 = try ntag424Personalization(context)
        if let ntag424 {
            templateText = ntag424.template.template
            let message = ntag424.template.message
            source = .template(usesCounter: false, start: startValue, build: { _, _ in message })
        } else if let manifestPath {
            let bytes: [UInt8]
            do {
                bytes = try readFileBytes(manifestPath, what: "manifest", limit: InputLimits.manifest)
            } catch {
                throw error.exitCode == .dataError ? error : .usage(error.message)
            }
            let rows: [ManifestRow]
            do {
                rows = try Manifest.load(bytes, format: Manifest.format(forPath: manifestPath), matchByUID: arguments.contains(Self.matchUID))
            } catch {
                throw .dataError("manifest \(manifestPath): \(error)")
            }
            let load: @Sendable (String, NDEFRecordSpecification.Field) throws -> NDEFRecordSpecification.Value = { [context] path, field in
                try RecordOptions.load(path, for: field, context)
            }
            let networkKey = RecordOptions.defaultNetworkKey(context)
            var templates: [Int: MessageTemplate] = [:]
            for row in rows {
                do { templates[row.index] = try MessageTemplate(row: row) } catch {
                    throw .dataError("manifest \(manifestPath) line \(row.line): \(error.reason)")
                }
            }
            let build: @Sendable (ManifestRow, [UInt8]) throws -> NDEFMessage = { [templates] row, _ in
                let template = try templates[row.index] ?? MessageTemplate(row: row)
                do { return try template.message(uid: [], counter: nil, defaultNetworkKey: networkKey, load: load) } catch let error as NDEFSpecificationError {
                    throw ProvisioningInputError(template.describe(error))
                }
            }
            // Every row must build before the first tag is touched, and a row's mirror placeholder
            // must be found exactly once in its message.
            for row in rows {
                let message: NDEFMessage
                do { message = try build(row, []) } catch { throw .dataError("manifest \(manifestPath) line \(row.line): \(error)") }
                if let mirror = templates[row.index]?.mirror {
                    let encoded: [UInt8]
                    do { encoded = try message.encodedForTag() } catch { throw .dataError("manifest \(manifestPath) line \(row.line): \(error)") }
                    guard mirror.placeholderOffset(in: encoded) != nil else {
                        throw .dataError(
                            "manifest \(manifestPath) line \(row.line): the mirror's placeholder must occur once in the message; other text holds the same characters")
                    }
                }
            }
            let mirrors: @Sendable (ManifestRow) -> NTAGMirror? = { [templates] row in (templates[row.index] ?? (try? MessageTemplate(row: row)))?.mirror }
            source = .manifest(rows: rows, matchByUID: arguments.contains(Self.matchUID), build: build, mirror: mirrors)
        } else {
            let template = MessageTemplate(entries: try RecordOptions.entries(arguments.occurrences) { o throws(CommandError) in
                let value = o.option.name == MirrorSupport.urlOption ? try MirrorSupport.placeholderText(o.value ?? "") : o.value ?? ""
                do { return try ProvisioningTemplate(value) } catch { throw .usage("\(o.option.synopsis) '\(o.value ?? "")': \(error)") }
            })
            templateText = RecordOptions.occurrences(in: arguments.occurrences).compactMap(\.value).joined(separator: " ")
            let networkKey = RecordOptions.defaultNetworkKey(context)
            let build: @Sendable ([UInt8], Int?) throws -> NDEFMessage = { [context, arguments] uid, counter in
                do {
                    return try template.message(uid: uid, counter: counter, defaultNetworkKey: networkKey) { path, field in try RecordOptions.load(path, for: field, context) }
                } catch {
                    throw RecordOptions.commandError(error, arguments.occurrences)
                }
            }
            // The message must build for a sample UID before the first tag is touched.
            do {
                let sample = try build([0x04, 0, 0, 0, 0, 0, 0], startValue)
                if let mirror = try MirrorSupport.mirror(arguments.occurrences),
                   mirror.placeholderOffset(in: try sample.encodedForTag()) == nil {
                    throw CommandError.usage("the mirror's placeholder must occur once in the message; other text holds the same characters")
                }
            } catch let error as CommandError { throw error } catch { throw .usage("\(error)") }
            source = .template(usesCounter: template.usesCounter, start: startValue, build: build)
        }
        let password = try TagWriteSupport.password(arguments, context)
        if arguments.contains(Self.protect) && password == nil {
            throw .usage("--protect needs the password: --password-file FILE or NFCTOOL_PASSWORD")
        }
        if resuming && !PostgreSQLLocation.isPostgreSQL(ledgerPath) && !FileManager.default.fileExists(atPath: ledgerPath) {
            throw .usage("--resume \(ledgerPath): no such ledger")
        }
        if dryRun {
            // The plan reads the ledger, never writes it: a SQLite file that does not exist is
            // not made, one that does is opened read-only.
            // Opening and reading it block (a SQLite busy wait, PostgreSQL round trips): on the ledgers' thread.
            try await LedgerExecutor.shared.run { () throws(CommandError) in
                var ledger: (any ProvisioningLedger)?
                if PostgreSQLLocation.isPostgreSQL(ledgerPath) || FileManager.default.fileExists(atPath: ledgerPath) {
                    do { ledger = try openLedger(ledgerPath, readOnly: true) } catch { throw .ledger(error) }
                }
                _ = try firstCounter(ledger, source)
                try checkManifest(ledger, source)
                if let ntag424 {
                    try previewNTAG424(ntag424, context)
                } else {
                    try preview(source, ledger: ledger, context)
                }
            }
            return
        }

        var options = BatchOptions(count: countValue, maxFailures: maxFailuresValue)
        options.maxConsecutiveFailures = maxConsecutiveFailuresValue
        options.format = arguments.contains(Self.format)
        options.lock = arguments.contains(Self.lock)
        options.password = arguments.contains(Self.protect) ? password : nil
        options.allowRewrite = arguments.contains(Self.allowRewrite)
        if arguments.contains(Self.requireGenuine) { options.admission = GenuineAdmission.check }
        options.mirror = manifestPath == nil ? try MirrorSupport.mirror(arguments.occurrences) : nil
        options.ntag424 = ntag424
        options.idleTimeout = idleSeconds.map { .milliseconds(Int($0 * 1000)) }
        options.feedback = arguments.contains(Self.feedback)
        options.voidErase = arguments.contains(Self.voidErase)

        // A named run's journal must be writable before the first tag, not found out at the first outage.
        if runName != nil {
            do { try BatchJournal(path: journalPath).checkWritable() } catch { throw .usage("--journal: \(error.message)") }
        }
        var readers: [CommandReader] = []
        for connection in connections {
            do throws(CommandError) {
                readers.append(try await TagCommandSupport.openReader(connection, trace: trace, context))
            } catch {
                for reader in readers { _ = await reader.close() }
                throw error
            }
        }
        // The ledger file is created only once every reader is open: no reader, nothing done.
        // Opening it and starting the run block (a SQLite busy wait, PostgreSQL round trips): on the ledgers' thread.
        let ledger: any ProvisioningLedger
        let coordinator: BatchCoordinator
        let status: BatchStationStatus
        do {
            (ledger, coordinator, status) = try await LedgerExecutor.shared.run {
                [options, templateText] () throws -> (any ProvisioningLedger, BatchCoordinator, BatchStationStatus) in
                let ledger = try openLedger(ledgerPath)
                _ = try firstCounter(ledger, source)
                let status = try BatchStationStatus.starting(source: source, count: countValue, resuming: resuming, named: runName != nil, ledger: ledger)
                return (ledger, try startCoordinator(ledger, source: source, options: options, template: templateText, readers: connections, context), status)
            }
        } catch let error as CommandError {
            for reader in readers { _ = await reader.close() }
            throw error
        } catch {
            for reader in readers { _ = await reader.close() }
            throw .ledger(error)
        }
        let eventLog: BatchEventLog?
        do throws(CommandError) {
            eventLog = try eventLogPath.map { path throws(CommandError) in
                // A write that fails stops the run (the tags in progress finish); it exits 1.
                try BatchEventLog(path: path, io: context.io) { error in
                    Task { await coordinator.stop(.eventLogFailed, "the event log \(path) could not be written: \(error)") }
                }
            }
        } catch {
            for reader in readers { _ = await reader.close() }
            throw error
        }
        let mode: BatchProgress.Mode = quiet ? .quiet : context.io.standardErrorTerminalColumns == nil ? .lines : .live
        let started = ContinuousClock.now
        let progress = BatchProgress(status: status, total: countValue, mode: mode, io: context.io, events: eventLog, started: started)
        await coordinator.setEvents { progress.handle($0) }
        // A named run: the run's overall count every few seconds.
        let ticker = Task {
            var meter = RunProgressMeter()
            while !Task.isCancelled {
                if let name = runName, let state = await coordinator.runProgress() {
                    progress.handle(.ledgerStatus(.progress(meter.report(run: name, progress: state))))
                }
                try? await Task.sleep(for: .seconds(3))
            }
        }
        defer { ticker.cancel() }
        // On a terminal: the status line's clock and ETA move between events.
        let redraw = Task {
            while !Task.isCancelled, mode == .live {
                progress.tick()
                try? await Task.sleep(for: BatchProgress.redrawInterval)
            }
        }
        defer { redraw.cancel() }
        // Ctrl-C, SIGTERM, SIGHUP: the tags in progress finish and are recorded, no new one is
        // taken, the summary is printed; the status says which signal stopped the run.
        let stoppingSignal = StoppingSignal()
        let traps = StoppingSignal.signals.map { number in
            SignalTrap([number]) {
                stoppingSignal.note(number)
                Task { await coordinator.stop(.interrupted, number == SIGINT ? "interrupted" : "interrupted by \(StoppingSignal.name(number))") }
            }
        }
        defer { for trap in traps { trap.stop() } }
        await withTaskGroup(of: Void.self) { group in
            for reader in readers {
                group.addTask {
                    await BatchWorker(reader: reader.reader, coordinator: coordinator, events: { progress.handle($0) }).run()
                    // A worker that stops (reader gone, or done) stops the run only when it was the last.
                }
            }
        }
        ticker.cancel()
        redraw.cancel()
        var closing: [(divergence: CommandError?, traceFailure: CommandError?)] = []
        for reader in readers { closing.append(await reader.close()) }
        if let divergence = closing.lazy.compactMap(\.divergence).first { throw divergence }
        let runID = coordinator.runID
        try? await ledger.perform { () throws(LedgerError) in try ledger.finishRun(runID) }
        await coordinator.settleJournal()
        var summary = await coordinator.summary
        if summary.stop == nil { (summary.stop, summary.stopReason) = (.readersStopped, "every reader stopped") }
        let seconds = BatchReportText.seconds(ContinuousClock.now - started)
        progress.finish(summary, seconds: seconds, ledger: ledger.location)
        if printsJSON {
            let report = BatchReport(
                done: summary.done, failed: summary.failed, skipped: summary.skipped, counterfeit: summary.counterfeit, lastUID: summary.lastUID,
                stopReason: summary.stopReason, stop: summary.stop ?? .readersStopped, seconds: seconds, ledger: ledger.location,
                voidOpen: summary.voidOpen > 0 ? summary.voidOpen : nil, voidErased: summary.voidErased > 0 ? summary.voidErased : nil)
            context.io.write(try toolJSON(report))
        } else if eventLogPath == "-" {
            // Standard output carries the events: the summary is their last line.
        } else if mode == .lines || (mode == .quiet && context.io.standardErrorTerminalColumns == nil) {
            context.io.printLine(BatchReportText.summaryLine(summary, seconds: seconds, ledger: ledger.location))
        } else {
            for line in progress.status.summaryTable(summary, seconds: seconds, ledger: ledger.location) { context.io.printLine(line) }
        }
        if let traceFailure = closing.lazy.compactMap(\.traceFailure).first { throw traceFailure }
        if let eventLog, let failure = eventLog.failure {
            throw CommandError("--event-log \(eventLog.path): \(failure); the events after it were lost (the summary and the ledger hold the run)", exitCode: .failure)
        }
        let failure = BatchReportText.failure(of: summary)
        if case .ledgerFailed(let message)? = failure { throw CommandError(message, exitCode: .failure) }
        if summary.stop == .interrupted {
            // Stopped by a signal, not by itself: 128 + the signal's number, as a shell says it.
            let number = stoppingSignal.number ?? SIGINT
            let failed = summary.failed > 0 ? ", \(summary.failed) failed (see the ledger)" : ""
            throw CommandError(
                "\(StoppingSignal.name(number)) stopped the batch before it ended: \(summary.done) done\(failed)",
                exitCode: ExitCode(rawValue: 128 + number))
        }
        switch failure {
        case nil: break
        case .tagsFailed(let message)?, .ledgerFailed(let message)?: throw CommandError(message, exitCode: .failure)
        case .counterfeit(let message)?: throw CommandError(message, exitCode: .verifyMismatch)
        }
    }

    /// Starts this process's session on `ledger` and its coordinator; with `--run`, as a
    /// station of the named run: its rows held from an earlier life are released at once, the
    /// manifest is loaded once (the same file again changes nothing), the journal recorded.
    private func startCoordinator(
        _ ledger: any ProvisioningLedger, source: BatchSource, options: BatchOptions, template: String?, readers: [String], _ context: CommandContext
    ) throws -> BatchCoordinator {
        guard let runName else {
            try checkManifest(ledger, source)
            let run = try ledger.startRun(template: template, manifest: manifestPath, readers: readers)
            if case .manifest(let rows, _, _, _) = source { try ledger.setManifestDigest(ManifestDigest.of(rows), session: run) }
            return try BatchCoordinator(ledger: ledger, runID: run, source: source, options: options)
        }
        let session = try ledger.startRun(name: runName, station: stationName, template: template, manifest: manifestPath, readers: readers)
        if case .manifest(let rows, _, _, _) = source { try ledger.setManifestDigest(ManifestDigest.of(rows), session: session) }
        let released = try ledger.releaseClaims(run: runName, station: stationName)
        if released > 0 {
            context.io.printErrorLine("[\(stationName)] \(released) row\(released == 1 ? "" : "s") this station held in run '\(runName)' returned to the pool")
        }
        if case .manifest(let rows, _, _, _) = source, let manifestPath {
            switch try ledger.loadManifest(run: runName, rows: rows, source: manifestPath) {
            case .loaded(let count): context.io.printErrorLine("[\(stationName)] run '\(runName)': \(count) rows loaded from \(manifestPath)")
            case .alreadyLoaded: break
            }
        }
        let shared = SharedRun(name: runName, station: stationName, lease: .milliseconds(Int(leaseSeconds * 1000)), journal: BatchJournal(path: journalPath))
        return try BatchCoordinator(ledger: ledger, runID: session, source: source, options: options, shared: shared)
    }

    /// Refuses a manifest other than the one whose rows the ledger has done (outside named runs
    /// rows are matched by number): a data error naming both.
    private func checkManifest(_ ledger: (any ProvisioningLedger)?, _ source: BatchSource) throws(CommandError) {
        guard let ledger, runName == nil, case .manifest(let rows, _, _, _) = source, let manifestPath else { return }
        let conflict: String?
        do { conflict = try ManifestDigest.conflict(rows, path: manifestPath, in: ledger) } catch { throw .ledger(error) }
        if let conflict { throw .dataError(conflict) }
    }

    /// The first `{n}` this run would hand out (nil when the data uses no counter), checked
    /// before the first tag: a ledger whose counter is used up is a data error, and `--start`
    /// with `--count` must stay within the counter's range (``LedgerCounter/maximum``).
    private func firstCounter(_ ledger: (any ProvisioningLedger)?, _ source: BatchSource) throws(CommandError) -> Int? {
        guard case .template(true, let start, _) = source else { return nil }
        let next: Int?
        do { next = try ledger?.stats(run: runName).nextCounter } catch { throw .ledger(error) }
        if let ledger, let next, next > LedgerCounter.maximum {
            throw .dataError("\(ledger.location): \(LedgerCounter.usedUp(run: runName).message)")
        }
        let first = max(start, next ?? start)
        if let countValue, first > LedgerCounter.maximum - (countValue - 1) {
            throw .usage("--count \(countValue) from {n} = \(first) would pass \(LedgerCounter.maximum), the largest counter a ledger holds")
        }
        return first
    }

    /// NTAG 424 DNA mode when the one `--url` holds `{sun:…}`: the URL template and the master
    /// keys of `--ntag424-keys` (else the environment), checked before any reader is opened.
    private func ntag424Personalization(_ context: CommandContext) throws(CommandError) -> NTAG424BatchPersonalization? {
        let records = RecordOptions.occurrences(in: arguments.occurrences)
        let sun = records.first { $0.option.name == MirrorSupport.urlOption && SDMURLTemplate.holdsPlaceholder($0.value ?? "") }
        guard let sun else {
            if arguments.value(of: Self.ntag424Keys) != nil {
                throw .usage("--ntag424-keys needs a --url with {sun:picc} and {sun:mac}")
            }
            return nil
        }
        guard records.count == 1 else { throw .usage("an NTAG 424 DNA batch writes one --url (with {sun:…}) and no other record") }
        for option in [Self.lock, Self.protect, Self.format] where arguments.contains(option) {
            throw .usage("\(option.synopsis) does not apply to an NTAG 424 DNA batch (its keys protect it)")
        }
        let template: SDMURLTemplate
        do { template = try SDMURLTemplate(sun.value ?? "") } catch { throw .usage("--url: \(error)") }
        let file = try KeysFileSupport.load(path: arguments.value(of: Self.ntag424Keys), variable: Self.ntag424KeysVariable, command: "batch with {sun:…}", option: "--ntag424-keys", context: context)
        guard NTAG424DiversifiedKeys.isDiversifying(file) else {
            throw .dataError("an NTAG 424 DNA batch diversifies each tag's keys: the keys file must give master keys (key0Master = HEX, sdmFileReadMaster = HEX) and the shared sdmMetaRead; see docs/batch.md")
        }
        let keys: NTAG424DiversifiedKeys
        do { keys = try NTAG424DiversifiedKeys(file) } catch { throw .dataError(error.reason) }
        do {
            return try NTAG424BatchPersonalization(template: template, keys: keys)
        } catch let error as NTAG424Error where error.subject == .sdmData {
            throw .dataError(error.reason)
        } catch {
            throw .dataError("\(error)")
        }
    }

    /// `--plan` of an NTAG 424 DNA batch: the commands each tag gets, keys masked, and the key
    /// identifiers the ledger will hold.
    private func previewNTAG424(_ ntag424: NTAG424BatchPersonalization, _ context: CommandContext) throws(CommandError) {
        let steps: [NTAG424Setup.Step]
        do { steps = try ntag424.steps() } catch { throw .dataError("\(error)") }
        if printsJSON {
            context.io.write(try toolJSON(BatchPlanReport(
                tags: [], steps: steps.map { "\($0.command): \($0.detail)" }, ledgerSummary: ntag424.keySummary, alreadyDone: nil, sampleUID: nil)))
            return
        }
        context.io.printLine("Plan for each NTAG 424 DNA (nothing is sent), its keys diversified for its UID:")
        for (index, step) in steps.enumerated() { context.io.printLine("  \(index + 1). \(step.command): \(step.detail)") }
        context.io.printLine("  then: read the URL back as a phone does and verify it with the master keys")
        context.io.printLine("Ledger: \(ntag424.keySummary)")
    }

    /// `--plan` / `--dry-run`: what the next tags would get, without a reader and without using a counter.
    private func preview(_ source: BatchSource, ledger: (any ProvisioningLedger)?, _ context: CommandContext) throws(CommandError) {
        let shown = min(countValue ?? 5, 20)
        let sampleUID: [UInt8] = [0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01]
        var lines: [String] = []
        var tags: [BatchPlanReport.Tag] = []
        var alreadyDone: Int?
        switch source {
        case .template(_, _, let build):
            let first = try firstCounter(ledger, source)
            for i in 0..<shown {
                // The counter's last value ends the list (firstCounter keeps --count within it).
                if let first, first > LedgerCounter.maximum - i { break }
                let counter = first.map { $0 + i }
                let message = (try? build(sampleUID, counter)).map { "\(BatchCoordinator.describe($0))\(Self.sizeAndFit($0))" } ?? "(cannot build)"
                lines.append("tag \(i + 1)\(counter.map { " (n = \($0))" } ?? ""): \(message)")
                tags.append(.init(tag: i + 1, counter: counter, row: nil, line: nil, message: message))
            }
            lines.append("({uid} shown for the sample UID \(Hex.encode(sampleUID, uppercase: true)); nothing was written)")
        case .manifest(let rows, _, let build, _):
            let done = (try? ledger?.doneRows()) ?? []
            alreadyDone = done.count
            for (i, row) in rows.filter({ !done.contains($0.index) }).prefix(shown).enumerated() {
                let message = (try? build(row, sampleUID)).map { "\(BatchCoordinator.describe($0))\(Self.sizeAndFit($0))" } ?? "(cannot build)"
                lines.append("row \(row.index) (line \(row.line)): \(message)")
                tags.append(.init(tag: i + 1, counter: nil, row: row.index, line: row.line, message: message))
            }
            lines.append("(\(done.count) row\(done.count == 1 ? "" : "s") already done in the ledger; nothing was written)")
        }
        if printsJSON {
            context.io.write(try toolJSON(BatchPlanReport(
                tags: tags, steps: nil, ledgerSummary: nil, alreadyDone: alreadyDone, sampleUID: Hex.encode(sampleUID, uppercase: true))))
            return
        }
        for line in lines { context.io.printLine(line) }
    }

    /// ` (242 bytes; fits NTAG215, NTAG216)`: the message's encoded size and the Type 2 models
    /// whose factory NDEF area holds it, for `--plan`.
    static func sizeAndFit(_ message: NDEFMessage) -> String {
        guard let bytes = try? message.encodedForTag().count else { return "" }
        let fits = Type2ChipProfile.all.filter { $0.factoryNDEFCapacity >= bytes }.map(\.model)
        return " (\(bytes) bytes; " + (fits.isEmpty ? "fits no NTAG21x or Ultralight EV1" : "fits \(fits.joined(separator: ", "))") + ")"
    }
}

/// What `--plan --json` prints: the next tags' data (nothing was written), or an NTAG 424 DNA
/// batch's steps and ledger text.
struct BatchPlanReport: Encodable {
    /// One tag of the plan.
    struct Tag: Encodable {
        var tag: Int
        var counter: Int?
        var row: Int?
        var line: Int?
        var message: String
    }
    var tags: [Tag]
    var steps: [String]?
    var ledgerSummary: String?
    var alreadyDone: Int?
    var sampleUID: String?
}

/// The summary `--json` prints.
struct BatchReport: Encodable {
    var done: Int
    var failed: Int
    var skipped: Int
    /// Chips refused by `--require-genuine` as not genuine.
    var counterfeit: Int
    var lastUID: String?
    /// Why the batch stopped, in words.
    var stopReason: String
    /// Why the batch stopped, as a stable name (``BatchStop``): `countReached`, `interrupted`…
    var stop: BatchStop
    var seconds: Double
    var ledger: String
    /// Void tags written here not accounted for (left out when none): the run failed.
    var voidOpen: Int?
    /// Void tags this station erased (`--void-erase`; left out when none).
    var voidErased: Int?
}

/// `batch --require-genuine`: a tag is admitted only when its originality signature is valid
/// under one of NXP's keys (``Originality/OriginalityVerifier``).
enum GenuineAdmission {
    /// Nil for a genuine chip; a `counterfeit` refusal (its reason starting `counterfeit:`) for
    /// a signature its maker's key rejects; else (no signature, or no key for the chip: not
    /// shown genuine, never called counterfeit) a refusal recorded as `failed`.
    @Sendable static func check(_ tag: NFCTag) async -> BatchRefusal? {
        let verdict = await OriginalityVerifier().check(tag).verdict
        switch verdict {
        case .genuine: return nil
        case .notGenuine:
            return BatchRefusal(status: .counterfeit, reason: "counterfeit: not a genuine NXP chip (genuine: \(verdict.summary))")
        case .noSignature, .unverified:
            return BatchRefusal(status: .failed, reason: "not shown genuine (genuine: \(verdict.summary)); nothing was written")
        }
    }
}

/// Which signal stopped a batch (the first to come): ``signals`` are trapped, the tags in
/// progress finish, and the batch exits 128 + its number (``ExitCode/interrupted``,
/// ``ExitCode/terminated``, ``ExitCode/hangUp``).
final class StoppingSignal: Sendable {
    /// The signals a batch finishes its tags in progress on: SIGINT (Ctrl-C), SIGTERM, SIGHUP.
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]
    private let first = Mutex<Int32?>(nil)

    /// Notes `number`, unless a signal came before.
    func note(_ number: Int32) { first.withLock { if $0 == nil { $0 = number } } }

    /// The first signal that came (nil: none).
    var number: Int32? { first.withLock { $0 } }

    /// `SIGINT (Ctrl-C)`, `SIGTERM`, `SIGHUP`.
    static func name(_ number: Int32) -> String {
        switch number {
        case SIGINT: "SIGINT (Ctrl-C)"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        default: "signal \(number)"
        }
    }
}
