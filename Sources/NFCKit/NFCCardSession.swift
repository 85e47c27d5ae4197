public import NFCCore
public import NFCTags
import LibNFC
import PCSC
import Synchronization

/// A card emulation session: the reader acts as an ISO/IEC 14443-4 card for external readers
/// (phones, door readers), as CoreNFC's `CardSession` does, over libnfc target mode.
///
/// ```swift
/// guard await NFCCardSession.isSupported(connection: c), await NFCCardSession.isEligible(connection: c) else { return }
/// let session = try await NFCCardSession(connection: c)
/// var tag = try EmulatedType4Tag(message: message)
/// for await event in session.eventStream {
///     switch event {
///     case .sessionStarted: session.alertMessage = "Communicating with card reader."
///     case .readerDetected: try await session.startEmulation()
///     case .received(let apdu): try await apdu.respond(response: tag.respond(to: apdu.payload))
///     case .readerDeselected: await session.stopEmulation(status: .success)
///     case .sessionInvalidated: break
///     }
/// }
/// ```
///
/// The session reports ``Event/sessionStarted`` once the reader is open in target mode, then
/// waits for an external reader. ``Event/readerDetected`` comes when one activates the emulated
/// card (a PN53x answers anticollision and RATS itself in target mode: it cannot sense a field
/// without being a target). Emulation never starts by itself: the reader's commands are not
/// even fetched until the app calls ``startEmulation()``; then each comes as
/// ``Event/received(_:)`` and waits for its ``APDU/respond(_:)`` before the next is taken.
/// ``Event/readerDeselected`` comes when the reader leaves (or ``stopEmulation(status:)`` let go
/// of it); emulation stays on for the next reader until ``stopEmulation(status:)``. The session
/// ends with ``Event/sessionInvalidated(_:)`` — after ``invalidate()`` (reason
/// ``NFCReaderError/Code/userCanceled``), the timeout with no reader in the field
/// (``NFCReaderError/Code/sessionTimeout``) or a reader failure — and the stream finishes. Only
/// PN53x readers driven by libnfc have target mode; the simulator and other readers are refused
/// with ``NFCReaderError/Code/unsupportedFeature`` (``isSupported(connection:)`` says so first).
public actor NFCCardSession {
    /// What the session reports (CoreNFC's `CardSession.Event`).
    public enum Event: Sendable {
        /// The reader is open in target mode and the session waits for external readers.
        case sessionStarted
        /// An external reader activated the emulated card; call ``NFCCardSession/startEmulation()``
        /// for its commands to come.
        case readerDetected
        /// The reader sent a command; answer it with ``APDU/respond(_:)``.
        case received(APDU)
        /// The reader released the card or left the field.
        case readerDeselected
        /// The session ended, for this reason; no event follows.
        case sessionInvalidated(NFCReaderError)
    }

    /// How emulation ended, for the user (CoreNFC's `stopEmulation(status:)`).
    public enum EmulationStatus: Sendable, Hashable {
        /// The exchange did what it was for.
        case success
        /// It did not.
        case failure
    }

    /// One command from the external reader, to be answered once.
    public struct APDU: Sendable {
        /// The command APDU as received.
        public let payload: Bytes
        let session: NFCCardSession
        /// Which command of the session this is (from 1), so a late second answer is refused.
        let number: Int

        /// Sends the answer (response data then SW1 SW2) to the reader.
        /// - Throws: ``NFCReaderError`` `tagConnectionLost` when the reader is gone,
        ///   `sessionInvalidated` after the session ended.
        public func respond(_ response: Bytes) async throws(NFCReaderError) {
            try await session.send(response, answering: number)
        }

        /// CoreNFC's spelling of ``respond(_:)``.
        public func respond(response: Bytes) async throws(NFCReaderError) {
            try await respond(response)
        }
    }

    /// The events, in order; the stream finishes after ``Event/sessionInvalidated(_:)``.
    public nonisolated let events: AsyncStream<Event>
    /// CoreNFC's name of ``events``.
    public nonisolated var eventStream: AsyncStream<Event> { events }
    /// What a user should be told: ``alertMessage`` when it is set while the session runs.
    /// Finishes with the session.
    public nonisolated let prompts: AsyncStream<String>
    /// The message for the user while the session runs (CoreNFC's `alertMessage`); setting it
    /// sends it on ``prompts``.
    public nonisolated var alertMessage: String {
        get { alert.withLock { $0 } }
        set {
            alert.withLock { $0 = newValue }
            promptContinuation.yield(newValue)
        }
    }
    private nonisolated let alert = Mutex("")
    private let promptContinuation: AsyncStream<String>.Continuation
    private let continuation: AsyncStream<Event>.Continuation
    private let emulator: any NFCCardEmulator
    private let identity: EmulatedCardIdentity
    private let timeout: Duration
    private var driver: Task<Void, Never>?
    private var responded: CheckedContinuation<Void, Never>?
    /// A reader came while emulation was off: resumed by ``startEmulation()`` or the end.
    private var emulationStarted: CheckedContinuation<Void, Never>?
    private var invalidated = false
    /// How many commands were received; the one with this number waits for its answer.
    private var commandNumber = 0
    /// Whether the reader's commands are passed on (``startEmulation()`` until
    /// ``stopEmulation(status:)``): CoreNFC's `isEmulationInProgress`.
    public private(set) var isEmulationInProgress = false
    /// The status of the last ``stopEmulation(status:)``; nil before one.
    public private(set) var emulationStatus: EmulationStatus?

    /// How long the session waits for each command of a reader in the field before it counts
    /// the reader as gone.
    public static let commandTimeout: Duration = .seconds(5)
    /// How long one wait in target mode lasts before the session checks whether it was
    /// invalidated.
    static let waitSlice: Duration = .seconds(1)

    private let lease: ReaderLease.Key
    /// Whether ``lease`` is still this session's (until the session is invalidated).
    private var holdsLease = true

    /// A session nobody holds any more gives its reader back, invalidated or not.
    deinit {
        if holdsLease { ReaderLease.release(lease) }
    }

    /// Opens the reader `connection` names in target mode, as `identity` (an NFC Forum Type 4
    /// tag by default), and reports ``Event/sessionStarted`` (CoreNFC's `CardSession()`);
    /// `timeout` bounds the wait for a reader. Emulation starts with ``startEmulation()``.
    /// - Throws: ``NFCReaderError`` `unsupportedFeature` for a reader without target mode
    ///   (the simulator `sim:`, non-PN53x readers), `readerBusy` when another session holds it,
    ///   `readerUnavailable` when it cannot be opened.
    public init(
        connection: String?, identity: EmulatedCardIdentity = .type4Tag, timeout: Duration = .seconds(60)
    ) async throws(NFCReaderError) {
        // One session at a time on a reader, whatever its kind and whichever process runs it.
        let lease = ReaderLease.Key.connection(connection ?? "default")
        guard ReaderLease.acquire(lease) else {
            throw NFCReaderError(.readerBusy, "the reader '\(connection ?? "default")' is in use by another session")
        }
        let emulator: any NFCCardEmulator
        do {
            emulator = try await ReaderConnection.openCardEmulator(connection)
        } catch where error.code == .notSupported {
            ReaderLease.release(lease)
            throw NFCReaderError(.unsupportedFeature, error.reason, readerError: error)
        } catch {
            ReaderLease.release(lease)
            throw NFCReaderError(.readerUnavailable, "cannot open reader '\(connection ?? "default")': \(error.reason)", readerError: error)
        }
        guard await emulator.supportsTargetMode else {
            await emulator.close()
            ReaderLease.release(lease)
            throw NFCReaderError(.unsupportedFeature, "the reader '\(connection ?? "default")' has no ISO 14443-A target mode")
        }
        self.lease = lease
        (events, continuation) = AsyncStream.makeStream(of: Event.self)
        (prompts, promptContinuation) = AsyncStream.makeStream(of: String.self)
        self.emulator = emulator
        self.identity = identity
        self.timeout = timeout
        continuation.yield(.sessionStarted)
        driver = Task { await self.run() }
        // Whoever iterates ``events`` stopped (its task was cancelled): end the session.
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            Task { await self.invalidate() }
        }
    }

    /// ``init(connection:identity:timeout:)`` by its earlier name.
    public static func start(
        connection: String?, identity: EmulatedCardIdentity = .type4Tag, timeout: Duration = .seconds(60)
    ) async throws(NFCReaderError) -> NFCCardSession {
        try await NFCCardSession(connection: connection, identity: identity, timeout: timeout)
    }

    /// Whether the reader `connection` names can emulate a card (CoreNFC's
    /// `CardSession.isSupported`): a libnfc reader whose chip has ISO 14443-A target mode (a
    /// PN53x). The simulator and PC/SC readers cannot. The reader is opened to ask libnfc, unless
    /// another session holds it; then the answer comes from the driver in the connection string
    /// (`pn532_uart`, `pn532_spi`, `pn532_i2c`, `pn53x_usb`).
    public static func isSupported(connection: String?) async -> Bool {
        await eligibility(connection: connection).supported
    }

    /// Whether a card session can start on the reader `connection` names now (CoreNFC's
    /// `CardSession.isEligible`): it has target mode and no other session (of this process or
    /// another) holds it.
    public static func isEligible(connection: String?) async -> Bool {
        await eligibility(connection: connection).eligible
    }

    /// The libnfc drivers of PN53x chips, which have target mode.
    static let targetModeDrivers = ["pn532_uart", "pn532_spi", "pn532_i2c", "pn53x_usb"]

    private static func eligibility(connection: String?) async -> (supported: Bool, eligible: Bool) {
        let parsed = ReaderConnectionString(connection)
        let name = parsed.text
        if parsed.kind == .simulator || parsed.kind == .replay || parsed.kind == .pcsc { return (false, false) }
        let lease = ReaderLease.Key.connection(name)
        guard ReaderLease.acquire(lease) else {
            return (targetModeDrivers.contains { name.hasPrefix($0 + ":") }, false)
        }
        defer { ReaderLease.release(lease) }
        guard let emulator = try? await ReaderConnection.openCardEmulator(connection) else { return (false, false) }
        let supported = await emulator.supportsTargetMode
        await emulator.close()
        return (supported, supported)
    }

    /// Passes the commands of the reader in the field on, and of the readers that come later,
    /// until ``stopEmulation(status:)`` (CoreNFC's `startEmulation()`).
    /// - Throws: ``NFCReaderError/Code/readerTransceiveErrorSessionInvalidated`` after the session ended.
    public func startEmulation() async throws(NFCReaderError) {
        guard !invalidated else { throw NFCReaderError(.sessionInvalidated, "the session has ended") }
        isEmulationInProgress = true
        emulationStarted?.resume()
        emulationStarted = nil
    }

    /// Stops passing the readers' commands on and lets go of a reader in the field (it sees the
    /// card leave); `status` is kept in ``emulationStatus`` (CoreNFC's `stopEmulation(status:)`).
    /// The session goes on waiting for readers until invalidated; a reader that comes is reported
    /// but not served until ``startEmulation()``.
    public func stopEmulation(status: EmulationStatus) async {
        emulationStatus = status
        guard !invalidated, isEmulationInProgress else { return }
        isEmulationInProgress = false
    }

    /// Ends the session: target mode is left, the reader closed, and the stream finishes after
    /// ``Event/sessionInvalidated(_:)`` with ``NFCReaderError/Code/userCanceled``.
    public func invalidate() async {
        driver?.cancel()
        responded?.resume()
        responded = nil
        emulationStarted?.resume()
        emulationStarted = nil
        await finish(NFCReaderError(.userCanceled, "the session was invalidated"))
    }

    private func run() async {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while !invalidated && !Task.isCancelled {
            let left = deadline - clock.now
            guard left > .zero else {
                return await finish(NFCReaderError(.sessionTimeout, "no reader came within the session's timeout"))
            }
            let came: Bool
            do {
                came = try await emulator.waitForExternalReader(as: identity, timeout: min(left, Self.waitSlice))
            } catch where error.code == .notSupported {
                return await finish(NFCReaderError(.unsupportedFeature, error.reason, readerError: error))
            } catch {
                return await finish(NFCReaderError(.readerUnavailable, "target mode failed: \(error.reason)", readerError: error))
            }
            guard came, !invalidated else { continue }
            continuation.yield(.readerDetected)
            if !isEmulationInProgress {
                // Emulation does not start by itself: nothing is fetched from the reader until
                // startEmulation() (or the end of the session).
                await withCheckedContinuation { (waiting: CheckedContinuation<Void, Never>) in
                    emulationStarted = waiting
                }
            }
            guard !invalidated else { return }
            await exchange()
            guard !invalidated else { return }
            if !isEmulationInProgress { await emulator.endEmulation() }
            continuation.yield(.readerDeselected)
        }
    }

    /// Passes the reader's commands on until it leaves or emulation stops.
    private func exchange() async {
        while !invalidated && isEmulationInProgress {
            let command: Bytes
            do {
                command = try await emulator.receiveCommand(timeout: Self.commandTimeout)
            } catch {
                return
            }
            commandNumber += 1
            let number = commandNumber
            await withCheckedContinuation { (waiting: CheckedContinuation<Void, Never>) in
                responded = waiting
                continuation.yield(.received(APDU(payload: command, session: self, number: number)))
            }
        }
    }

    fileprivate func send(_ response: Bytes, answering number: Int) async throws(NFCReaderError) {
        guard !invalidated else { throw NFCReaderError(.sessionInvalidated, "the session has ended") }
        guard number == commandNumber, let waiting = responded else {
            throw NFCReaderError(.invalidParameter, "this command was answered already")
        }
        responded = nil
        defer { waiting.resume() }
        do {
            try await emulator.sendResponse(response, timeout: Self.commandTimeout)
        } catch {
            throw NFCReaderError(.tagConnectionLost, "the reader left before the answer: \(error.reason)", readerError: error)
        }
    }

    private func finish(_ reason: NFCReaderError) async {
        guard !invalidated else { return }
        invalidated = true
        isEmulationInProgress = false
        responded?.resume()
        responded = nil
        emulationStarted?.resume()
        emulationStarted = nil
        continuation.yield(.sessionInvalidated(reason))
        continuation.finish()
        promptContinuation.finish()
        await emulator.endEmulation()
        await emulator.close()
        ReaderLease.release(lease)
        holdsLease = false
    }
}
