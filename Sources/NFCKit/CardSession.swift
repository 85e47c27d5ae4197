public import Foundation
public import NFCTags

/// CoreNFC's `CardSession` (card emulation), in CoreNFC's shape over NFCKit's one implementation,
/// ``NFCCardSession``: `CardSession()` on libnfc's default reader, a synchronous ``isSupported``,
/// an async ``isEligible``, and APDUs as `Data`. On Linux a card session is libnfc target mode
/// on a PN53x reader: the reader answers an external reader (a phone, a door reader) as an
/// ISO/IEC 14443-4 card, and each command the external reader sends comes as
/// ``Event/received(_:)``.
///
/// What differs from CoreNFC: no system UI is shown (``alertMessage`` goes to
/// ``NFCCardSession/prompts``); ``Event/sessionInvalidated(reason:)`` carries an
/// ``NFCReaderError`` (CoreNFC's `CardSession.Error` has no Linux counterpart); and presentment
/// intent holds nothing (see ``NFCPresentmentIntentAssertion``).
public final class CardSession: Sendable {
    /// What the session reports (CoreNFC's `CardSession.Event`), in the order
    /// ``NFCCardSession/Event`` describes.
    public enum Event: Sendable {
        /// The reader is open in target mode and the session waits for external readers.
        case sessionStarted
        /// An external reader activated the emulated card; call ``CardSession/startEmulation()``
        /// for its commands to come.
        case readerDetected
        /// The external reader released the card or left the field.
        case readerDeselected
        /// The external reader sent a command; answer it with ``APDU/respond(response:)``.
        case received(APDU)
        /// The session ended, for this reason; no event follows.
        case sessionInvalidated(reason: NFCReaderError)
    }

    /// One command from the external reader, to be answered once (CoreNFC's `CardSession.APDU`).
    public struct APDU: Sendable {
        /// The command APDU as received (CoreNFC's `payload`).
        public let payload: Data
        /// The same command in NFCKit's spelling, answered by ``respond(response:)``.
        public let command: NFCCardSession.APDU

        /// Sends `response` (response data then SW1 SW2) to the external reader (CoreNFC's
        /// `respond(response:)`): ``NFCCardSession/APDU/respond(_:)``.
        /// - Throws: ``NFCReaderError`` `tagConnectionLost` when the reader is gone,
        ///   `sessionInvalidated` after the session ended, `invalidParameter` for a second answer.
        public func respond(response: Data) async throws(NFCReaderError) {
            try await command.respond(Bytes(response))
        }
    }

    /// How emulation ended, for the user (CoreNFC's `stopEmulation(status:)` argument).
    public typealias EmulationStatus = NFCCardSession.EmulationStatus

    /// The session doing the work.
    public let session: NFCCardSession
    /// The events, in order (CoreNFC's `eventStream`); it finishes after
    /// ``Event/sessionInvalidated(reason:)``. Iterate it once: a task that stops iterating
    /// (cancelled) ends the session, as with ``NFCCardSession/events``.
    public let eventStream: AsyncStream<Event>

    /// CoreNFC's `CardSession()`: a card session on libnfc's default reader
    /// (`LIBNFC_DEFAULT_DEVICE` or the first device found), emulating an NFC Forum Type 4 tag's
    /// identity; ``init(connection:identity:timeout:)`` with `nil`.
    /// - Throws: ``NFCReaderError``: `readerErrorUnsupportedFeature` for a reader without target
    ///   mode, `readerErrorUnavailable`/`readerBusy` when it cannot be opened or is in use.
    public convenience init() async throws(NFCReaderError) {
        try await self.init(connection: nil)
    }

    /// A card session on the reader `connection` names: ``NFCCardSession/init(connection:identity:timeout:)``.
    /// - Throws: as ``NFCCardSession/init(connection:identity:timeout:)``.
    public init(
        connection: String?, identity: EmulatedCardIdentity = .type4Tag, timeout: Duration = .seconds(60)
    ) async throws(NFCReaderError) {
        let session = try await NFCCardSession(connection: connection, identity: identity, timeout: timeout)
        self.session = session
        let events = session.events
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self)
        let forwarding = Task {
            for await event in events { continuation.yield(Self.event(event)) }
            continuation.finish()
        }
        // Stopping the iteration cancels the forwarding, which ends the session's own stream.
        continuation.onTermination = { _ in forwarding.cancel() }
        eventStream = stream
    }

    /// `event` in CoreNFC's shape.
    private static func event(_ event: NFCCardSession.Event) -> Event {
        switch event {
        case .sessionStarted: .sessionStarted
        case .readerDetected: .readerDetected
        case .readerDeselected: .readerDeselected
        case .received(let command): .received(APDU(payload: Data(command.payload.array), command: command))
        case .sessionInvalidated(let reason): .sessionInvalidated(reason: reason)
        }
    }

    /// CoreNFC's `CardSession.isSupported`: whether libnfc's default reader can emulate a card
    /// (a PN53x, with ISO 14443-A target mode), ``NFCCardSession/isSupported(connection:)`` for
    /// `nil` answered synchronously. It blocks the calling thread while the reader is opened and
    /// asked (the check runs on that thread, needing no free thread of the cooperative pool);
    /// async code should `await NFCCardSession.isSupported(connection:)` instead.
    public static var isSupported: Bool {
        CallerThreadTaskExecutor.run { await NFCCardSession.isSupported(connection: nil) }
    }

    /// CoreNFC's `CardSession.isEligible`: whether a card session can start on libnfc's default
    /// reader now (it has target mode and no other session holds it):
    /// ``NFCCardSession/isEligible(connection:)`` for `nil`.
    public static var isEligible: Bool {
        get async { await NFCCardSession.isEligible(connection: nil) }
    }

    /// The message for the user while the session runs (CoreNFC's `alertMessage`): no system UI
    /// shows it; it goes to ``NFCCardSession/prompts``.
    public var alertMessage: String {
        get { session.alertMessage }
        set { session.alertMessage = newValue }
    }

    /// Whether the external readers' commands are passed on (CoreNFC's `isEmulationInProgress`).
    public var isEmulationInProgress: Bool {
        get async { await session.isEmulationInProgress }
    }

    /// CoreNFC's `startEmulation()`: ``NFCCardSession/startEmulation()``.
    /// - Throws: ``NFCReaderError/Code/readerTransceiveErrorSessionInvalidated`` after the session ended.
    public func startEmulation() async throws(NFCReaderError) {
        try await session.startEmulation()
    }

    /// CoreNFC's `stopEmulation(status:)`: ``NFCCardSession/stopEmulation(status:)``.
    public func stopEmulation(status: EmulationStatus) async {
        await session.stopEmulation(status: status)
    }

    /// CoreNFC's `invalidate()`: ``NFCCardSession/invalidate()`` (the stream ends with
    /// ``Event/sessionInvalidated(reason:)``, `userCanceled`).
    public func invalidate() async {
        await session.invalidate()
    }
}
