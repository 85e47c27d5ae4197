public import NFCCore

/// A reader that answers from a ``ReaderTrace`` instead of a tag (`--device replay:FILE`): each
/// call must be the trace's next one, with the same arguments (a redacted byte matches any
/// byte), and gets the recorded answer or error at once; polls give the recorded target.
///
/// A call that differs stops the replay: it and every later call throw
/// ``NFCReaderDeviceError/Code/io`` with the ``divergence`` ("diverged at exchange N: sent …,
/// trace has …"), which the program checks when it ends, since an operation may have caught
/// the error and gone on. Past the trace's end, a poll finds nothing (after its timeout, so a
/// waiting loop ends as it would on a quiet reader) and any other call diverges.
///
/// A replay that ends with events left (the command did not need them) says so in
/// ``unusedRemainder``.
///
/// Its name, connection string, modulations and feedback are the recorded reader's, so a
/// command's output is the same as when it was recorded.
public actor ReplayReader: NFCReader {
    /// The trace played.
    public nonisolated let trace: ReaderTrace
    /// The recorded reader's name.
    public let name: String
    /// The recorded reader's connection string.
    public let connectionString: String
    /// The recorded reader's modulations.
    public let supportedModulations: [Modulation]
    /// The recorded reader's.
    public nonisolated let listsSeveralTargets: Bool
    /// The recorded reader's.
    public nonisolated let feedback: String?

    /// The index of the next event to play.
    public private(set) var position = 0
    /// Why the replay stopped, once a call differed from the trace; nil while it follows it.
    public private(set) var divergence: String?
    private var closed = false

    /// A reader playing `trace` from its first event.
    public init(_ trace: ReaderTrace) {
        self.trace = trace
        name = trace.header.reader
        connectionString = trace.header.connection
        supportedModulations = trace.header.modulations
        listsSeveralTargets = trace.header.listsSeveralTargets
        feedback = trace.header.feedback
    }

    /// Whether every event of the trace has been played.
    public var isAtEnd: Bool { position >= trace.events.count }

    /// What to say when the replay ends with events of the trace not played: "replay ended at
    /// exchange N of M: the rest of the trace was not used" (N the last event played, 0 when
    /// none was); nil when every event was played, and after a divergence (which says more).
    /// The answers left over were never handled, so a replay that stops short checks less
    /// than its trace holds: nfctool warns, a fixture test fails.
    public var unusedRemainder: String? {
        guard divergence == nil, !isAtEnd else { return nil }
        return Self.unusedRemainder(played: position, of: trace.events.count)
    }

    /// "replay ended at exchange `played` of `count`: the rest of the trace was not used".
    public static func unusedRemainder(played: Int, of count: Int) -> String {
        "replay ended at exchange \(played) of \(count): the rest of the trace was not used"
    }

    /// The next event's result for `request`.
    /// - Throws: ``NFCReaderDeviceError/Code/closed`` after ``close()``; `io` with the
    ///   divergence when `request` is not the trace's next call.
    private func take(_ request: ReaderTraceRequest) throws(NFCReaderDeviceError) -> ReaderTraceResult {
        guard !closed else { throw NFCReaderDeviceError(.closed, "the replay reader is closed") }
        if let divergence { throw NFCReaderDeviceError(.io, divergence) }
        guard position < trace.events.count else {
            try diverge(ReaderTrace.divergence(at: trace.events.count + 1, sent: request, traceHas: "no more exchanges"))
        }
        let event = trace.events[position]
        guard event.request.matches(request) else {
            try diverge(ReaderTrace.divergence(at: event.number, sent: request, traceHas: event.request.summary))
        }
        position += 1
        return event.result
    }

    private func diverge(_ message: String) throws(NFCReaderDeviceError) -> Never {
        divergence = message
        throw NFCReaderDeviceError(.io, message)
    }

    private func mismatch(_ result: ReaderTraceResult, _ request: ReaderTraceRequest) throws(NFCReaderDeviceError) -> Never {
        try diverge("diverged at exchange \(position): the trace's result of \(request.callName) does not fit the call")
    }

    /// The recorded target (nil: none came); past the end, nil after `timeout`.
    public func poll(for modulations: [Modulation], timeout: Duration) async throws(NFCReaderDeviceError) -> TargetInfo? {
        if !closed, divergence == nil, isAtEnd {
            try? await Task.sleep(for: timeout)
            return nil
        }
        let request = ReaderTraceRequest.poll(modulations)
        switch try take(request) {
        case .found(let target): return target
        case .failed(let error): throw error
        case let other: try mismatch(other, request)
        }
    }

    /// The recorded answer (a redacted byte as `00`) or error.
    public func transceive(_ command: Bytes, mode: TransceiveMode, timeout: Duration) async throws(NFCReaderDeviceError) -> Bytes {
        let request = ReaderTraceRequest.transceive(TraceBytes(command), mode)
        switch try take(request) {
        case .answer(let answer): return answer.bytes
        case .failed(let error): throw error
        case let other: try mismatch(other, request)
        }
    }

    /// The recorded answer (a redacted byte as `00`) or error, as for
    /// ``transceive(_:mode:timeout:)``.
    public func transceiveUnselected(_ frame: Bytes, timeout: Duration) async throws(NFCReaderDeviceError) -> Bytes {
        let request = ReaderTraceRequest.transceiveUnselected(TraceBytes(frame))
        switch try take(request) {
        case .answer(let answer): return answer.bytes
        case .failed(let error): throw error
        case let other: try mismatch(other, request)
        }
    }

    /// The recorded outcome.
    public func authenticateClassic(block: UInt8, keyType: ClassicKeyType, key: Bytes, uid: Bytes) async throws(NFCReaderDeviceError) {
        try done(.authenticateClassic(block: block, keyType: keyType, key: TraceBytes(key), uid: uid))
    }

    /// The recorded outcome.
    public func checkCanSend(_ command: Bytes, mode: TransceiveMode) async throws(NFCReaderDeviceError) {
        try done(.checkCanSend(TraceBytes(command), mode))
    }

    private func done(_ request: ReaderTraceRequest) throws(NFCReaderDeviceError) {
        switch try take(request) {
        case .done: return
        case .failed(let error): throw error
        case let other: try mismatch(other, request)
        }
    }

    /// The recorded answer; false once the replay has stopped.
    public func isTargetPresent() async -> Bool {
        guard case .present(let present)? = try? take(.isTargetPresent) else { return false }
        return present
    }

    /// The recorded outcome; cancelled once the replay has stopped.
    public func waitForRemoval(timeout: Duration, checkInterval: Duration) async -> RemovalResult {
        guard case .removal(let removal)? = try? take(.waitForRemoval) else { return .cancelled }
        return removal
    }

    /// The recorded answer; once the replay has stopped, the divergence.
    public var unsupportedCardReason: String? {
        get async {
            do {
                guard case .reason(let reason) = try take(.unsupportedCardReason) else { return divergence }
                return reason
            } catch {
                return error.reason
            }
        }
    }

    /// The recorded tags.
    public func listTargets(for modulations: [Modulation], limit: Int, timeout: Duration) async throws(NFCReaderDeviceError) -> [TargetInfo] {
        try targets(.listTargets(modulations, limit: limit))
    }

    /// The recorded tags.
    public func listTargets(alongside selected: TargetInfo, limit: Int) async throws(NFCReaderDeviceError) -> [TargetInfo] {
        try targets(.listTargetsAlongside(selected, limit: limit))
    }

    private func targets(_ request: ReaderTraceRequest) throws(NFCReaderDeviceError) -> [TargetInfo] {
        switch try take(request) {
        case .targets(let targets): return targets
        case .failed(let error): throw error
        case let other: try mismatch(other, request)
        }
    }

    /// The recorded outcome.
    public func select(_ target: TargetInfo) async throws(NFCReaderDeviceError) { try done(.select(target)) }

    /// The recorded outcome.
    public func signal(_ outcome: ReaderSignal) async throws(NFCReaderDeviceError) -> Bool {
        let request = ReaderTraceRequest.signal(outcome)
        switch try take(request) {
        case .sent(let sent): return sent
        case .failed(let error): throw error
        case let other: try mismatch(other, request)
        }
    }

    /// The recorded outcome.
    public func deselect() async throws(NFCReaderDeviceError) { try done(.deselect) }

    /// Every later call fails with `closed`.
    public func close() async { closed = true }
}
