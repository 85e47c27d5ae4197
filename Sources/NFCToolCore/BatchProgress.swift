import CommandLineKit
import Foundation
import NFCCore
import Provisioning
import Synchronization

/// What the operator sees of a batch on standard error, and what `--events` writes.
///
/// - ``Mode/lines``: standard error is no terminal: one line per event
///   (``BatchReportText``'s), as a log wants them.
/// - ``Mode/live``: standard error is a terminal: one status line redrawn in place
///   (``BatchStationStatus``), at most ten times a second, cut to the terminal's width; each
///   failure, skip and ledger notice gets a permanent line above it.
/// - ``Mode/quiet``: `--quiet`: nothing but a reader lost, the shared ledger's trouble and
///   reader feedback's notes.
final class BatchProgress: Sendable {
    /// How events are shown.
    enum Mode: Sendable, Hashable {
        case lines
        case live
        case quiet
    }

    /// The fewest time between two redraws of the status line (ten a second at most).
    static let redrawInterval: Duration = .milliseconds(100)

    let io: any ToolIO
    let mode: Mode
    let started: ContinuousClock.Instant
    private let text: BatchReportText
    private let log: BatchEventLog?
    private struct State {
        var status: BatchStationStatus
        var lastDraw: ContinuousClock.Instant?
        var dirty = true
    }
    private let state: Mutex<State>

    init(status: BatchStationStatus, total: Int?, mode: Mode, io: any ToolIO, events log: BatchEventLog?, started: ContinuousClock.Instant) {
        self.io = io
        self.mode = mode
        self.started = started
        self.log = log
        text = BatchReportText(total: total)
        state = Mutex(State(status: status))
    }

    /// The status as the events left it.
    var status: BatchStationStatus { state.withLock { $0.status } }

    /// Takes one event: counts it, writes its `--events` line(s), and shows it.
    func handle(_ event: BatchEvent) {
        let now = ContinuousClock.now
        let elapsed = now - started
        state.withLock { state in
            state.status.apply(event, elapsed: elapsed)
            if let log {
                let time = SQLiteLedger.now()
                log.write(BatchEventRecord(event, time: time))
                switch event {
                case .done, .failed, .skipped, .ledgerStatus(.progress):
                    log.write(.progress(state.status, elapsed: elapsed, time: time))
                default: break
                }
            }
            switch mode {
            case .lines:
                if let line = text.line(for: event, elapsed: elapsed) { io.printErrorLine(line) }
            case .quiet:
                switch event {
                case .readerFailed, .ledgerStatus(.unavailable), .ledgerStatus(.back), .ledgerStatus(.voidTag), .ledgerStatus(.voidErased), .feedback:
                    if let line = text.line(for: event, elapsed: elapsed) { io.printErrorLine(line) }
                default: break
                }
            case .live:
                if let line = Self.permanentLine(event, text: text, elapsed: elapsed) {
                    // Above the status line: clear it, write the line, redraw below.
                    let safe = TerminalSafeText.escaping(line, newlines: .escape)
                    io.write(Array("\r\u{1B}[K\(safe)\n".utf8), to: .standardError)
                    state.lastDraw = nil
                }
                state.dirty = true
                draw(&state, now: now)
            }
        }
    }

    /// The events that stay on the screen in ``Mode/live``: failures, skips, a reader lost and
    /// the shared ledger's notices (not the run's progress: the status line shows it).
    private static func permanentLine(_ event: BatchEvent, text: BatchReportText, elapsed: Duration) -> String? {
        switch event {
        case .failed, .skipped, .readerFailed, .ledgerStatus(.unavailable), .ledgerStatus(.back), .ledgerStatus(.waitingForRows),
             .ledgerStatus(.voidTag), .ledgerStatus(.voidErased), .feedback:
            return text.line(for: event, elapsed: elapsed)
        default:
            return nil
        }
    }

    /// Redraws the status line when it is due (called every tenth of a second: the clock and
    /// the ETA move even when no tag does).
    func tick() {
        guard mode == .live else { return }
        let now = ContinuousClock.now
        state.withLock { state in
            if let last = state.lastDraw, now - last >= .seconds(1) { state.dirty = true }
            draw(&state, now: now)
        }
    }

    private func draw(_ state: inout State, now: ContinuousClock.Instant) {
        guard state.dirty, let columns = io.standardErrorTerminalColumns else { return }
        if let last = state.lastDraw, now - last < Self.redrawInterval { return }
        let line = state.status.line(elapsed: now - started, width: columns)
        io.write(Array("\r\(line)\u{1B}[K".utf8), to: .standardError)
        state.lastDraw = now
        state.dirty = false
    }

    /// The end: the status line is cleared, the `summary` event written and the log closed.
    func finish(_ summary: BatchSummary, seconds: Double, ledger: String) {
        state.withLock { state in
            if mode == .live, io.standardErrorTerminalColumns != nil {
                io.write(Array("\r\u{1B}[K".utf8), to: .standardError)
            }
            log?.write(.summary(summary, status: state.status, seconds: seconds, ledger: ledger, time: SQLiteLedger.now()))
        }
        log?.close()
    }
}
