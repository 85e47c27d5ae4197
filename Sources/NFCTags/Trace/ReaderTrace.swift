public import NFCCore

/// A recording of everything a program asked a reader and what the reader answered, at the
/// ``NFCReader`` seam: the header (which reader, which versions) then one event per call, in
/// order. Written as JSON lines by a ``RecordingReader`` (`nfctool --trace FILE`), played back by
/// a ``ReplayReader`` (`--device replay:FILE`); the format is docs/traces.md's.
public struct ReaderTrace: Sendable, Hashable {
    /// The first line: the reader and the software that recorded it.
    public var header: ReaderTraceHeader
    /// Every call, oldest first; ``ReaderTraceEvent/number`` counts from 1.
    public var events: [ReaderTraceEvent]

    /// A trace of `events` under `header`.
    public init(header: ReaderTraceHeader, events: [ReaderTraceEvent]) {
        self.header = header
        self.events = events
    }
}

/// The first line of a trace: what recorded it, with which reader. Fields a reader cannot say
/// are nil (`null` in the file).
public struct ReaderTraceHeader: Sendable, Hashable {
    /// The `format` value of every trace: `nfckit-reader-trace`.
    public static let formatName = "nfckit-reader-trace"
    /// The version this code writes, and the newest it reads: 1. A reader refuses a higher
    /// version (docs/traces.md, "Versioning").
    public static let currentVersion = 1

    /// The format version of the file.
    public var version: Int
    /// The program and its version (`nfctool 0.1.0`).
    public var tool: String
    /// The connection string the reader was opened with (`pn532_uart:/dev/pts/3`).
    public var connection: String
    /// The reader's name (libnfc's device name, the PC/SC reader name).
    public var reader: String
    /// The reader's firmware, where the reader reports it.
    public var firmware: String?
    /// The PC/SC profile chosen for the reader (docs/hardware.md), for PC/SC readers.
    public var profile: String?
    /// libnfc's version, for libnfc readers.
    public var libnfcVersion: String?
    /// pcsc-lite's version, for PC/SC readers, where known.
    public var pcscLiteVersion: String?
    /// The modulations the reader could poll with.
    public var modulations: [Modulation]
    /// ``NFCReader/listsSeveralTargets``.
    public var listsSeveralTargets: Bool
    /// ``NFCReader/feedback``.
    public var feedback: String?
    /// Whether secrets were redacted (``ReaderTraceRedactor``); false for `--trace-unredacted`.
    public var redacted: Bool

    /// A header; the version is ``currentVersion``.
    public init(
        tool: String, connection: String, reader: String, firmware: String? = nil, profile: String? = nil,
        libnfcVersion: String? = nil, pcscLiteVersion: String? = nil, modulations: [Modulation],
        listsSeveralTargets: Bool, feedback: String? = nil, redacted: Bool
    ) {
        version = Self.currentVersion
        self.tool = tool
        self.connection = connection
        self.reader = reader
        self.firmware = firmware
        self.profile = profile
        self.libnfcVersion = libnfcVersion
        self.pcscLiteVersion = pcscLiteVersion
        self.modulations = modulations
        self.listsSeveralTargets = listsSeveralTargets
        self.feedback = feedback
        self.redacted = redacted
    }
}

/// Bytes of a trace where some may be redacted: a redacted byte is nil, written `**` in the
/// file. A redacted command matches any byte in that place on replay; a redacted answer byte is
/// replayed as `00`.
public struct TraceBytes: Sendable, Hashable, CustomStringConvertible {
    /// The bytes, nil where redacted.
    public var values: [UInt8?]

    /// Bytes with nothing redacted.
    public init(_ bytes: some Sequence<UInt8>) { values = bytes.map { Optional($0) } }
    /// Bytes as given, nil where redacted.
    public init(values: [UInt8?]) { self.values = values }

    /// Whether any byte is redacted.
    public var isRedacted: Bool { values.contains(nil) }
    /// The bytes with each redacted one as `00`.
    public var bytes: Bytes { Bytes(values.map { $0 ?? 0 }) }

    /// Whether `sent` is these bytes: the same length, the same byte wherever this one is not
    /// redacted.
    public func matches(_ sent: Bytes) -> Bool {
        guard sent.count == values.count else { return false }
        return zip(values, sent).allSatisfy { recorded, byte in recorded.map { $0 == byte } ?? true }
    }

    /// Redacts bytes `range` (clamped to the bytes there are).
    public mutating func redact(_ range: Range<Int>) {
        let clamped = range.clamped(to: 0..<values.count)
        for index in clamped { values[index] = nil }
    }

    /// Uppercase hex, two digits a byte, `**` for a redacted byte, no separator (`1B********`).
    public var hex: String {
        var out = ""
        out.reserveCapacity(values.count * 2)
        for value in values {
            if let value { out += Hex.number(value, width: 2) } else { out += "**" }
        }
        return out
    }

    /// Spaced hex, for messages (`1B ** ** ** **`).
    public var description: String {
        values.map { $0.map { Hex.number($0, width: 2) } ?? "**" }.joined(separator: " ")
    }

    /// Parses ``hex``'s form: pairs of hex digits or `**`.
    /// - Returns: nil for an odd length or a character that is neither.
    public init?(hex text: String) {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var values: [UInt8?] = []
        values.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            let (high, low) = (utf8[index], utf8[index + 1])
            if high == UInt8(ascii: "*") && low == UInt8(ascii: "*") {
                values.append(nil)
            } else if let h = hexDigit(high), let l = hexDigit(low) {
                values.append(h << 4 | l)
            } else {
                return nil
            }
            index += 2
        }
        self.values = values
    }
}

/// What a program asked the reader: one case per call of ``NFCReader`` a trace records.
public enum ReaderTraceRequest: Sendable, Hashable {
    /// ``NFCReader/poll(for:timeout:)`` (the timeout is not recorded: it is the caller's).
    case poll([Modulation])
    /// ``NFCReader/transceive(_:mode:timeout:)``.
    case transceive(TraceBytes, TransceiveMode)
    /// ``NFCReader/transceiveUnselected(_:timeout:)``: an ISO 15693 frame to whatever chip is in
    /// the field (an ICODE chip in privacy mode).
    case transceiveUnselected(TraceBytes)
    /// ``NFCReader/authenticateClassic(block:keyType:key:uid:)``; the key redacted by default.
    case authenticateClassic(block: UInt8, keyType: ClassicKeyType, key: TraceBytes, uid: Bytes)
    /// ``NFCReader/isTargetPresent()``.
    case isTargetPresent
    /// ``NFCReader/waitForRemoval(timeout:checkInterval:)``.
    case waitForRemoval
    /// ``NFCReader/listTargets(for:limit:timeout:)``.
    case listTargets([Modulation], limit: Int)
    /// ``NFCReader/listTargets(alongside:limit:)``.
    case listTargetsAlongside(TargetInfo, limit: Int)
    /// ``NFCReader/select(_:)``.
    case select(TargetInfo)
    /// ``NFCReader/deselect()``.
    case deselect
    /// ``NFCReader/signal(_:)``.
    case signal(ReaderSignal)
    /// ``NFCReader/checkCanSend(_:mode:)``.
    case checkCanSend(TraceBytes, TransceiveMode)
    /// ``NFCReader/unsupportedCardReason``.
    case unsupportedCardReason

    /// The call's name in the file (`"call"`) and in messages.
    public var callName: String {
        switch self {
        case .poll: "poll"
        case .transceive: "transceive"
        case .transceiveUnselected: "transceiveUnselected"
        case .authenticateClassic: "authenticateClassic"
        case .isTargetPresent: "isTargetPresent"
        case .waitForRemoval: "waitForRemoval"
        case .listTargets: "listTargets"
        case .listTargetsAlongside: "listTargetsAlongside"
        case .select: "select"
        case .deselect: "deselect"
        case .signal: "signal"
        case .checkCanSend: "checkCanSend"
        case .unsupportedCardReason: "unsupportedCardReason"
        }
    }

    /// Whether `sent`, a request made on replay, is this recorded one: the same call with the
    /// same arguments, a redacted byte matching any byte.
    public func matches(_ sent: ReaderTraceRequest) -> Bool {
        switch (self, sent) {
        case (.transceive(let recorded, let mode), .transceive(let command, let sentMode)),
             (.checkCanSend(let recorded, let mode), .checkCanSend(let command, let sentMode)):
            return mode == sentMode && !command.isRedacted && recorded.matches(command.bytes)
        case (.transceiveUnselected(let recorded), .transceiveUnselected(let frame)):
            return !frame.isRedacted && recorded.matches(frame.bytes)
        case (.authenticateClassic(let block, let keyType, let key, let uid), .authenticateClassic(let b, let k, let sentKey, let u)):
            return block == b && keyType == k && uid == u && !sentKey.isRedacted && key.matches(sentKey.bytes)
        default:
            return self == sent
        }
    }

    /// A short human form for messages: `transceive 30 04`, `poll iso14443a,felica212`.
    public var summary: String {
        switch self {
        case .poll(let modulations): "poll \(modulations.map(\.rawValue).joined(separator: ","))"
        case .transceive(let command, let mode): "\(mode == .raw ? "raw " : "")\(command)"
        case .transceiveUnselected(let frame): "unselected \(frame)"
        case .authenticateClassic(let block, let keyType, let key, _):
            "authenticate block \(block) with key \(keyType == .a ? "A" : "B") \(key)"
        case .listTargets(let modulations, let limit): "listTargets \(modulations.map(\.rawValue).joined(separator: ",")) limit \(limit)"
        case .listTargetsAlongside(let target, let limit): "listTargetsAlongside \(Hex.encode(target.identifier, uppercase: true)) limit \(limit)"
        case .select(let target): "select \(Hex.encode(target.identifier, uppercase: true))"
        case .signal(let signal): "signal \(signal.rawValue)"
        case .checkCanSend(let command, let mode): "checkCanSend \(mode == .raw ? "raw " : "")\(command)"
        case .isTargetPresent, .waitForRemoval, .deselect, .unsupportedCardReason: callName
        }
    }
}

/// What the reader answered a ``ReaderTraceRequest``.
public enum ReaderTraceResult: Sendable, Hashable {
    /// Done, with nothing to give back (an authentication, a selection, `checkCanSend`).
    case done
    /// A poll's tag, nil when none came.
    case found(TargetInfo?)
    /// An exchange's answer.
    case answer(TraceBytes)
    /// ``NFCReader/isTargetPresent()``'s answer.
    case present(Bool)
    /// How ``NFCReader/waitForRemoval(timeout:checkInterval:)`` ended.
    case removal(RemovalResult)
    /// The tags listed.
    case targets([TargetInfo])
    /// Whether ``NFCReader/signal(_:)`` sent anything.
    case sent(Bool)
    /// ``NFCReader/unsupportedCardReason``'s answer.
    case reason(String?)
    /// The error the reader threw.
    case failed(NFCReaderDeviceError)
}

/// One call of a trace: its number (from 1), what was asked, what came back and how long the
/// reader took.
public struct ReaderTraceEvent: Sendable, Hashable {
    /// Its place in the trace, counting from 1: "exchange N" in replay's messages.
    public var number: Int
    /// What was asked.
    public var request: ReaderTraceRequest
    /// What the reader answered.
    public var result: ReaderTraceResult
    /// How long the reader took, in microseconds.
    public var microseconds: Int

    /// An event.
    public init(number: Int, request: ReaderTraceRequest, result: ReaderTraceResult, microseconds: Int) {
        self.number = number
        self.request = request
        self.result = result
        self.microseconds = microseconds
    }
}

/// Why a trace file could not be read: the line (from 1) and the byte offset in it, a stable
/// ``code`` and a human ``reason``.
public struct ReaderTraceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, as a stable name.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// A line is not JSON (or not the JSON subset traces use).
        case syntax
        /// The first line is not a trace header (`format` is not `nfckit-reader-trace`).
        case notATrace
        /// The file's version is newer than this code reads.
        case unsupportedVersion
        /// A field is missing, of the wrong type or out of range.
        case invalidField
        /// An event's number is not the one after the last.
        case outOfOrder
        /// The file is empty, or holds more than the reader's limits.
        case size
    }

    /// The stable code.
    public var code: Code
    /// The line, counting from 1.
    public var line: Int
    /// The byte offset in the line (0 for the start).
    public var offset: Int
    /// A human explanation.
    public var reason: String

    /// An error at `line`, byte `offset`.
    public init(_ code: Code, line: Int, offset: Int = 0, _ reason: String) {
        self.code = code
        self.line = line
        self.offset = offset
        self.reason = reason
    }

    /// "line L, offset O: reason".
    public var description: String { "line \(line), offset \(offset): \(reason)" }
}
