import CPCSCLite
import Synchronization

/// Lets another thread cut short a `SCardGetStatusChange` that ``PCSCReader`` blocks in while it
/// waits for a card to leave (`SCardCancel`): a cancelled task, or ``PCSCReader/close()``.
///
/// pcsc-lite only cancels a wait that is already blocked on pcscd's answer; a cancellation in
/// the instant between ``begin(_:)`` and that point finds nothing to cancel, and the wait ends
/// at its own timeout instead, which ``PCSCReader`` keeps to at most
/// ``PCSCReader/longestStatusWait``.
final class StatusWaitCanceller: Sendable {
    private struct State {
        var waiting: ContextHandle?
        var cancelled = false
        var closed = false
    }

    private let state = Mutex(State())

    /// A new wait: forgets an earlier wait's cancellation.
    func arm() { state.withLock { $0.cancelled = false } }

    /// Marks the start of one blocking call on `context`; false when the wait was cancelled or
    /// the reader closed first (then nothing must block).
    func begin(_ context: ContextHandle) -> Bool {
        state.withLock { state in
            guard !state.cancelled, !state.closed else { return false }
            state.waiting = context
            return true
        }
    }

    /// Marks the end of the blocking call.
    func end() { state.withLock { $0.waiting = nil } }

    /// Cancels the current wait (the waiting task was cancelled).
    func cancel() {
        let waiting = state.withLock { state in
            state.cancelled = true
            return state.waiting
        }
        if let waiting { pcscCancel(waiting) }
    }

    /// Cancels the current wait and every later one (the reader is closing).
    func close() {
        let waiting = state.withLock { state in
            state.closed = true
            return state.waiting
        }
        if let waiting { pcscCancel(waiting) }
    }
}

extension PCSCReader {
    /// The longest single `SCardGetStatusChange` of a removal wait: a cancellation that comes in
    /// the instant before pcsc-lite can cancel the call is noticed at the latest this much later.
    /// The wait itself sends nothing to the card; it asks pcscd to answer when the reader's
    /// state changes.
    static let longestStatusWait = Duration.seconds(1)

    /// Whether the reader state `state` (`dwEventState` of `SCardGetStatusChange`) means the
    /// card that was in the reader in state `baseline` has left: the reader is empty,
    /// unavailable or its card mute, or the card event counter in the high 16 bits moved (pcscd
    /// counts every insertion and removal: a card taken away and another laid down between two
    /// looks is a removal, though the reader holds a card again).
    static func cardLeft(_ state: DWORD, since baseline: DWORD) -> Bool {
        if state & (pcscStateEmpty | pcscStateUnavailable | pcscStateUnknown | pcscStateMute) != 0 { return true }
        if state & pcscStatePresent == 0 { return true }
        return (state >> 16) & 0xFFFF != (baseline >> 16) & 0xFFFF
    }

    /// `duration` in whole milliseconds, as `SCardGetStatusChange` takes it.
    static func milliseconds(_ duration: Duration) -> DWORD {
        let (seconds, attoseconds) = max(Duration.zero, duration).components
        return DWORD(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }
}
