public import NDEF
public import NFCCore
public import NFCTags

/// A tag that came into the field, as ``TagWatcher`` reports it.
public struct TagArrival: Sendable {
    /// The tag's identifier: UID, IDm or PUPI.
    public var identifier: Bytes
    /// The modulation it answered.
    public var technology: Modulation
    /// What identification found: model, platform, memory size.
    public var identity: ChipIdentity
    /// The NDEF message the tag holds, or why it could not be read: a tag without NDEF
    /// (``NFCTagError/Code/notNDEFFormatted``), a malformed NDEF area or message, a tag that left
    /// in the middle. A failure here never ends the watch.
    public var message: Result<NDEFMessage, NFCTagError>

    /// An arrival.
    public init(identifier: Bytes, technology: Modulation, identity: ChipIdentity, message: Result<NDEFMessage, NFCTagError>) {
        self.identifier = identifier
        self.technology = technology
        self.identity = identity
        self.message = message
    }
}

/// A tag that left the field, as ``TagWatcher`` reports it.
public struct TagDeparture: Sendable {
    /// The tag's identifier, as its arrival had it.
    public var identifier: Bytes
    /// What identification found when it arrived.
    public var identity: ChipIdentity
    /// How long it stayed: from its arrival to the moment it was last seen.
    public var duration: Duration

    /// A departure.
    public init(identifier: Bytes, identity: ChipIdentity, duration: Duration) {
        self.identifier = identifier
        self.identity = identity
        self.duration = duration
    }
}

/// What ``TagWatcher`` reports.
public enum TagWatchEvent: Sendable {
    /// A tag came into the field (once per stay).
    case arrived(TagArrival)
    /// A tag left the field (after the debounce time without it).
    case departed(TagDeparture)
    /// The reader failed (unplugged, closed, its link gone); the watcher tries to open it again.
    case readerLost(NFCReaderDeviceError)
    /// The reader could be opened again after ``readerLost(_:)``; carries its connection string.
    case readerReconnected(String)
}

/// Tags coming and going on a reader, as an `AsyncSequence` of ``TagWatchEvent``.
///
/// ```swift
/// for try await event in TagWatcher(connection: "pn532_uart:/dev/ttyUSB0") {
///     if case .arrived(let tag) = event { print(tag.identity.model, tag.message) }
/// }
/// ```
///
/// Each tag found is identified and its NDEF message read, then it is released (deselected:
/// a simulated stack, or the emulator with `--hand-out deselect`, then presents its next tag,
/// which counts as the first one leaving). A tag that stays is reported once: the watcher polls
/// it again and then waits for it to leave (`NFCReader.waitForRemoval(timeout:checkInterval:)`:
/// pcscd's removal event on PC/SC readers, nothing sent meanwhile; a presence check every
/// ``Options/presenceInterval`` on libnfc and the simulator); a reader that re-detects it at
/// every poll but cannot tell its presence is polled less and less often. It is reported again
/// only after it has left. A tag missing for less than ``Options/debounce`` has not left: no
/// departure is reported and its return is no new arrival. `NFCTags.TagPresenceTracker` makes
/// these decisions, for the batch workers as well.
///
/// When the reader fails, the sequence reports ``TagWatchEvent/readerLost(_:)`` (and the
/// departure of the tag in the field, if any), then opens the reader again, waiting longer after
/// each failed attempt (``Options/reconnectDelay`` doubling up to
/// ``Options/maximumReconnectDelay``), and reports ``TagWatchEvent/readerReconnected(_:)``.
/// Only a watcher that opens its reader itself (from a connection string or an opening
/// function) reconnects; one given a reader ends by throwing the reader's error.
///
/// The sequence never ends by itself otherwise: cancel the task iterating it (or drop the
/// iterator) to stop. Its work runs in its own task, which sleeps rather than blocks between
/// polls. Failures that end it: the first opening of the reader, a reader that can poll none
/// of the requested modulations, a reader handed in that fails.
public struct TagWatcher: AsyncSequence, Sendable {
    /// The events.
    public typealias Element = TagWatchEvent
    /// Why the sequence ended.
    public typealias Failure = NFCReaderDeviceError

    /// How the watcher behaves.
    public struct Options: Sendable {
        /// A tag missing for less than this has not left (flaky placement); default zero.
        public var debounce: Duration
        /// What to poll for; `nil`: every modulation the reader supports.
        public var modulations: [Modulation]?
        /// The first wait before opening a lost reader again.
        public var reconnectDelay: Duration
        /// The longest wait between two attempts to open a lost reader.
        public var maximumReconnectDelay: Duration
        /// How long one poll lasts.
        public var pollSlice: Duration
        /// How often a tag in the field is checked for still being there.
        public var presenceInterval: Duration
        /// The longest pause before polling again for a tag the reader keeps re-detecting but
        /// cannot check for presence (as PC/SC readers do); the pause doubles up to this.
        public var maximumPresenceInterval: Duration
        /// The clock the debounce, the pauses and the reconnection back-off are measured on;
        /// `ContinuousClock` by default, a clock the test advances in tests.
        public var clock: any Clock<Duration>

        /// How arrivals and departures are told apart (``TagPresenceTracker``'s options).
        public var presence: TagPresenceTracker.Options {
            TagPresenceTracker.Options(
                debounce: debounce, pollSlice: pollSlice, presenceInterval: presenceInterval,
                maximumPresenceInterval: maximumPresenceInterval)
        }

        /// Options; the defaults suit a person placing tags by hand.
        public init(
            debounce: Duration = .zero, modulations: [Modulation]? = nil, reconnectDelay: Duration = .milliseconds(250),
            maximumReconnectDelay: Duration = .seconds(5), pollSlice: Duration = .milliseconds(250),
            presenceInterval: Duration = .milliseconds(100), maximumPresenceInterval: Duration = .milliseconds(500),
            clock: any Clock<Duration> = ContinuousClock()
        ) {
            self.debounce = debounce
            self.modulations = modulations
            self.reconnectDelay = reconnectDelay
            self.maximumReconnectDelay = maximumReconnectDelay
            self.pollSlice = pollSlice
            self.presenceInterval = presenceInterval
            self.maximumPresenceInterval = maximumPresenceInterval
            self.clock = clock
        }
    }

    /// Opens a reader.
    public typealias Opener = @Sendable () async throws(NFCReaderDeviceError) -> any NFCReader

    private enum Source: Sendable {
        case reader(any NFCReader)
        case opener(Opener)
    }

    private let source: Source
    /// The reader held for the whole watch (one session at a time on a reader, across kinds of
    /// session and processes); `nil` for the simulator and readers handed over.
    private var lease: ReaderLease.Key?
    /// How the watcher behaves.
    public let options: Options

    /// Watches the reader `connection` names (see ``ReaderConnection``; `nil` for libnfc's
    /// default device), opening it again when it is lost; it is closed when the watch ends.
    /// While the watch runs the reader is held as a session holds it: a session (or watch) on
    /// it, in this process or another, ends the watch with ``NFCReaderDeviceError/Code/busy``.
    public init(connection: String?, options: Options = Options()) {
        self.init(options: options) { () async throws(NFCReaderDeviceError) -> any NFCReader in
            try await ReaderConnection.open(connection)
        }
        let parsed = ReaderConnectionString(connection)
        if !parsed.isInProcess { lease = .connection(parsed.text) }
    }

    /// Watches the readers `open` opens: once at the start and again after each loss. Each is
    /// closed when lost or when the watch ends.
    public init(options: Options = Options(), open: @escaping Opener) {
        self.source = .opener(open)
        self.options = options
    }

    /// Watches `reader`, which the caller opened and closes; a reader failure ends the sequence.
    public init(reader: any NFCReader, options: Options = Options()) {
        self.source = .reader(reader)
        self.options = options
    }

    /// Iterates the events of one watch.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<Result<TagWatchEvent, NFCReaderDeviceError>>.Iterator
        let stopper: Stopper

        /// The next event.
        /// - Throws: ``NFCReaderDeviceError``: why the watch ended.
        public mutating func next() async throws(NFCReaderDeviceError) -> TagWatchEvent? {
            try Self.unwrap(await base.next())
        }

        /// The next event, iterating on `actor`.
        /// - Throws: ``NFCReaderDeviceError``: why the watch ended.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(NFCReaderDeviceError) -> TagWatchEvent? {
            try Self.unwrap(await base.next(isolation: actor))
        }

        private static func unwrap(_ event: Result<TagWatchEvent, NFCReaderDeviceError>?) throws(NFCReaderDeviceError) -> TagWatchEvent? {
            switch event {
            case nil: return nil
            case .success(let event): return event
            case .failure(let error): throw error
            }
        }
    }

    /// Cancels the watch when the last iterator copy goes away.
    final class Stopper: Sendable {
        let task: Task<Void, Never>
        init(_ task: Task<Void, Never>) { self.task = task }
        deinit { task.cancel() }
    }

    /// Starts the watch; each iterator is a watch of its own.
    public func makeAsyncIterator() -> AsyncIterator {
        let (stream, continuation) = AsyncStream.makeStream(of: Result<TagWatchEvent, NFCReaderDeviceError>.self)
        let loop = WatchLoop(source: source, options: options, lease: lease, continuation: continuation)
        let task = Task { await loop.run() }
        continuation.onTermination = { _ in task.cancel() }
        return AsyncIterator(base: stream.makeAsyncIterator(), stopper: Stopper(task))
    }

    /// The work of one watch.
    private struct WatchLoop: Sendable {
        let source: Source
        let options: Options
        let lease: ReaderLease.Key?
        let continuation: AsyncStream<Result<TagWatchEvent, NFCReaderDeviceError>>.Continuation

        func run() async {
            if let lease {
                guard ReaderLease.acquire(lease) else {
                    continuation.yield(.failure(NFCReaderDeviceError(.busy, "the reader is in use by another session")))
                    continuation.finish()
                    return
                }
            }
            defer { if let lease { ReaderLease.release(lease) } }
            var reader: any NFCReader
            switch source {
            case .reader(let given):
                reader = given
            case .opener(let open):
                do {
                    reader = try await open()
                } catch {
                    continuation.yield(.failure(error))
                    continuation.finish()
                    return
                }
            }
            // What is in the field, and the identity of the tag there.
            var tracker = TagPresenceTracker(options: options.presence, clock: options.clock)
            var identity: ChipIdentity?
            while !Task.isCancelled {
                let failure = await watch(reader, tracker: &tracker, identity: &identity)
                guard let failure, !Task.isCancelled else { break }
                guard case .opener(let open) = source, Self.isRecoverable(failure) else {
                    if case .opener = source { await reader.close() }
                    continuation.yield(.failure(failure))
                    continuation.finish()
                    return
                }
                await reader.close()
                continuation.yield(.success(.readerLost(failure)))
                if let gone = tracker.forget(), let known = identity {
                    continuation.yield(.success(.departed(TagDeparture(identifier: gone.identifier, identity: known, duration: gone.duration))))
                }
                identity = nil
                guard let reopened = await reopen(open) else { break }
                reader = reopened
                continuation.yield(.success(.readerReconnected(await reader.connectionString)))
            }
            if case .opener = source { await reader.close() }
            continuation.finish()
        }

        /// Whether opening the reader again may help after `error`.
        static func isRecoverable(_ error: NFCReaderDeviceError) -> Bool {
            switch error.code {
            case .notSupported, .invalidArgument: false
            default: true
            }
        }

        /// Opens the reader again, backing off; nil when cancelled.
        func reopen(_ open: Opener) async -> (any NFCReader)? {
            var delay = options.reconnectDelay
            let clock = ElapsedClock(options.clock)
            while !Task.isCancelled {
                try? await clock.sleep(for: delay)
                if Task.isCancelled { return nil }
                if let reader = try? await open() { return reader }
                delay = Swift.min(delay * 2, options.maximumReconnectDelay)
            }
            return nil
        }

        /// Watches `reader` until cancelled (nil) or until it fails (its error). What counts as
        /// an arrival or a departure is the tracker's to decide (shared with the batch workers).
        func watch(_ reader: any NFCReader, tracker: inout TagPresenceTracker, identity: inout ChipIdentity?) async -> NFCReaderDeviceError? {
            let supported = await reader.supportedModulations
            let modulations = (options.modulations ?? supported).filter { supported.contains($0) }
            guard !modulations.isEmpty else {
                return NFCReaderDeviceError(.notSupported, "the reader '\(await reader.name)' can poll none of the requested modulations")
            }
            while !Task.isCancelled {
                let seen: TagPresenceTracker.Observation
                do {
                    seen = try await tracker.step(on: reader, for: modulations)
                } catch {
                    return error
                }
                if Task.isCancelled { return nil }
                if let gone = seen.departure, let known = identity {
                    continuation.yield(.success(.departed(TagDeparture(identifier: gone.identifier, identity: known, duration: gone.duration))))
                    identity = nil
                }
                guard let target = seen.arrival else { continue }
                let arrival = await read(target, on: reader)
                if Task.isCancelled { return nil }
                continuation.yield(.success(.arrived(arrival)))
                identity = arrival.identity
                // Released: a stack that hands out on deselect presents its next tag.
                await tracker.release(on: reader)
            }
            return nil
        }

        /// Identifies the tag `reader` has just selected and reads its NDEF message.
        func read(_ target: TargetInfo, on reader: any NFCReader) async -> TagArrival {
            let tag: NFCTag
            do {
                tag = try await NFCTag.connect(to: target, on: reader)
            } catch {
                let identity = await ChipIdentification.identify(target, on: reader)
                return TagArrival(identifier: target.identifier, technology: target.modulation, identity: identity, message: .failure(error))
            }
            // Identification may leave a chip idle (an unanswered GET_VERSION): select it again.
            let again = try? await reader.poll(for: [target.modulation], timeout: .milliseconds(500))
            let message: Result<NDEFMessage, NFCTagError>
            do throws(NFCTagError) {
                if let again, again.identifier != target.identifier {
                    throw NFCTagError(.connectionLost, "another tag answered before the message could be read")
                }
                // readNDEF runs the detection procedure itself: no separate query (one pass
                // over the tag's memory, not two).
                do {
                    message = .success(try await tag.ndef.readNDEF())
                } catch where error.code == .notNDEFFormatted || error.code == .notSupported {
                    throw NFCTagError(.notNDEFFormatted, "the \(tag.identity.model) holds no NDEF (not formatted for NDEF)")
                }
            } catch {
                message = .failure(error)
            }
            return TagArrival(identifier: target.identifier, technology: target.modulation, identity: tag.identity, message: message)
        }
    }
}
