public import NFCCore
public import NFCTags
import LibNFC

/// A card emulation session: the reader acts as an ISO/IEC 14443-4 card for external readers
/// (phones, door readers), as CoreNFC's `CardSession` does, over libnfc target mode.
///
/// ```swift
/// let session = try await NFCCardSession.start(connection: "pn532_uart:/dev/ttyUSB0")
/// var tag = try EmulatedType4Tag(message: message)
/// for await event in session.events {
///     switch event {
///     case .received(let apdu): try await apdu.respond(tag.respond(to: apdu.payload))
///     case .readerDeselected: await session.invalidate()
///     default: break
///     }
/// }
/// ```
///
/// The session waits for a reader (``Event/readerDetected``), reports each command
/// (``Event/received(_:)``) and waits for its ``APDU/respond(_:)`` before taking the next, reports
/// ``Event/readerDeselected`` when the reader leaves, then waits for the next reader. It ends
/// with ``Event/sessionInvalidated(_:)`` — after ``invalidate()`` (reason
/// ``NFCReaderError/Code/userCanceled``), the timeout with no reader in the field
/// (``NFCReaderError/Code/sessionTimeout``) or a reader failure — and the stream
/// finishes. Only PN53x readers driven by libnfc have target mode; ``start(connection:identity:timeout:)``
/// refuses the simulator and other readers with ``NFCReaderError/Code/unsupportedFeature``.
public actor NFCCardSession {
    /// What the session reports.
    public enum Event: Sendable {
        /// An external reader activated the emulated card.
        case readerDetected
        /// The reader sent a command; answer it with ``APDU/respond(_:)``.
        case received(APDU)
        /// The reader released the card or left the field.
        case readerDeselected
        /// The session ended, for this reason; no event follows.
        case sessionInvalidated(NFCReaderError)
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
    }

    /// The events, in order; the stream finishes after ``Event/sessionInvalidated(_:)``.
    public nonisolated let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation
    private let emulator: any NFCCardEmulator
    private let identity: EmulatedCardIdentity
    private let timeout: Duration
    private var driver: Task<Void, Never>?
    private var responded: CheckedContinuation<Void, Never>?
    private var invalidated = false
    /// How many commands were received; the one with this number waits for its answer.
    private var commandNumber = 0

    /// How long the session waits for each command of a reader in the field before it counts
    /// the reader as gone.
    public static let commandTimeout: Duration = .seconds(5)
    /// How long one wait in target mode lasts before the session checks whether it was
    /// invalidated.
    static let waitSlice: Duration = .seconds(1)

    private let lease: ReaderLease.Key

    private init(emulator: any NFCCardEmulator, identity: EmulatedCardIdentity, timeout: Duration, lease: ReaderLease.Key) {
        self.lease = lease
        (events, continuation) = AsyncStream.makeStream(of: Event.self)
        self.emulator = emulator
        self.identity = identity
        self.timeout = timeout
    }

    /// Opens the reader `connection` names and starts waiting for external readers, as
    /// `identity` (an NFC Forum Type 4 tag by default); `timeout` bounds the wait for a reader.
    /// - Throws: ``NFCReaderError`` `unsupportedFeature` for a reader without target mode
    ///   (the simulator `sim:`, non-PN53x readers), `readerUnavailable` when it cannot be opened.
    public static func start(
        connection: String?, identity: EmulatedCardIdentity = .type4Tag, timeout: Duration = .seconds(60)
    ) async throws(NFCReaderError) -> NFCCardSession {
        let emulator: any NFCCardEmulator
        // One session at a time on a reader, whatever its kind and whichever process runs it.
        let lease = ReaderLease.Key.connection(connection ?? "default")
        guard ReaderLease.acquire(lease) else {
            throw NFCReaderError(.readerBusy, "the reader '\(connection ?? "default")' is in use by another session")
        }
        do {
            emulator = try await ReaderConnection.openCardEmulator(connection)
        } catch where error.code == .notSupported {
            ReaderLease.release(lease)
            throw NFCReaderError(.unsupportedFeature, error.reason, readerError: error)
        } catch {
            ReaderLease.release(lease)
            throw NFCReaderError(.readerUnavailable, "cannot open reader '\(connection ?? "default")': \(error.reason)", readerError: error)
        }
        let session = NFCCardSession(emulator: emulator, identity: identity, timeout: timeout, lease: lease)
        await session.begin()
        return session
    }

    private func begin() {
        driver = Task { await self.run() }
        // Whoever iterates ``events`` stopped (its task was cancelled): end the session.
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            Task { await self.invalidate() }
        }
    }

    /// Ends the session: target mode is left, the reader closed, and the stream finishes after
    /// ``Event/sessionInvalidated(_:)`` with ``NFCReaderError/Code/userCanceled``.
    public func invalidate() async {
        driver?.cancel()
        responded?.resume()
        responded = nil
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
            await exchange()
            guard !invalidated else { return }
            continuation.yield(.readerDeselected)
        }
    }

    /// Passes the reader's commands on until it leaves.
    private func exchange() async {
        while !invalidated {
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
        responded?.resume()
        responded = nil
        continuation.yield(.sessionInvalidated(reason))
        continuation.finish()
        await emulator.endEmulation()
        await emulator.close()
        ReaderLease.release(lease)
    }
}
