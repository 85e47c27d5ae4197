import CommandLineKit
import Foundation
import NFCCore
import Provisioning

/// `nfctool ledger`: reads a batch ledger, or loads a run's manifest into it.
struct LedgerCommand: CommandGroup {
    static let configuration = CommandConfiguration(
        name: "ledger",
        abstract: "Export or summarise a batch ledger.",
        discussion: "The ledger is the SQLite file or PostgreSQL database 'nfctool batch' records every attempt in. See docs/batch.md.",
        subcommands: [
            LedgerExportCommand.self, LedgerLoadCommand.self, LedgerReportCommand.self, LedgerResolveCommand.self, LedgerRunsCommand.self,
            LedgerStatsCommand.self,
        ]
    )

    /// The ledger argument export and stats take (or --ledger).
    static let file = CommandArgument("ledger", help: "The ledger: a SQLite file or postgresql://user@host[:port]/db.", isOptional: true, completion: .file)
    /// `--ledger`, the same as the argument.
    static let ledgerOption = CommandOption.option(
        "ledger", valueName: "file|uri", help: "The ledger: a SQLite file or postgresql://user@host[:port]/db (password from PGPASSWORD or ~/.pgpass).")
    /// `--run NAME`: one named run only.
    static let run = CommandOption.option("run", valueName: "name", help: "Only the named run (batch --run), with its rows and stations.")

    /// Refuses a run name that is empty or only blanks (`--run ''`, `--run ' '`): `batch --run`
    /// and `ledger load --run` alike.
    static func checkRunName(_ name: String?) throws(CommandError) {
        if let name, name.allSatisfy(\.isWhitespace) { throw .usage("--run needs a name (not empty or blank)") }
    }

    /// Opens an existing ledger (read-only unless `readOnly` is false) and runs `body` with it,
    /// both on the ledgers' thread (``LedgerExecutor``), never on the cooperative pool.
    static func reading<T: Sendable>(
        _ arguments: ParsedArguments, readOnly: Bool = true,
        _ body: @escaping @Sendable (any ProvisioningLedger) throws(CommandError) -> T
    ) async throws(CommandError) -> T {
        try await LedgerExecutor.shared.run { () throws(CommandError) -> T in try body(try open(arguments, readOnly: readOnly)) }
    }

    /// Refuses `--run NAME` when the ledger holds no run of that name (exit 64, naming the runs
    /// it has): a mistyped name must not read as an empty run.
    static func requireRun(_ name: String?, in ledger: any ProvisioningLedger) throws(CommandError) {
        guard let name else { return }
        do { try ledger.requireRun(name) } catch { throw CommandError(error.message, exitCode: .usage, code: "noSuchRun") }
    }

    /// Opens an existing ledger (a missing file is a usage error, not a new ledger), read-only
    /// unless `readOnly` is false.
    static func open(_ arguments: ParsedArguments, readOnly: Bool = true) throws(CommandError) -> any ProvisioningLedger {
        let positional = arguments.value(of: file), option = arguments.value(of: ledgerOption)
        if positional != nil && option != nil { throw .usage("give the ledger once: as the argument or with --ledger") }
        guard let location = positional ?? option else { throw .usage("which ledger? Give a file or postgresql://… (or --ledger)") }
        if !PostgreSQLLocation.isPostgreSQL(location) {
            guard FileManager.default.fileExists(atPath: location) else { throw .usage("no such ledger: '\(location)'") }
        }
        do { return try openLedger(location, readOnly: readOnly) } catch { throw .ledger(error) }
    }
}

/// `nfctool ledger load`: loads a manifest into a named run, once.
struct LedgerLoadCommand: ToolCommand {
    static let manifestFile = CommandArgument("manifest", help: "The CSV or JSONL manifest (as for batch --manifest).", completion: .file)
    static let configuration = CommandConfiguration(
        name: "load",
        abstract: "Load a manifest's rows into a named run, for the stations of 'batch --run'.",
        discussion: """
            Loading is idempotent: the same manifest again changes nothing ("already loaded"); \
            a different manifest under a run name that has rows is refused (exit 1): use a new \
            run name. Stations started with 'batch --run NAME --manifest FILE' load it \
            themselves the same way.

            Examples:
              nfctool ledger load --ledger postgresql://line@db/prov --run w26 w26.csv
              nfctool ledger load --ledger run.db --run labels labels.jsonl
            """,
        options: [LedgerCommand.ledgerOption, LedgerCommand.run],
        arguments: [manifestFile]
    )

    let arguments: ParsedArguments
    init(_ arguments: ParsedArguments) throws(CommandError) {
        guard arguments.value(of: LedgerCommand.run) != nil else { throw .usage("ledger load needs --run NAME") }
        try LedgerCommand.checkRunName(arguments.value(of: LedgerCommand.run))
        guard arguments.value(of: LedgerCommand.ledgerOption) != nil else { throw .usage("ledger load needs --ledger FILE|URI") }
        self.arguments = arguments
    }

    func run(_ context: CommandContext) async throws(CommandError) {
        let path = arguments.value(of: Self.manifestFile) ?? ""
        let run = arguments.value(of: LedgerCommand.run) ?? ""
        let bytes: [UInt8]
        do { bytes = try readFileBytes(path, what: "manifest", limit: InputLimits.manifest) } catch { throw error.exitCode == .dataError ? error : .usage(error.message) }
        let rows: [ManifestRow]
        do { rows = try Manifest.load(bytes, format: Manifest.format(forPath: path)) } catch { throw .dataError("manifest \(path): \(error)") }
        // Every row is checked as batch checks it (columns are record fields) before anything is loaded.
        for row in rows {
            do { _ = try MessageTemplate(row: row) } catch { throw .dataError("manifest \(path) line \(row.line): \(error.reason)") }
        }
        let location = arguments.value(of: LedgerCommand.ledgerOption) ?? ""
        // Opening and loading block (a SQLite busy wait, PostgreSQL round trips): on the ledgers' thread.
        let (outcome, loadedInto) = try await LedgerExecutor.shared.run { () throws(CommandError) -> (ManifestLoad, String) in
            let ledger: any ProvisioningLedger
            do { ledger = try openLedger(location) } catch { throw .ledger(error) }
            do { return (try ledger.loadManifest(run: run, rows: rows, source: path), ledger.location) } catch { throw .ledger(error) }
        }
        switch outcome {
        case .loaded(let count): context.io.printLine("run '\(run)': \(count) rows loaded from \(path) into \(loadedInto)")
        case .alreadyLoaded(let count): context.io.printLine("run '\(run)': already loaded (the same \(count) rows); nothing changed")
        }
    }
}

/// `nfctool ledger export`: every attempt as CSV or JSON lines.
struct LedgerExportCommand: ToolCommand {
    static let csv = CommandOption.flag("csv", help: "CSV with a header row (the default).")
    static let jsonl = CommandOption.flag("jsonl", help: "One JSON object per attempt.")
    static let configuration = CommandConfiguration(
        name: "export",
        abstract: "Print every attempt of a ledger as CSV or JSON lines.",
        discussion: """
            Columns: id, run, uid, model, row, counter, summary, bytes, verified, locked, \
            protected, error, started, finished, reader, status (done, failed, \
            counterfeit: refused by batch --require-genuine, or void: written and verified \
            while its row or counter went to another station, see 'ledger resolve'), cause \
            (why it was not done: rf-write, verify-mismatch, capacity, …; empty for a done \
            attempt and for attempts from before the ledger kept causes), and with --run: \
            station, superseded_station and superseded_uid (a void tag's: who holds its row) \
            and resolution (a void tag's: discarded or erased, empty while unaccounted for). \
            JSON lines have the same fields.

            Examples:
              nfctool ledger export run1.db > run1.csv
              nfctool ledger export --jsonl run1.db | jq .uid
              nfctool ledger export --ledger postgresql://line@db/prov --run w26 > w26.csv
            """,
        options: [csv, jsonl, LedgerCommand.ledgerOption, LedgerCommand.run],
        arguments: [LedgerCommand.file]
    )

    let arguments: ParsedArguments
    init(_ arguments: ParsedArguments) throws(CommandError) {
        if arguments.contains(Self.csv) && arguments.contains(Self.jsonl) { throw .usage("--csv and --jsonl cannot be used together") }
        self.arguments = arguments
    }

    func run(_ context: CommandContext) async throws(CommandError) {
        let run = arguments.value(of: LedgerCommand.run)
        let jsonl = arguments.contains(Self.jsonl)
        let text = try await LedgerCommand.reading(arguments) { ledger throws(CommandError) -> String in
            try LedgerCommand.requireRun(run, in: ledger)
            do { return jsonl ? try ledger.exportJSONL(run: run) : try ledger.exportCSV(run: run) } catch { throw .ledger(error) }
        }
        if jsonl {
            context.io.write(TerminalSafeText.escapingInJSON(text))
        } else if context.io.isStandardOutputTerminal {
            context.io.write(text)  // on a screen: terminal-safe
        } else {
            // Into a file or a pipe: the exact values (a right-to-left mark in a name stays one).
            context.io.write(Array(text.utf8), to: .standardOutput)
        }
    }
}

/// `nfctool ledger stats`: totals of a ledger.
struct LedgerStatsCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        name: "stats",
        abstract: "Show a ledger's totals: tags done and failed, failures by cause, span and rate, per reader, model and station.",
        discussion: """
            Totals (runs, attempts, tags done, failed, counterfeit, locked, protected, next \
            counter), then the time span (first start to last finish), the rate (tags done \
            per minute over the span), the failures by cause (rf-write, rf-read, \
            verify-mismatch, capacity, locked, password, tag-lost, counterfeit, …; \
            'unrecorded' for attempts from before the ledger kept causes; see docs/batch.md) \
            and the attempts, tags done, failed and counterfeit per reader, chip model and \
            station. --json: the same, the figures under "analysis". With --run: only that \
            run, with its rows (done, held by stations) and, per station, tags done, failed \
            and tags/s.

            Examples:
              nfctool ledger stats run1.db
              nfctool ledger stats --json run1.db
              nfctool ledger stats --ledger postgresql://line@db/prov --run w26
            """,
        options: [TagCommandSupport.json, LedgerCommand.ledgerOption, LedgerCommand.run],
        arguments: [LedgerCommand.file]
    )

    let arguments: ParsedArguments
    init(_ arguments: ParsedArguments) throws(CommandError) { self.arguments = arguments }

    func run(_ context: CommandContext) async throws(CommandError) {
        let run = arguments.value(of: LedgerCommand.run)
        let stats = try await LedgerCommand.reading(arguments) { ledger throws(CommandError) -> LedgerStats in
            try LedgerCommand.requireRun(run, in: ledger)
            do { return try ledger.stats(run: run, analysed: true) } catch { throw .ledger(error) }
        }
        if arguments.contains(TagCommandSupport.json) {
            context.io.write(try toolJSON(stats))
        } else {
            context.io.printLine("runs:         \(stats.runs)")
            context.io.printLine("attempts:     \(stats.attempts)")
            context.io.printLine("tags done:    \(stats.done)")
            context.io.printLine("failed:       \(stats.failed)")
            context.io.printLine("counterfeit:  \(stats.counterfeit)")
            if stats.void > 0 {
                context.io.printLine(
                    "void:         \(stats.void)"
                        + (stats.voidOpen > 0 ? " (\(stats.voidOpen) not accounted for: discard or erase each, then 'nfctool ledger resolve')" : " (all accounted for)"))
            }
            context.io.printLine("locked:       \(stats.locked)")
            if let analysis = stats.analysis { context.io.printLine("protected:    \(analysis.protected)") }
            context.io.printLine("next counter: \(stats.nextCounter.map(String.init) ?? "none yet")")
            if let analysis = stats.analysis {
                for line in RunAnalysisText.lines(analysis) { context.io.printLine(line) }
            }
            if let run = stats.run, let progress = stats.progress {
                context.io.printLine("run:          \(TerminalSafeText.escaping(run, newlines: .escape))")
                if progress.rows > 0 {
                    context.io.printLine("rows:         \(progress.rowsDone)/\(progress.rows) done, \(progress.rowsHeld) held by stations")
                }
                if progress.voidOpen > 0 {
                    context.io.printLine("complete:     no: \(progress.voidOpen) void tag\(progress.voidOpen == 1 ? "" : "s") not accounted for ('nfctool ledger export --run \(TerminalSafeText.escaping(run, newlines: .escape))': status void)")
                }
                for station in progress.stations {
                    let rate = station.tagsPerSecond.map { String(format: "%.1f tags/s", $0) } ?? "-"
                    context.io.printLine("station \(TerminalSafeText.escaping(station.station, newlines: .escape)): \(station.done) done, \(station.failed) failed, \(rate)")
                }
            }
        }
    }
}

/// `nfctool ledger runs`: the named runs of a ledger with their totals.
struct LedgerRunsCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        name: "runs",
        abstract: "List the named runs of a ledger (batch --run, ledger load --run) with their totals.",
        discussion: """
            One line per run: its name, sessions (batch processes) started, attempts, tags done, \
            failed and counterfeit, and void tags when it has any (with those not yet accounted \
            for by 'ledger resolve'). A ledger without named runs prints nothing (--json: []).

            Examples:
              nfctool ledger runs run1.db
              nfctool ledger runs --json --ledger postgresql://line@db/prov
            """,
        options: [TagCommandSupport.json, LedgerCommand.ledgerOption],
        arguments: [LedgerCommand.file]
    )

    let arguments: ParsedArguments
    init(_ arguments: ParsedArguments) throws(CommandError) { self.arguments = arguments }

    func run(_ context: CommandContext) async throws(CommandError) {
        let runs = try await LedgerCommand.reading(arguments) { ledger throws(CommandError) -> [LedgerStats] in
            do { return try ledger.runNames().map { name throws(LedgerError) in try ledger.stats(run: name) } } catch { throw .ledger(error) }
        }
        if arguments.contains(TagCommandSupport.json) {
            context.io.write(try toolJSON(runs))
            return
        }
        for run in runs {
            let name = TerminalSafeText.escaping(run.run ?? "", newlines: .escape)
            context.io.printLine(
                "\(name): \(run.runs) sessions, \(run.attempts) attempts, \(run.done) done, \(run.failed) failed, \(run.counterfeit) counterfeit"
                    + (run.void > 0 ? ", \(run.void) void" + (run.voidOpen > 0 ? " (\(run.voidOpen) not accounted for)" : "") : ""))
        }
    }
}

/// `nfctool ledger report`: a run's report as one self-contained HTML file.
struct LedgerReportCommand: ToolCommand {
    static let output = CommandOption.option(
        "output", short: "o", valueName: "file", help: "The HTML file to write (required; '-' for standard output).", completion: .file)
    static let configuration = CommandConfiguration(
        name: "report",
        abstract: "Write a run's report as one self-contained HTML page with charts.",
        discussion: """
            The page needs no network and no JavaScript (the charts are inline SVG): tags \
            over time (cumulative done and failed, done per station or reader), the rate over \
            time, failures by cause, the split per chip model, the yield, the span and the \
            settings the sessions were given (template, manifest and its rows digest, readers, \
            the key identifiers NTAG 424 DNA runs recorded; never a key). The figures are those \
            of 'ledger stats'. The file is written whole (a link is followed, a FIFO or device \
            written in place, never replaced); a full disk is an error.

            Examples:
              nfctool ledger report run1.db -o run1.html
              nfctool ledger report --ledger postgresql://line@db/prov --run w26 -o w26.html
            """,
        options: [output, LedgerCommand.ledgerOption, LedgerCommand.run],
        arguments: [LedgerCommand.file]
    )

    let arguments: ParsedArguments
    init(_ arguments: ParsedArguments) throws(CommandError) {
        guard let output = arguments.value(of: Self.output) else { throw .usage("ledger report needs -o FILE (the HTML file to write)") }
        if output.isEmpty { throw .usage("-o needs a file name") }
        try LedgerCommand.checkRunName(arguments.value(of: LedgerCommand.run))
        self.arguments = arguments
    }

    func run(_ context: CommandContext) async throws(CommandError) {
        let run = arguments.value(of: LedgerCommand.run)
        let output = arguments.value(of: Self.output) ?? ""
        let report = try await LedgerCommand.reading(arguments) { ledger throws(CommandError) -> RunReport in
            try LedgerCommand.requireRun(run, in: ledger)
            do { return try RunReport(ledger: ledger, run: run) } catch { throw .ledger(error) }
        }
        let page = Array(report.html().utf8)
        if output == "-" {
            context.io.write(page, to: .standardOutput)
            return
        }
        try writeFileBytes(page, to: output)
        let a = report.analysis
        context.io.printLine(
            "report written to \(TerminalSafeText.escaping(output, newlines: .escape)): \(a.done) done, \(a.failed) failed, \(a.counterfeit) counterfeit")
    }
}
