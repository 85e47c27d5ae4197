import Foundation
import NFCCore
import Synchronization

/// What a batch tells its operator, as text: a line for each ``BatchEvent`` (counting the
/// tags done and failed for the progress figures), the closing summary, and why the run failed.
/// The command line prints these lines; it chooses where (standard output or error) and with
/// which exit status.
public final class BatchReportText: Sendable {
    /// The tags the run was asked for (`--count`), shown as `done/total`.
    public let total: Int?
    private let counts = Mutex((done: 0, failed: 0))

    /// Text for a run of `total` tags (nil: no count).
    public init(total: Int?) { self.total = total }

    /// The line for `event`, `elapsed` after the run started (for the rate of a tag done); nil
    /// for an event that has no line of its own (``BatchEvent/tagFound(reader:uid:)``).
    public func line(for event: BatchEvent, elapsed: Duration) -> String? {
        switch event {
        case .waiting(let reader):
            return "[\(reader)] waiting for a tag"
        case .tagFound:
            return nil
        case .done(let reader, let uid, let summary):
            let (done, failed) = counts.withLock { $0.done += 1; return ($0.done, $0.failed) }
            let rate = Double(done) / max(Self.seconds(elapsed), 0.001)
            return "[\(reader)] \(done)\(total.map { "/\($0)" } ?? "") done \(uid): \(TerminalSafeText.escaping(summary, newlines: .escape)) (\(failed) failed, \(String(format: "%.1f", rate)) tags/s)"
        case .failed(let reader, let uid, let error, _):
            counts.withLock { $0.failed += 1 }
            return "[\(reader)] FAILED \(uid): \(error)"
        case .skipped(let reader, let uid, let reason):
            return "[\(reader)] skipped \(uid): \(reason)"
        case .removeTag(let reader, let uid):
            return "[\(reader)] take \(uid) away"
        case .readerFailed(let reader, let error):
            return "[\(reader)] reader failed: \(error)"
        case .severalTags(let reader, let count):
            return "[\(reader)] \(count) tags in the field: take one away (nothing is written until one is left)"
        case .ledgerStatus(let status):
            return Self.describe(status)
        case .feedback(let reader, let note):
            return Self.describe(note, reader: reader)
        }
    }

    /// What the operator reads about reader feedback.
    public static func describe(_ note: FeedbackNote, reader: String) -> String {
        switch note {
        case .unavailable:
            return "[\(reader)] note: --feedback: this reader has no buzzer or LED nfctool can drive (docs/hardware.md, \"Reader feedback\"); going on without"
        case .failed(let error):
            return "[\(reader)] warning: reader feedback failed: \(error); the tags' results stand (said once)"
        }
    }

    /// What the operator reads about the shared ledger.
    public static func describe(_ status: LedgerStatus) -> String {
        switch status {
        case .unavailable(let error, let journalled, let journal):
            return "[ledger] UNAVAILABLE: \(error). Taking no tags until it is back"
                + (journalled > 0 ? "; \(journalled) tag\(journalled == 1 ? "" : "s") written but not recorded, held in \(journal)" : "")
        case .back(let recorded):
            return "[ledger] back: \(recorded) journalled tag\(recorded == 1 ? "" : "s") recorded; taking tags again"
        case .waitingForRows(let held):
            return "[ledger] no free row: \(held) held at other stations; waiting for them (a row comes back when its station fails or its lease ends)"
        case .voidTag(let tag):
            return "[\(tag.reader)] \(tag.sentence)"
        case .voidErased(let tag, let error?):
            return "[\(tag.reader)] VOID tag \(tag.uid) could not be erased (\(error)): discard it, or erase it with `nfctool erase`"
        case .voidErased(let tag, nil):
            return "[\(tag.reader)] VOID tag \(tag.uid) erased (--void-erase): it holds an empty message; recorded as erased in the ledger"
        case .progress(let report):
            let rate = report.rate.map { String(format: "%.1f tags/s", $0) } ?? "rate not known yet"
            let total = report.total.map { "/\($0) (\(Int((Double(report.done) / Double(max($0, 1)) * 100).rounded()))%)" } ?? ""
            let eta = report.secondsLeft.map { "ETA \(Int($0.rounded())) s" } ?? "ETA not known yet"
            return "[run \(report.run)] \(report.done)\(total) done, \(rate), \(eta), \(report.stations) station\(report.stations == 1 ? "" : "s")"
        }
    }

    /// The closing line: the totals, how long the run took, why it stopped, and the ledger.
    public static func summaryLine(_ summary: BatchSummary, seconds: Double, ledger: String) -> String {
        let counterfeit = (summary.counterfeit > 0 ? ", \(summary.counterfeit) counterfeit" : "")
            + (summary.voidOpen + summary.voidErased > 0 ? ", \(summary.voidOpen + summary.voidErased) void (\(summary.voidErased) erased)" : "")
        return "Batch: \(summary.done) done, \(summary.failed) failed, \(summary.skipped) skipped\(counterfeit) in \(String(format: "%.1f", seconds)) s "
            + "(\(summary.stopReason)); ledger \(ledger)"
    }

    /// Why a finished run failed, if it did, the first reason that applies: tags failed, the
    /// ledger stopped the run, or counterfeit chips were refused.
    public static func failure(of summary: BatchSummary) -> BatchFailure? {
        if summary.failed > 0 { return .tagsFailed("\(summary.failed) tag\(summary.failed == 1 ? "" : "s") failed; see the ledger") }
        // A run the ledger stopped has failed even when no tag was in progress (a named run too).
        if let error = summary.ledgerError { return .ledgerFailed("the ledger failed: \(error)") }
        // Written but not recorded: the ledger does not know these tags yet.
        if summary.unrecorded > 0 {
            let tags = "\(summary.unrecorded) tag\(summary.unrecorded == 1 ? "" : "s")"
            return .ledgerFailed(
                "\(tags) written but not recorded: the ledger is still unreachable; they wait in the journal \(summary.journal ?? "") "
                    + "and are recorded when this station runs again (the same --run and --station)")
        }
        if summary.voidOpen > 0 {
            let tags = "\(summary.voidOpen) void tag\(summary.voidOpen == 1 ? "" : "s")"
            return .ledgerFailed(
                "\(tags) written here hold rows or counters another station's tags hold (see the VOID lines above, or 'nfctool ledger export "
                    + "--run NAME': status void): discard or erase each, then record it with 'nfctool ledger resolve'")
        }
        if summary.counterfeit > 0 {
            return .counterfeit("\(summary.counterfeit) counterfeit chip\(summary.counterfeit == 1 ? "" : "s") refused (not shown genuine); see the ledger")
        }
        return nil
    }

    /// `duration` in seconds.
    public static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// Why a finished batch failed, with the sentence for the operator (``BatchReportText/failure(of:)``).
public enum BatchFailure: Sendable, Hashable {
    /// Tags failed (the ledger has their attempts).
    case tagsFailed(String)
    /// The ledger failed and stopped the run.
    case ledgerFailed(String)
    /// Chips not shown genuine were refused as counterfeit (`--require-genuine`).
    case counterfeit(String)

    /// The sentence.
    public var message: String {
        switch self {
        case .tagsFailed(let text), .ledgerFailed(let text), .counterfeit(let text): text
        }
    }
}
