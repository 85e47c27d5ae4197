import Foundation
import NFCCore

/// What a station's one status line shows, kept from the batch's events: done / total, rate,
/// elapsed, ETA, failures by cause and each reader's state (`nfctool batch` on a terminal
/// redraws it in place; `--events` writes its figures as `progress` lines).
///
/// A value with no clock of its own: every figure is computed for the `elapsed` time its
/// caller gives, so it is tested without waiting. A resumed run (``baseDone``) and a named run
/// (the ledger's ``RunProgressReport``) show the run's totals, not only this process's.
public struct BatchStationStatus: Sendable, Hashable {
    /// What a reader is doing, as the operator is told.
    public enum ReaderState: Sendable, Hashable {
        /// Waiting for a tag.
        case waiting
        /// Working on the tag with this UID (checks, write, verification, record).
        case writing(uid: String)
        /// The tag with this UID is finished: take it away.
        case takeAway(uid: String)
        /// This many tags answer together: take one away.
        case severalTags(count: Int)
        /// The reader failed (unplugged, closed); its worker stopped.
        case lost

        /// The words for one reader: `waiting for a tag`, `take it away`…
        public var words: String {
            switch self {
            case .waiting: "waiting for a tag"
            case .writing(let uid): "writing \(uid)"
            case .takeAway: "take it away"
            case .severalTags(let count): "\(count) tags: take one away"
            case .lost: "reader lost"
            }
        }

        /// A word for one of several readers: `wait`, `write`, `take away`, `2 tags`, `lost`.
        public var short: String {
            switch self {
            case .waiting: "wait"
            case .writing: "write"
            case .takeAway: "take away"
            case .severalTags(let count): "\(count) tags"
            case .lost: "lost"
            }
        }
    }

    /// The denominator shown (`done/total`): the run's rows, or `--count` (plus ``baseDone``);
    /// nil when the run has no end but the operator.
    public var total: Int?
    /// Tags the ledger had done before this process started (`--resume`).
    public var baseDone: Int
    /// Tags done by this process.
    public private(set) var done = 0
    /// Tags failed in this process.
    public private(set) var failed = 0
    /// Tags refused before any write in this process (counterfeits apart).
    public private(set) var skipped = 0
    /// Chips refused as counterfeit in this process (`--require-genuine`).
    public private(set) var counterfeit = 0
    /// This process's failures by cause.
    public private(set) var failures: [FailureCause: Int] = [:]
    /// One reader and its state.
    public struct Reader: Sendable, Hashable {
        /// The reader's connection string.
        public var name: String
        /// What it is doing.
        public var state: ReaderState
    }

    /// The readers in the order they were first heard of, with their state.
    public private(set) var readers: [Reader] = []
    /// The named run's progress as the ledger last told it (every station's tags).
    public private(set) var run: RunProgressReport?
    /// The shared ledger's trouble, if it has one now: unreachable, or no free row.
    public private(set) var ledger: LedgerStatus?
    /// When the first tag came, from the start (the rate counts from there, not from the time
    /// the operator took to lay out the tags).
    public private(set) var firstTag: Duration?

    /// A status for a run showing `total` (nil: no end), of which `baseDone` were done before.
    public init(total: Int?, baseDone: Int = 0) {
        self.total = total
        self.baseDone = baseDone
    }

    /// The status a batch starts with: the total it works towards and what the ledger already
    /// has of it. A manifest's rows (at most `count` more than are done) with the rows the
    /// ledger has done; a template run's `count`, plus, when `resuming`, the tags the ledger has
    /// done. A named run (`named`) starts empty: the ledger's run progress fills it.
    /// - Throws: ``LedgerError`` when the ledger cannot be read.
    public static func starting(
        source: BatchSource, count: Int?, resuming: Bool, named: Bool, ledger: any ProvisioningLedger
    ) throws(LedgerError) -> BatchStationStatus {
        if named { return BatchStationStatus(total: count) }
        switch source {
        case .manifest(let rows, _, _, _):
            let done = try ledger.doneRows()
            let base = rows.filter { done.contains($0.index) }.count
            return BatchStationStatus(total: count.map { min(rows.count, base + $0) } ?? rows.count, baseDone: base)
        case .template:
            let base = resuming ? try ledger.stats(run: nil).done : 0
            return BatchStationStatus(total: count.map { base + $0 }, baseDone: base)
        }
    }

    /// Takes `event` into the figures; `elapsed` is the time since the batch started.
    public mutating func apply(_ event: BatchEvent, elapsed: Duration) {
        switch event {
        case .waiting(let reader): set(reader, .waiting)
        case .tagFound(let reader, let uid):
            if firstTag == nil { firstTag = elapsed }
            set(reader, .writing(uid: uid))
        case .done(let reader, let uid, _):
            done += 1
            set(reader, .takeAway(uid: uid))
        case .failed(let reader, let uid, _, let cause):
            failed += 1
            failures[cause, default: 0] += 1
            set(reader, .takeAway(uid: uid))
        case .skipped(let reader, let uid, let reason):
            // GenuineAdmission's refusal of a counterfeit says so first (BatchWorker counts it apart).
            if reason.hasPrefix("counterfeit") { counterfeit += 1 } else { skipped += 1 }
            set(reader, .takeAway(uid: uid))
        case .removeTag(let reader, let uid): set(reader, .takeAway(uid: uid))
        case .readerFailed(let reader, _): set(reader, .lost)
        case .severalTags(let reader, let count): set(reader, .severalTags(count: count))
        case .ledgerStatus(let status):
            switch status {
            case .progress(let report): run = report
            case .back: ledger = nil
            case .unavailable, .waitingForRows: ledger = status
            case .voidTag, .voidErased: break  // a line of its own
            }
        case .feedback: break  // a note of its own line; no figure changes
        }
    }

    private mutating func set(_ reader: String, _ state: ReaderState) {
        if let index = readers.firstIndex(where: { $0.name == reader }) {
            readers[index].state = state
        } else {
            readers.append(Reader(name: reader, state: state))
        }
    }

    /// Done as shown: the named run's count when the ledger gave one, else ``baseDone`` plus
    /// this process's.
    public var shownDone: Int { run?.done ?? baseDone + done }

    /// The denominator as shown: the named run's rows when it has them, else ``total``.
    public var shownTotal: Int? { run == nil ? total : run?.total }

    /// Tags per minute: the named run's rate (every station) when known, else this process's
    /// since its first tag (nil before a tag was done).
    public func tagsPerMinute(elapsed: Duration) -> Double? {
        if let rate = run?.rate { return rate * 60 }
        guard done > 0, let firstTag else { return nil }
        let seconds = BatchReportText.seconds(elapsed - firstTag)
        return seconds > 0 ? Double(done) / seconds * 60 : nil
    }

    /// Seconds until the total is done at the rate (nil with no total or no rate yet).
    public func secondsLeft(elapsed: Duration) -> Double? {
        if let run { return run.secondsLeft }
        guard let total = shownTotal, let rate = tagsPerMinute(elapsed: elapsed), rate > 0 else { return nil }
        return Double(max(total - shownDone, 0)) / rate * 60
    }

    /// `lost 2, verify 1`: failures by cause, the most frequent first.
    public var failuresByCause: String {
        failures.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key.rawValue < $1.key.rawValue }
            .map { "\($0.key.short) \($0.value)" }.joined(separator: ", ")
    }

    /// The status line for `elapsed`, at most `width - 1` columns (the last column is left
    /// free: a terminal may wrap on it), with no newline and nothing a terminal acts on:
    /// `12/100 done | 2 failed (lost 2) | 31.5/min | 0:23 | ETA 2:47 | waiting for a tag`.
    public func line(elapsed: Duration, width: Int) -> String {
        var parts: [String] = []
        if let trouble = ledger {
            switch trouble {
            case .unavailable(_, let journalled, _): parts.append("LEDGER AWAY\(journalled > 0 ? " (\(journalled) journalled)" : "")")
            case .waitingForRows(let held): parts.append("no free row (\(held) held)")
            default: break
            }
        }
        var count = "\(shownDone)\(shownTotal.map { "/\($0)" } ?? "") done"
        if let run { count += " in run \(run.run) (here \(done))" }
        parts.append(count)
        if failed > 0 { parts.append("\(failed) failed (\(failuresByCause))") }
        if counterfeit > 0 { parts.append("\(counterfeit) counterfeit") }
        parts.append(tagsPerMinute(elapsed: elapsed).map { String(format: "%.1f/min", $0) } ?? "-/min")
        parts.append(Self.clock(BatchReportText.seconds(elapsed)))
        if shownTotal != nil {
            parts.append("ETA " + (secondsLeft(elapsed: elapsed).map(Self.clock) ?? "-"))
        }
        parts.append(readerStates)
        return Self.fit(TerminalSafeText.escaping(parts.joined(separator: " | "), newlines: .escape), width: width)
    }

    /// The readers' states: in words for one reader, `1 wait, 2 write` for several.
    public var readerStates: String {
        switch readers.count {
        case 0: return "starting"
        case 1: return readers[0].state.words
        default: return readers.enumerated().map { "\($0.offset + 1) \($0.element.state.short)" }.joined(separator: ", ")
        }
    }

    /// `text` cut to fit `width - 1` columns, ending in `…` when cut. A character outside ASCII
    /// counts two columns (a wide character may take two): the line may be cut early, never
    /// wrapped.
    public static func fit(_ text: String, width: Int) -> String {
        let room = max(width - 1, 1)
        var used = 0
        var out = ""
        for character in text {
            let columns = character.unicodeScalars.allSatisfy(\.isASCII) ? 1 : 2
            if used + columns > room {
                // Room for the ellipsis: drop characters until it fits.
                while used + 1 > room, let last = out.popLast() { used -= last.unicodeScalars.allSatisfy(\.isASCII) ? 1 : 2 }
                return out + "…"
            }
            out.append(character)
            used += columns
        }
        return out
    }

    /// `0:07`, `12:34`, `1:02:03`: a duration in seconds as a clock.
    public static func clock(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "-" }
        let total = Int(max(seconds, 0).rounded())
        let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
        return hours > 0 ? String(format: "%d:%02d:%02d", hours, minutes, secs) : String(format: "%d:%02d", minutes, secs)
    }

    /// The closing table for people: done, failed by cause, counterfeit, skipped, rate and span
    /// (`summary` is the coordinator's, `seconds` the run's length), with the named or resumed
    /// run's totals when there is one.
    public func summaryTable(_ summary: BatchSummary, seconds: Double, ledger: String) -> [String] {
        var rows: [(String, String)] = [("done", "\(summary.done)")]
        if run != nil || baseDone > 0 {
            rows.append(("run", "\(shownDone)\(shownTotal.map { "/\($0)" } ?? "") done\(run.map { " in '\($0.run)', \($0.stations) station\($0.stations == 1 ? "" : "s")" } ?? "")"))
        }
        rows.append(("failed", "\(summary.failed)" + (failures.isEmpty ? "" : "  (\(failuresByCause))")))
        rows.append(("counterfeit", "\(summary.counterfeit)"))
        rows.append(("skipped", "\(summary.skipped)"))
        let rate = summary.done > 0 && seconds > 0 ? String(format: "%.1f tags/min", Double(summary.done) / seconds * 60) : "-"
        rows.append(("rate", rate))
        rows.append(("span", "\(Self.clock(seconds)) (\(String(format: "%.1f", seconds)) s)"))
        rows.append(("stopped", summary.stopReason))
        rows.append(("ledger", ledger))
        let width = rows.map(\.0.count).max() ?? 0
        return ["Batch summary"] + rows.map { "  " + $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + TerminalSafeText.escaping($0.1, newlines: .escape) }
    }
}
