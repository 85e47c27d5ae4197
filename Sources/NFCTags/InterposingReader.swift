public import NFCCore

/// What a reader wrapped in an ``InterposingReader`` does around the calls it takes over: polls,
/// exchanges and Classic authentications, and (for an interposer that ``observesCalls``) every
/// call with its outcome and duration. Its state lives inside the wrapping actor, so its methods
/// are synchronous; every other call of ``NFCReader`` goes to the base reader as is.
///
/// ``CommandTrace`` (``TracingReader``) records each command; ``WritePlan``
/// (``PlanningReader``) holds write-class commands back; ``ReaderTraceRecording``
/// (``RecordingReader``) writes every call to a trace file.
public protocol ReaderInterposer: Sendable {
    /// After the base reader polled: what it found (nil: nothing). Not called when it threw.
    mutating func polled(_ found: TargetInfo?)
    /// Before an exchange: the answer to give without sending `command`, or nil to send it to
    /// the base reader.
    mutating func answer(_ command: Bytes, mode: TransceiveMode) -> Bytes?
    /// After the base reader exchanged `command`: its answer or error; returns the outcome to
    /// give the caller.
    mutating func exchanged(
        _ command: Bytes, mode: TransceiveMode, outcome: Result<Bytes, NFCReaderDeviceError>
    ) -> Result<Bytes, NFCReaderDeviceError>
    /// After the base reader sent `frame` to whatever chip is in the field
    /// (``NFCReader/transceiveUnselected(_:timeout:)``): its answer or error, given to the caller
    /// as is. Such a frame is never held back or answered in the reader's place.
    mutating func exchangedUnselected(_ frame: Bytes, outcome: Result<Bytes, NFCReaderDeviceError>)
    /// After the base reader authenticated a MIFARE Classic block: whether it succeeded.
    mutating func authenticated(block: UInt8, keyType: ClassicKeyType, outcome: Result<Void, NFCReaderDeviceError>)

    /// Whether ``observed(_:result:elapsed:)`` wants every call (false by default: the calls
    /// are then not described at all, which costs nothing).
    static var observesCalls: Bool { get }
    /// After any call of ``NFCReader`` that reaches a reader or a tag (not `close`): what was
    /// asked (nothing redacted), what the caller got, and how long it took. Only called when
    /// ``observesCalls``.
    mutating func observed(_ request: ReaderTraceRequest, result: ReaderTraceResult, elapsed: Duration)
}

extension ReaderInterposer {
    /// Nothing.
    public mutating func exchangedUnselected(_ frame: Bytes, outcome: Result<Bytes, NFCReaderDeviceError>) {}
    /// False: calls are not observed.
    public static var observesCalls: Bool { false }
    /// Nothing.
    public mutating func observed(_ request: ReaderTraceRequest, result: ReaderTraceResult, elapsed: Duration) {}
}

/// A reader that passes everything on to another, its `Interposer` seeing (and, for exchanges,
/// possibly answering) polls, exchanges and Classic authentications on the way: the one place
/// where a wrapping reader forwards ``NFCReader``'s calls (``TracingReader``,
/// ``PlanningReader``, ``RecordingReader``). ``NFCReader/checkCanSend(_:mode:)`` is passed on
/// too, so a plan or a trace refuses what the base reader cannot carry, as the run itself would.
public actor InterposingReader<Interposer: ReaderInterposer>: NFCReader {
    /// The reader doing the work.
    public let base: any NFCReader
    /// The interposer and its state.
    var interposer: Interposer

    /// The base reader's name.
    public let name: String
    /// The base reader's connection string.
    public let connectionString: String
    /// The base reader's modulations.
    public let supportedModulations: [Modulation]

    /// Wraps `base`, with `interposer` around its polls, exchanges and authentications.
    public init(_ base: any NFCReader, interposer: Interposer) async {
        self.base = base
        self.interposer = interposer
        name = await base.name
        connectionString = await base.connectionString
        supportedModulations = await base.supportedModulations
    }

    /// Tells an observing interposer about a call that started at `start`.
    private func observe(
        _ request: @autoclosure () -> ReaderTraceRequest, _ result: @autoclosure () -> ReaderTraceResult,
        since start: ContinuousClock.Instant
    ) {
        guard Interposer.observesCalls else { return }
        interposer.observed(request(), result: result(), elapsed: ContinuousClock.now - start)
    }

    /// Runs `call` on the base reader and tells an observing interposer its outcome.
    private func observing<T>(
        _ request: @autoclosure () -> ReaderTraceRequest, result: (T) -> ReaderTraceResult,
        _ call: () async throws(NFCReaderDeviceError) -> T
    ) async throws(NFCReaderDeviceError) -> T {
        let start = ContinuousClock.now
        do {
            let value = try await call()
            observe(request(), result(value), since: start)
            return value
        } catch {
            observe(request(), .failed(error), since: start)
            throw error
        }
    }

    /// Passes on; the interposer sees what was found.
    public func poll(for modulations: [Modulation], timeout: Duration) async throws(NFCReaderDeviceError) -> TargetInfo? {
        let found = try await observing(.poll(modulations), result: { .found($0) }) { () async throws(NFCReaderDeviceError) in
            try await base.poll(for: modulations, timeout: timeout)
        }
        interposer.polled(found)
        return found
    }

    /// The interposer's answer, else passes on and gives the outcome as the interposer has it.
    public func transceive(_ command: Bytes, mode: TransceiveMode, timeout: Duration) async throws(NFCReaderDeviceError) -> Bytes {
        if let answer = interposer.answer(command, mode: mode) { return answer }
        let start = ContinuousClock.now
        let outcome: Result<Bytes, NFCReaderDeviceError>
        do { outcome = .success(try await base.transceive(command, mode: mode, timeout: timeout)) } catch { outcome = .failure(error) }
        let given = interposer.exchanged(command, mode: mode, outcome: outcome)
        switch given {
        case .success(let answer): observe(.transceive(TraceBytes(command), mode), .answer(TraceBytes(answer)), since: start)
        case .failure(let error): observe(.transceive(TraceBytes(command), mode), .failed(error), since: start)
        }
        return try given.get()
    }

    /// Passes on; the interposer sees the outcome (it cannot answer in the reader's place: the
    /// frame goes to no selected tag).
    public func transceiveUnselected(_ frame: Bytes, timeout: Duration) async throws(NFCReaderDeviceError) -> Bytes {
        let start = ContinuousClock.now
        let outcome: Result<Bytes, NFCReaderDeviceError>
        do { outcome = .success(try await base.transceiveUnselected(frame, timeout: timeout)) } catch { outcome = .failure(error) }
        interposer.exchangedUnselected(frame, outcome: outcome)
        switch outcome {
        case .success(let answer): observe(.transceiveUnselected(TraceBytes(frame)), .answer(TraceBytes(answer)), since: start)
        case .failure(let error): observe(.transceiveUnselected(TraceBytes(frame)), .failed(error), since: start)
        }
        return try outcome.get()
    }

    /// Passes on; the interposer sees the outcome.
    public func authenticateClassic(block: UInt8, keyType: ClassicKeyType, key: Bytes, uid: Bytes) async throws(NFCReaderDeviceError) {
        let start = ContinuousClock.now
        let outcome: Result<Void, NFCReaderDeviceError>
        do { outcome = .success(try await base.authenticateClassic(block: block, keyType: keyType, key: key, uid: uid)) } catch {
            outcome = .failure(error)
        }
        interposer.authenticated(block: block, keyType: keyType, outcome: outcome)
        let request = ReaderTraceRequest.authenticateClassic(block: block, keyType: keyType, key: TraceBytes(key), uid: uid)
        switch outcome {
        case .success: observe(request, .done, since: start)
        case .failure(let error): observe(request, .failed(error), since: start)
        }
        try outcome.get()
    }

    /// Passes on: whether the base reader can carry `command` (sends nothing).
    public func checkCanSend(_ command: Bytes, mode: TransceiveMode) async throws(NFCReaderDeviceError) {
        try await observing(.checkCanSend(TraceBytes(command), mode), result: { .done }) { () async throws(NFCReaderDeviceError) in
            try await base.checkCanSend(command, mode: mode)
        }
    }

    /// Passes on.
    public func isTargetPresent() async -> Bool {
        let start = ContinuousClock.now
        let present = await base.isTargetPresent()
        observe(.isTargetPresent, .present(present), since: start)
        return present
    }
    /// Passes on: the base reader waits its own way (events on PC/SC).
    public func waitForRemoval(timeout: Duration, checkInterval: Duration) async -> RemovalResult {
        let start = ContinuousClock.now
        let removal = await base.waitForRemoval(timeout: timeout, checkInterval: checkInterval)
        observe(.waitForRemoval, .removal(removal), since: start)
        return removal
    }
    /// The base reader's.
    public nonisolated var listsSeveralTargets: Bool { base.listsSeveralTargets }

    /// The base reader's.
    public var unsupportedCardReason: String? {
        get async {
            let start = ContinuousClock.now
            let reason = await base.unsupportedCardReason
            observe(.unsupportedCardReason, .reason(reason), since: start)
            return reason
        }
    }

    /// Passes on: the base reader lists the tags in its field its own way.
    public func listTargets(for modulations: [Modulation], limit: Int, timeout: Duration) async throws(NFCReaderDeviceError) -> [TargetInfo] {
        try await observing(.listTargets(modulations, limit: limit), result: { .targets($0) }) { () async throws(NFCReaderDeviceError) in
            try await base.listTargets(for: modulations, limit: limit, timeout: timeout)
        }
    }
    /// Passes on: the base reader lists the field from the tag it has selected.
    public func listTargets(alongside selected: TargetInfo, limit: Int) async throws(NFCReaderDeviceError) -> [TargetInfo] {
        try await observing(.listTargetsAlongside(selected, limit: limit), result: { .targets($0) }) { () async throws(NFCReaderDeviceError) in
            try await base.listTargets(alongside: selected, limit: limit)
        }
    }
    /// Passes on: the base reader selects one tag of those it listed.
    public func select(_ target: TargetInfo) async throws(NFCReaderDeviceError) {
        try await observing(.select(target), result: { .done }) { () async throws(NFCReaderDeviceError) in
            try await base.select(target)
        }
    }
    /// The base reader's.
    public nonisolated var feedback: String? { base.feedback }
    /// Passes on: the base reader's beep and LED.
    public func signal(_ outcome: ReaderSignal) async throws(NFCReaderDeviceError) -> Bool {
        try await observing(.signal(outcome), result: { .sent($0) }) { () async throws(NFCReaderDeviceError) in
            try await base.signal(outcome)
        }
    }
    /// Passes on.
    public func deselect() async throws(NFCReaderDeviceError) {
        try await observing(.deselect, result: { .done }) { () async throws(NFCReaderDeviceError) in
            try await base.deselect()
        }
    }
    /// Passes on.
    public func close() async { await base.close() }
}
