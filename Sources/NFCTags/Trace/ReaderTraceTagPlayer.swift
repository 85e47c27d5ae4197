import NFCCore

/// The tag's side of a ``ReaderTrace``, for an emulated reader that plays a trace
/// (`pn532-emulator --replay FILE`): the target the trace's first poll found, and for each frame
/// the emulated reader sends to its tag, the recorded answer of the trace's next `transceive`.
///
/// A frame is matched as ``ReplayReader`` matches a call (``ReaderTraceRequest/matches(_:)``,
/// with the recorded mode: the tag cannot see it): the same bytes, a redacted byte matching any.
/// Calls that never reach a tag as a frame (polls, selections, presence checks, ``checkCanSend``)
/// are passed over, and so are frames sent to no selected tag (`transceiveUnselected`: neither a
/// PN532 nor a PC/SC reader sends one, so no emulated reader gets one to answer). The first frame that differs stops the player: it and every later frame get
/// ``Answer/diverged(_:)`` with the message ReplayReader gives ("diverged at exchange N: sent …,
/// trace has …").
///
/// An emulated PC/SC reader, which gets from NFCKit's PC/SC reader READ BINARY and UPDATE
/// BINARY in place of some recorded commands, sets ``carriesAsPCSC``: those commands then play
/// as the frames the emulated reader sends the tag for them (see the property).
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
    /// Whether recorded commands may come as the frames an emulated PC/SC reader sends its tag
    /// for the READ BINARY and UPDATE BINARY that NFCKit's PC/SC reader sent in their place:
    ///
    /// - a Type 2 `FAST_READ` of pages s…e as `READ`s of s, s+4, … up to e (one READ BINARY of
    ///   16 bytes for each 4 pages): each gets its 16 bytes of the recorded answer, the last one
    ///   filled up with `00` past page e (bytes the PC/SC reader drops; the trace does not hold
    ///   them);
    /// - an ISO 15693 READ SINGLE BLOCK or WRITE SINGLE BLOCK with flags `02`, without the UID of
    ///   an addressed request and without the option flag (the recorded answer without the
    ///   block's security status byte the PC/SC reader made up as `00`), and READ MULTIPLE BLOCKS
    ///   as a READ SINGLE BLOCK of each block in turn.
    ///
    /// A recorded error goes to the first frame. Off for a reader that sends the tag the recorded
    /// frames themselves (a PN532), where a frame in another's place is a divergence.
    public var carriesAsPCSC = false
    /// Within a recorded command played as several frames: the page or block the next one asks for.
    private var cursor: Int?

    /// A player at the trace's first event; `carriesAsPCSC` as the property.
    public init(_ trace: ReaderTrace, carriesAsPCSC: Bool = false) {
        self.trace = trace
        self.carriesAsPCSC = carriesAsPCSC
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
            if carriesAsPCSC, case .transceive(let recorded, _) = event.request,
               let piece = fastReadPiece(frame, of: recorded, result: event.result) ?? vicinityPiece(frame, of: recorded, result: event.result) {
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
    /// comes next in it (``carriesAsPCSC``); nil otherwise. The last part moves to the next event.
    private mutating func fastReadPiece(_ frame: [UInt8], of recorded: TraceBytes, result: ReaderTraceResult) -> Answer? {
        let command = recorded.values
        guard command.count == 3, command[0] == Type2Command.fastRead, let first = command[1].map(Int.init), let last = command[2].map(Int.init),
              first <= last, frame.count == 2, frame[0] == Type2Command.read, Int(frame[1]) == cursor ?? first
        else { return nil }
        let page = Int(frame[1])
        switch result {
        case .answer(let answer) where answer.values.count == (last - first + 1) * Type2Command.pageSize:
            let bytes = answer.bytes.array
            let piece = Array(bytes.dropFirst((page - first) * Type2Command.pageSize).prefix(Type2Command.readSize))
            let next = page + Type2Command.readSize / Type2Command.pageSize
            advance(to: next, last: last)
            return .answer(piece + [UInt8](repeating: 0, count: Type2Command.readSize - piece.count))
        case .failed(let error) where cursor == nil:
            position += 1
            return .failed(error)
        default:
            return nil
        }
    }

    /// `frame`'s part of the recorded ISO 15693 request `recorded` as an emulated PC/SC reader
    /// sends it (``carriesAsPCSC``): READ SINGLE BLOCK, WRITE SINGLE BLOCK, or the next block of
    /// READ MULTIPLE BLOCKS; nil otherwise.
    private mutating func vicinityPiece(_ frame: [UInt8], of recorded: TraceBytes, result: ReaderTraceResult) -> Answer? {
        guard case .iso15693? = target else { return nil }
        let values = recorded.values
        guard values.count >= 3, let flags = values[0], let command = values[1],
              frame.count >= 3, frame[0] == ISO15693RequestFlag.dataRate, frame[1] == (command == ISO15693Command.readMultipleBlocks ? ISO15693Command.readSingleBlock : command)
        else { return nil }
        var parameters = Array(values.dropFirst(2))
        if flags & ISO15693RequestFlag.address != 0 {
            guard parameters.count > 8 else { return nil }
            parameters.removeFirst(8)
        }
        let status = flags & ISO15693RequestFlag.option != 0 && command != ISO15693Command.writeSingleBlock ? 1 : 0
        switch (command, parameters.first.flatMap { $0 }) {
        case (ISO15693Command.readSingleBlock, let block?) where parameters.count == 1 && frame == [frame[0], frame[1], block],
             (ISO15693Command.writeSingleBlock, let block?) where parameters.count >= 2 && frame[2] == block && TraceBytes(values: parameters).matches(Bytes(frame.dropFirst(2))):
            position += 1
            switch result {
            case .answer(let answer) where answer.values.first == 0x00 && answer.values.count > status:
                return .answer([0x00] + answer.bytes.array.dropFirst(1 + status))
            case .failed(let error): return .failed(error)
            default: return nil
            }
        case (ISO15693Command.readMultipleBlocks, let first?) where parameters.count == 2:
            guard let more = parameters[1], frame.count == 3 else { return nil }
            let block = Int(frame[2]), firstBlock = Int(first), blocks = Int(more) + 1
            guard block == cursor ?? firstBlock else { return nil }
            switch result {
            case .answer(let answer) where answer.values.first == 0x00 && (answer.values.count - 1) % blocks == 0 && (answer.values.count - 1) / blocks > status:
                let size = (answer.values.count - 1) / blocks
                let data = answer.bytes.array.dropFirst(1 + (block - firstBlock) * size).prefix(size).dropFirst(status)
                advance(to: block + 1, last: firstBlock + blocks - 1)
                return .answer([0x00] + data)
            case .failed(let error) where cursor == nil:
                position += 1
                return .failed(error)
            default:
                return nil
            }
        default:
            return nil
        }
    }

    /// Moves the cursor to `next`, or to the next event once `next` is past `last`.
    private mutating func advance(to next: Int, last: Int) {
        if next > last {
            cursor = nil
            position += 1
        } else {
            cursor = next
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
