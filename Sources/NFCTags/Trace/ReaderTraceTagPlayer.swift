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
///
/// An emulated reader that carries a Type 2 `FAST_READ` to the tag as `READ`s of 4 pages, as
/// NFCKit's PC/SC reader does with READ BINARY, sets ``splitsFastRead``: a recorded `FAST_READ`
/// then plays as those `READ`s (see the property).
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
    /// Whether a recorded `FAST_READ` of pages s…e may come as `READ`s of s, s+4, … up to e
    /// (NFCKit's PC/SC reader sends it so: one READ BINARY of 16 bytes for each 4 pages, keeping
    /// the pages asked for): each gets its 16 bytes of the recorded answer, the last one filled
    /// up with `00` past page e (bytes the PC/SC reader drops; the trace does not hold them). A
    /// recorded error goes to the first `READ`. Off for a reader that sends `FAST_READ` itself
    /// (a PN532), where a `READ` in its place is a divergence.
    public var splitsFastRead = false
    /// Within a recorded `FAST_READ` played as `READ`s: the page the next `READ` must ask for.
    private var fastReadPage: Int?

    /// A player at the trace's first event; `splitsFastRead` as the property.
    public init(_ trace: ReaderTrace, splitsFastRead: Bool = false) {
        self.trace = trace
        self.splitsFastRead = splitsFastRead
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
            if splitsFastRead, case .transceive(let recorded, _) = event.request, let piece = fastReadPiece(frame, of: recorded, result: event.result) {
                return piece
            }
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

    /// `frame`'s part of the recorded `FAST_READ` `recorded`, when `frame` is the `READ` that
    /// comes next in it (``splitsFastRead``); nil otherwise. The last part moves to the next event.
    private mutating func fastReadPiece(_ frame: [UInt8], of recorded: TraceBytes, result: ReaderTraceResult) -> Answer? {
        let command = recorded.values
        guard command.count == 3, command[0] == Type2Command.fastRead, let first = command[1].map(Int.init), let last = command[2].map(Int.init),
              first <= last, frame.count == 2, frame[0] == Type2Command.read, Int(frame[1]) == fastReadPage ?? first
        else { return nil }
        let page = Int(frame[1])
        switch result {
        case .answer(let answer) where answer.values.count == (last - first + 1) * Type2Command.pageSize:
            let bytes = answer.bytes.array
            let piece = Array(bytes.dropFirst((page - first) * Type2Command.pageSize).prefix(Type2Command.readSize))
            let next = page + Type2Command.readSize / Type2Command.pageSize
            if next > last {
                fastReadPage = nil
                position += 1
            } else {
                fastReadPage = next
            }
            return .answer(piece + [UInt8](repeating: 0, count: Type2Command.readSize - piece.count))
        case .failed(let error) where fastReadPage == nil:
            position += 1
            return .failed(error)
        default:
            return nil
        }
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
