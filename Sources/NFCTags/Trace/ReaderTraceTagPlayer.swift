import NFCCore

/// The tag's side of a ``ReaderTrace``, for an emulated reader that plays a trace
/// (`pn532-emulator --replay FILE`): the target the trace's first poll found, and for each frame
/// the emulated reader sends to its tag, the recorded answer of the trace's next `transceive`.
///
/// A frame is matched as ``ReplayReader`` matches a call (``ReaderTraceRequest/matches(_:)``,
/// with the recorded mode: the tag cannot see it): the same bytes, a redacted byte matching any.
/// Calls that never reach a tag as a frame (polls, selections, presence checks, ``checkCanSend``)
/// are passed over. The first frame that differs stops the player: it and every later frame get
/// ``Answer/diverged(_:)`` with the message ReplayReader gives ("diverged at exchange N: sent …,
/// trace has …").
public struct ReaderTraceTagPlayer: Sendable {
    /// What the tag answers a frame.
    public enum Answer: Sendable, Hashable {
        /// The recorded answer (a redacted byte as `00`); empty for an acknowledged write.
        case answer([UInt8])
        /// The recorded error (a NAK with its nibble in `detail`, a timeout…).
        case failed(NFCReaderDeviceError)
        /// The frame is not the trace's next one, or the trace has no more: the message.
        case diverged(String)
    }

    /// The trace played.
    public let trace: ReaderTrace
    /// The index of the next event to look at.
    public private(set) var position = 0
    /// Why the player stopped, once a frame differed from the trace; nil while it follows it.
    public private(set) var divergence: String?

    /// A player at the trace's first event.
    public init(_ trace: ReaderTrace) {
        self.trace = trace
    }

    /// The target the trace's first successful poll or listing found: the tag to put in the
    /// emulated field (its UID, ATQA, SAK, ATS…); nil when the trace never found one.
    public var target: TargetInfo? {
        for event in trace.events {
            switch event.result {
            case .found(let target?): return target
            case .targets(let targets) where !targets.isEmpty: return targets.first
            default: continue
            }
        }
        return nil
    }

    /// The number of the trace's `transceive` events not yet played.
    public var remainingExchanges: Int {
        trace.events[position...].filter { if case .transceive = $0.request { true } else { false } }.count
    }

    /// The recorded answer to `frame`, the trace's next `transceive`; a divergence otherwise.
    public mutating func answer(to frame: [UInt8]) -> Answer {
        if let divergence { return .diverged(divergence) }
        while position < trace.events.count {
            let event = trace.events[position]
            guard case .transceive(_, let mode) = event.request else {
                position += 1
                continue
            }
            let sent = ReaderTraceRequest.transceive(TraceBytes(frame), mode)
            guard event.request.matches(sent) else {
                return diverge(ReaderTrace.divergence(at: event.number, sent: sent, traceHas: event.request.summary))
            }
            position += 1
            switch event.result {
            case .answer(let answer): return .answer(answer.bytes.array)
            case .failed(let error): return .failed(error)
            default: return diverge("diverged at exchange \(event.number): the trace's result of transceive does not fit the call")
            }
        }
        return diverge(ReaderTrace.divergence(
            at: trace.events.count + 1, sent: .transceive(TraceBytes(frame), .standard), traceHas: "no more exchanges"))
    }

    private mutating func diverge(_ message: String) -> Answer {
        divergence = message
        return .diverged(message)
    }
}

extension ReaderTrace {
    /// The largest trace file a player reads (`replay:FILE`, an emulator's `--replay`): 64 MiB.
    public static let maximumFileSize = 64 << 20

    /// The message of a replay that stopped: `diverged at exchange N: sent …, trace has …`
    /// (``ReplayReader`` and ``ReaderTraceTagPlayer`` both word it so).
    public static func divergence(at number: Int, sent: ReaderTraceRequest, traceHas recorded: String) -> String {
        "diverged at exchange \(number): sent \(sent.summary), trace has \(recorded)"
    }
}
