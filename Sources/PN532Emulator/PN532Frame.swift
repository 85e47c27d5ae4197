/// One frame on the PN532 host link (UM0701-02 §6.2.1 "Host link frames").
///
/// Every frame starts with the preamble `00` and the start code `00 FF`, and ends with the
/// postamble `00`. Between them:
/// - a normal information frame: `LEN LCS TFI PD… DCS` with `LEN + LCS ≡ 0` and
///   `TFI + PD… + DCS ≡ 0` (mod 256), LEN counting TFI and PD (§6.2.1.1);
/// - an extended information frame: `FF FF LENM LENL LCS TFI PD… DCS` (§6.2.1.2);
/// - ACK `00 FF` (§6.2.1.3), NACK `FF 00` (§6.2.1.4);
/// - the error frame `01 FF 7F 81`, an application level error (§6.2.1.5).
public enum PN532Frame: Sendable, Hashable {
    /// An information frame: `TFI` (`D4` host → PN532, `D5` PN532 → host) and the packet data
    /// (the command code first). UM0701 §6.2.1.1–6.2.1.2.
    case information(tfi: UInt8, data: [UInt8])
    /// ACK: the receiver took the previous frame; from the host, it aborts the pending command.
    /// UM0701 §6.2.1.3.
    case ack
    /// NACK: the host asks the PN532 to send its last response again. UM0701 §6.2.1.4.
    case nack
    /// The error frame (syntax error, application level). UM0701 §6.2.1.5.
    case error

    /// The frame identifier of frames from the host controller to the PN532: `D4`. UM0701 §6.2.1.1.
    public static let hostToPN532: UInt8 = 0xD4
    /// The frame identifier of frames from the PN532 to the host controller: `D5`. UM0701 §6.2.1.1.
    public static let pn532ToHost: UInt8 = 0xD5
    /// The frame identifier carried by the error frame: `7F`. UM0701 §6.2.1.5.
    public static let errorFrameIdentifier: UInt8 = 0x7F
    /// The most bytes (TFI and PD together) one frame carries: 264 (UM0701 §6.2.1.2; libnfc's
    /// `PN53x_EXTENDED_FRAME__DATA_MAX_LEN` plus TFI).
    public static let maximumInformationLength = 265
    /// The ACK frame's bytes: `00 00 FF 00 FF 00`. UM0701 §6.2.1.3.
    public static let ackBytes: [UInt8] = [0x00, 0x00, 0xFF, 0x00, 0xFF, 0x00]
    /// The NACK frame's bytes: `00 00 FF FF 00 00`. UM0701 §6.2.1.4.
    public static let nackBytes: [UInt8] = [0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00]
    /// The error frame's bytes: `00 00 FF 01 FF 7F 81 00`. UM0701 §6.2.1.5.
    public static let errorBytes: [UInt8] = [0x00, 0x00, 0xFF, 0x01, 0xFF, 0x7F, 0x81, 0x00]

    /// A response from the PN532: `D5` and the packet data (response code first).
    public static func response(_ data: [UInt8]) -> PN532Frame {
        .information(tfi: pn532ToHost, data: data)
    }

    /// A command from the host: `D4` and the packet data (command code first).
    public static func command(_ data: [UInt8]) -> PN532Frame {
        .information(tfi: hostToPN532, data: data)
    }

    /// The frame as sent on the wire: preamble, start code, body, postamble. Information frames
    /// longer than 255 bytes (TFI + PD) use the extended form (UM0701 §6.2.1.2).
    ///
    /// Information longer than ``maximumInformationLength`` is not representable; such data is
    /// truncated to the maximum, never trapped on.
    public var encoded: [UInt8] {
        switch self {
        case .ack: return Self.ackBytes
        case .nack: return Self.nackBytes
        case .error: return Self.errorBytes
        case .information(let tfi, let data):
            let body = [tfi] + data.prefix(Self.maximumInformationLength - 1)
            var out: [UInt8] = [0x00, 0x00, 0xFF]
            if body.count <= 0xFF {
                let length = UInt8(body.count)
                out += [length, 0 &- length]
            } else {
                let high = UInt8(body.count >> 8), low = UInt8(body.count & 0xFF)
                out += [0xFF, 0xFF, high, low, 0 &- (high &+ low)]
            }
            out += body
            out.append(0 &- body.reduce(0, &+))
            out.append(0x00)
            return out
        }
    }

    /// Parses exactly one frame, preamble to postamble, from `bytes` (a total parser: never
    /// traps; bytes before the start code other than `00` and the HSU wake-up `55` are refused).
    /// - Throws: ``PN532FrameError`` with the offset of the offending byte: `truncated` when the
    ///   input ends early, `trailingBytes` when it goes on after the postamble.
    public static func parse(_ bytes: ArraySlice<UInt8>) throws(PN532FrameError) -> PN532Frame {
        var decoder = PN532FrameDecoder(strict: true)
        var result: PN532Frame?
        var index = 0
        for byte in bytes {
            switch decoder.feed(byte) {
            case nil: break
            case .error(let error)?: throw error
            case .frame(let frame)?:
                guard result == nil else { throw PN532FrameError(.trailingBytes, offset: index) }
                result = frame
            }
            index += 1
            if result != nil, decoder.isIdle { break }
        }
        guard let result, decoder.isIdle else {
            throw PN532FrameError(.truncated, offset: bytes.count)
        }
        guard index == bytes.count else { throw PN532FrameError(.trailingBytes, offset: index) }
        return result
    }
}

/// Why bytes on the host link are not a frame (UM0701 §6.2.1), with the offset of the offending
/// byte counted from the first byte the decoder saw.
public struct PN532FrameError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Stable codes users can match.
    public enum Code: String, Sendable, Hashable {
        /// The input ended inside a frame.
        case truncated
        /// `LEN + LCS` (or `LENM + LENL + LCS`) is not 0 mod 256 (§6.2.1.1).
        case lengthChecksumMismatch
        /// `TFI + PD… + DCS` is not 0 mod 256 (§6.2.1.1).
        case dataChecksumMismatch
        /// A normal frame with LEN 0 other than ACK, or an extended frame of length 0.
        case emptyFrame
        /// An extended frame longer than ``PN532Frame/maximumInformationLength``.
        case lengthTooLong
        /// The postamble after DCS is not `00` (strict parsing only).
        case missingPostamble
        /// A byte before the start code that is neither preamble `00` nor wake-up `55`
        /// (strict parsing only).
        case unexpectedByte
        /// Bytes after the frame's postamble.
        case trailingBytes
    }

    /// What went wrong.
    public var code: Code
    /// Offset of the offending byte in the input.
    public var offset: Int

    /// Creates an error.
    public init(_ code: Code, offset: Int) {
        self.code = code
        self.offset = offset
    }

    /// A human reason: `dataChecksumMismatch at byte 9`.
    public var description: String { "\(code.rawValue) at byte \(offset)" }
}

/// What the incremental decoder found.
public enum PN532DecoderEvent: Sendable, Hashable {
    /// A whole, valid frame.
    case frame(PN532Frame)
    /// A frame that failed a check; the decoder resynchronises on the next start code.
    case error(PN532FrameError)
}

/// An incremental decoder for the host link: feed it bytes as they arrive (partial reads, one
/// byte at a time) and it yields frames (UM0701 §6.2.1).
///
/// Outside a frame it skips the preamble, postambles and the HSU wake-up sequence (`55 55 00…`,
/// UM0701 §7.2.11 / the C106 application note) and any line noise, looking for the start code
/// `00 FF`. A frame is yielded as soon as its DCS checks; the postamble is consumed if present.
public struct PN532FrameDecoder: Sendable {
    private enum State: Sendable {
        case idle(sawZero: Bool)
        case length
        case lengthChecksum(length: UInt8)
        case extendedHigh
        case extendedLow(high: UInt8)
        case extendedChecksum(high: UInt8, low: UInt8)
        case body(remaining: Int)
        case dataChecksum
        case postamble
    }

    private var state: State = .idle(sawZero: false)
    private var body: [UInt8] = []
    private var sum: UInt8 = 0
    private var offset = 0
    private var pending: PN532Frame?
    private let strict: Bool

    /// Bytes skipped outside frames that were neither preamble `00` nor wake-up `55`.
    public private(set) var noiseByteCount = 0

    /// Creates a decoder. `strict` refuses noise before a start code and a missing postamble
    /// (used by ``PN532Frame/parse(_:)``); the live link is lenient, as the chip is.
    public init(strict: Bool = false) {
        self.strict = strict
    }

    /// Whether the decoder is between frames (no partial frame buffered).
    public var isIdle: Bool {
        if case .idle = state { return true }
        return false
    }

    /// Drops a partial frame and waits for the next start code (e.g. after the line was quiet
    /// too long in the middle of a frame: the sender gave up on it).
    /// - Returns: whether a partial frame was dropped.
    @discardableResult
    public mutating func reset() -> Bool {
        let hadPartialFrame = !isIdle
        state = .idle(sawZero: false)
        body = []
        pending = nil
        return hadPartialFrame
    }

    /// Feeds a chunk of bytes, returning every event they complete, in order.
    public mutating func feed<S: Sequence>(_ bytes: S) -> [PN532DecoderEvent] where S.Element == UInt8 {
        var events: [PN532DecoderEvent] = []
        for byte in bytes {
            if let event = feed(byte) { events.append(event) }
        }
        return events
    }

    /// Feeds one byte; returns the event it completes, if any.
    public mutating func feed(_ byte: UInt8) -> PN532DecoderEvent? {
        defer { offset += 1 }
        switch state {
        case .idle(let sawZero):
            if sawZero && byte == 0xFF {
                state = .length
            } else if byte == 0x00 {
                state = .idle(sawZero: true)
            } else {
                state = .idle(sawZero: false)
                if byte != 0x55 {
                    noiseByteCount += 1
                    if strict { return .error(PN532FrameError(.unexpectedByte, offset: offset)) }
                }
            }
            return nil
        case .length:
            state = .lengthChecksum(length: byte)
            return nil
        case .lengthChecksum(let length):
            switch (length, byte) {
            case (0x00, 0xFF): return finish(.ack)
            case (0xFF, 0x00): return finish(.nack)
            case (0xFF, 0xFF):
                state = .extendedHigh
                return nil
            default:
                guard length &+ byte == 0 else {
                    return fail(.lengthChecksumMismatch)
                }
                guard length > 0 else { return fail(.emptyFrame) }
                startBody(Int(length))
                return nil
            }
        case .extendedHigh:
            state = .extendedLow(high: byte)
            return nil
        case .extendedLow(let high):
            state = .extendedChecksum(high: high, low: byte)
            return nil
        case .extendedChecksum(let high, let low):
            guard high &+ low &+ byte == 0 else { return fail(.lengthChecksumMismatch) }
            let length = Int(high) << 8 | Int(low)
            guard length > 0 else { return fail(.emptyFrame) }
            guard length <= PN532Frame.maximumInformationLength else { return fail(.lengthTooLong) }
            startBody(length)
            return nil
        case .body(let remaining):
            body.append(byte)
            sum = sum &+ byte
            state = remaining > 1 ? .body(remaining: remaining - 1) : .dataChecksum
            return nil
        case .dataChecksum:
            guard sum &+ byte == 0 else { return fail(.dataChecksumMismatch) }
            let tfi = body[0]
            let frame: PN532Frame = (tfi == PN532Frame.errorFrameIdentifier && body.count == 1)
                ? .error : .information(tfi: tfi, data: Array(body.dropFirst()))
            body = []
            return finish(frame)
        case .postamble:
            if strict {
                state = .idle(sawZero: false)
                guard byte == 0x00, let frame = pending else {
                    pending = nil
                    return .error(PN532FrameError(.missingPostamble, offset: offset))
                }
                pending = nil
                return .frame(frame)
            }
            state = .idle(sawZero: byte == 0x00)
            if byte != 0x00 && byte != 0x55 { noiseByteCount += 1 }
            return nil
        }
    }

    private mutating func startBody(_ length: Int) {
        body = []
        body.reserveCapacity(length)
        sum = 0
        state = .body(remaining: length)
    }

    private mutating func finish(_ frame: PN532Frame) -> PN532DecoderEvent? {
        if strict {
            // A strict parse yields the frame only once its postamble arrived.
            pending = frame
            state = .postamble
            return nil
        }
        state = .postamble
        return .frame(frame)
    }

    private mutating func fail(_ code: PN532FrameError.Code) -> PN532DecoderEvent {
        body = []
        state = .idle(sawZero: false)
        return .error(PN532FrameError(code, offset: offset))
    }
}
