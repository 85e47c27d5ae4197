public import Foundation
import NFCCore
public import NFCTags
import Synchronization

/// A session that polls a reader for tags and hands each one to the app: CoreNFC's
/// `NFCTagReaderSession`, in async Swift, over any `NFCReader` (libnfc or the simulator).
///
/// ```swift
/// let session = NFCTagReaderSession(pollingOption: [.iso14443, .iso18092], connection: "sim:ntag215")
/// try await session.begin()
/// for try await tag in session.tags {
///     try await session.connect(to: tag)
///     let message = try await tag.ndef.readNDEF()
///     await session.invalidate()
/// }
/// ```
///
/// The life of a session:
/// - ``begin()`` takes the reader (one active session per reader: a second gets
///   ``NFCReaderError/Code/readerBusy``) and starts polling. The session's ``timeout``
///   (60 s by default, as CoreNFC's) counts from here.
/// - Each tag found is identified and reported on ``tags``; when several ISO 14443-A tags are
///   in the field together (a reader that lists them, as a PN532 through libnfc or `sim:A+B`),
///   all of them are reported at once on ``detectedTags`` (CoreNFC's `didDetect tags:`), and the
///   app picks one with ``connect(to:)``. Polling then pauses until
///   ``restartPolling(skippingTagInField:)``, which reports a tag that stayed in the field again
///   (as CoreNFC does) unless asked to skip it until it has left (the reader's
///   `NFCReader.waitForRemoval(timeout:checkInterval:)` says so: pcscd's event on PC/SC readers)
///   or another tag came.
/// - A tag's commands reach the reader only while it is the connected tag: before
///   ``connect(to:)``, or after connecting another tag of the same detection, they fail with
///   ``NFCReaderError/Code/readerTransceiveErrorTagNotConnected`` and nothing is sent.
/// - ``invalidate(errorMessage:)``, the timeout, a reader failure, or cancelling the task that
///   iterates ``tags`` ends the session for good: every later call fails with
///   ``NFCReaderError/Code/sessionInvalidated``. A reader the session opened from a
///   connection string is closed then; a reader handed to it is left open.
///
/// ``prompts`` stands in for CoreNFC's alert sheet: it carries ``alertMessage`` when the session
/// begins or the message changes, and the error message of ``invalidate(errorMessage:)``.
public actor NFCTagReaderSession {
    /// The tag families to poll for, as CoreNFC names them.
    public struct PollingOption: OptionSet, Sendable, Hashable {
        /// The option bits.
        public let rawValue: Int

        /// Creates options from their bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// ISO 14443 type A and B: MIFARE, NTAG, Type 4, ISO-DEP cards.
        public static let iso14443 = PollingOption(rawValue: 1 << 0)
        /// ISO 15693 vicinity tags (Type 5). libnfc readers cannot poll these.
        public static let iso15693 = PollingOption(rawValue: 1 << 1)
        /// FeliCa (JIS X 6319-4, the ISO 18092 passive mode) at 212 and 424 kbit/s.
        public static let iso18092 = PollingOption(rawValue: 1 << 2)
        /// CoreNFC's `.pace`: ISO 14443 cards reached through PACE (BSI TR-03110, e.g. the German
        /// eID card). Not supported by NFCKit's readers: a session polling for it ends at
        /// ``NFCTagReaderSession/begin()`` with ``NFCReaderError/Code/readerErrorUnsupportedFeature``,
        /// before any reader is opened.
        public static let pace = PollingOption(rawValue: 1 << 3)

        /// The reader modulations the options stand for.
        var modulations: [Modulation] {
            var modulations: [Modulation] = []
            if contains(.iso14443) { modulations += [.iso14443A, .iso14443B] }
            if contains(.iso18092) { modulations += [.felica212, .felica424] }
            if contains(.iso15693) { modulations.append(.iso15693) }
            return modulations
        }
    }

    /// What CoreNFC takes from an app's Info.plist: the ISO 7816 applications and FeliCa
    /// system codes a session looks for.
    public struct Configuration: Sendable, Hashable {
        /// CoreNFC's `com.apple.developer.nfc.readersession.iso7816.select-identifiers`: AIDs
        /// (hex, 5 to 16 bytes), SELECTed by name in this order on each ISO 7816 tag detected.
        /// The first the card accepts (`90 00`) becomes the reported tag's `initialSelectedAID`;
        /// a tag that accepts none is not reported. Payment AIDs are refused by `ISO7816Tag`
        /// and skipped. Empty (the default): nothing is selected and every ISO 7816 tag is
        /// reported.
        public var iso7816SelectIdentifiers: [String]
        /// CoreNFC's `com.apple.developer.nfc.readersession.felica.systemcodes`: system codes
        /// (hex, 2 bytes). A FeliCa tag is reported only when it answers a Polling for one of
        /// them. The
        /// wildcard `FFFF` is refused, as CoreNFC refuses it. Empty (the default): every FeliCa tag.
        public var felicaSystemCodes: [String]

        /// A configuration.
        public init(iso7816SelectIdentifiers: [String] = [], felicaSystemCodes: [String] = []) {
            self.iso7816SelectIdentifiers = iso7816SelectIdentifiers
            self.felicaSystemCodes = felicaSystemCodes
        }

        /// The AIDs and system codes as bytes.
        /// - Throws: ``NFCReaderError/Code/readerErrorInvalidParameterLength`` for an AID
        ///   outside 5…16 bytes or a system code not 2 bytes, ``NFCReaderError/Code/readerErrorInvalidParameter``
        ///   for text that is not hex or the wildcard system code `FFFF`.
        func parsed() throws(NFCReaderError) -> (aids: [(hex: String, bytes: Bytes)], systemCodes: [UInt16]) {
            var aids: [(hex: String, bytes: Bytes)] = []
            for text in iso7816SelectIdentifiers {
                guard let bytes = try? Hex.decode(text) else {
                    throw NFCReaderError(.readerErrorInvalidParameter, "the ISO 7816 select identifier '\(text)' is not hex")
                }
                guard (5...16).contains(bytes.count) else {
                    throw NFCReaderError(
                        .readerErrorInvalidParameterLength, "the ISO 7816 select identifier '\(text)' has \(bytes.count) bytes; an AID has 5 to 16")
                }
                aids.append((Hex.encode(bytes, uppercase: true), Bytes(bytes)))
            }
            var codes: [UInt16] = []
            for text in felicaSystemCodes {
                guard let bytes = try? Hex.decode(text) else {
                    throw NFCReaderError(.readerErrorInvalidParameter, "the FeliCa system code '\(text)' is not hex")
                }
                guard bytes.count == 2 else {
                    throw NFCReaderError(.readerErrorInvalidParameterLength, "the FeliCa system code '\(text)' is not 2 bytes")
                }
                let code = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
                guard code != 0xFFFF else {
                    throw NFCReaderError(.readerErrorInvalidParameter, "the wildcard FeliCa system code FFFF is not allowed: name the system codes")
                }
                codes.append(code)
            }
            return (aids, codes)
        }
    }

    /// CoreNFC's session limit: 60 seconds.
    public static let defaultTimeout: Duration = .seconds(60)

    /// The tag families this session polls for (those the reader supports).
    public nonisolated let pollingOption: PollingOption
    /// The ISO 7816 applications and FeliCa system codes the session looks for.
    public nonisolated let configuration: Configuration
    private var selectIdentifiers: [(hex: String, bytes: Bytes)] = []
    private var systemCodes: [UInt16] = []
    /// How long the session lives after ``begin()`` before it ends with
    /// ``NFCReaderError/Code/sessionTimeout``.
    public nonisolated let timeout: Duration
    /// The tags detected, in order: the first tag of each detection (each element of
    /// ``detectedTags``); see ``NFCReaderSessionEvents`` for how it ends.
    public nonisolated let tags: NFCReaderSessionEvents<NFCTag>
    /// Each detection: the tags found in the field together (one, or several when the reader
    /// lists several ISO 14443-A tags at once), as CoreNFC's `tagReaderSession(_:didDetect:)`
    /// gets them. Ends as ``tags`` does.
    public nonisolated let detectedTags: NFCReaderSessionEvents<[NFCTag]>
    /// The most tags one detection reports.
    public static let maximumTagsDetected = 4
    /// What a user should be told: the ``alertMessage`` and invalidation messages. Finishes when
    /// the session is invalidated.
    public nonisolated let prompts: AsyncStream<String>
    /// The message for the user while the session runs (CoreNFC's `alertMessage`). Setting it
    /// (from any context, as in CoreNFC) sends it on ``prompts`` while the session is active, in
    /// order with the other calls of the synchronous, CoreNFC-shaped API.
    public nonisolated var alertMessage: String {
        get { alert.withLock { $0 } }
        set {
            alert.withLock { $0 = newValue }
            commands.enqueue { await self.promptAlertMessage() }
        }
    }
    private nonisolated let alert: Mutex<String>
    /// The calls of the synchronous, CoreNFC-shaped API, run one after another.
    nonisolated let commands = SessionCommandQueue()

    private enum Source {
        case reader(any NFCReader)
        case connection(String?)
    }

    private enum State {
        case idle, starting, active
        case invalidated(NFCReaderError)
    }

    private let source: Source
    /// The delegate of a session made with ``init(pollingOption:delegate:queue:connection:timeout:configuration:)``.
    public nonisolated let delegate: (any NFCTagReaderSessionDelegate)?
    private var state = State.idle
    private var reader: (any NFCReader)?
    private var ownsReader = false
    private var leases: [ReaderLease.Key] = []

    /// A session nobody holds any more gives its reader back (in this process and, for a
    /// connection string, to other processes), invalidated or not.
    deinit {
        for key in leases { ReaderLease.release(key) }
    }
    private var modulations: [Modulation] = []
    /// The tags of the last detection.
    private var currentTags: [NFCTag] = []
    /// Which of them the app connected to: the only one whose commands reach the reader.
    private let connection = SessionConnection()
    /// What is in the field: a tag already reported is not reported again until it has left
    /// (the one arrival rule of NFCTags' `TagPresenceTracker`, shared with `TagWatcher` and
    /// batch), and polling never spins, whatever the reader can tell of presence.
    private var tracker = TagPresenceTracker(options: .init(pollSlice: .milliseconds(250)))
    private var pollingTask: Task<Void, Never>?
    private var timeoutTask: Task<Void, Never>?
    private let tagContinuation: AsyncStream<Result<NFCTag, NFCReaderError>>.Continuation
    private let detectedContinuation: AsyncStream<Result<[NFCTag], NFCReaderError>>.Continuation
    private let promptContinuation: AsyncStream<String>.Continuation

    /// A session on a reader the caller opened (and closes): the session never closes it.
    /// - Parameters:
    ///   - pollingOption: the tag families to look for.
    ///   - reader: the reader to poll.
    ///   - timeout: the session's lifetime after ``begin()``; 60 s by default.
    ///   - alertMessage: the first message for the user, sent on ``prompts`` at ``begin()``.
    ///   - configuration: the ISO 7816 AIDs and FeliCa system codes to look for.
    public init(
        pollingOption: PollingOption, reader: any NFCReader, timeout: Duration = defaultTimeout,
        alertMessage: String = "", configuration: Configuration = Configuration()
    ) {
        self.init(
            pollingOption: pollingOption, source: .reader(reader), timeout: timeout, alertMessage: alertMessage,
            configuration: configuration)
    }

    /// A session that opens its reader at ``begin()`` from a connection string (libnfc's,
    /// `sim:…`, or `nil`/`default` for libnfc's default device; see ``ReaderConnection``) and
    /// closes it when invalidated.
    /// - Parameters:
    ///   - pollingOption: the tag families to look for.
    ///   - connection: the reader's connection string; `nil` for the default device.
    ///   - timeout: the session's lifetime after ``begin()``; 60 s by default.
    ///   - alertMessage: the first message for the user, sent on ``prompts`` at ``begin()``.
    ///   - configuration: the ISO 7816 AIDs and FeliCa system codes to look for.
    public init(
        pollingOption: PollingOption, connection: String?, timeout: Duration = defaultTimeout,
        alertMessage: String = "", configuration: Configuration = Configuration()
    ) {
        self.init(
            pollingOption: pollingOption, source: .connection(connection), timeout: timeout, alertMessage: alertMessage,
            configuration: configuration)
    }

    /// A session that reports to a CoreNFC-style `delegate` (see ``NFCTagReaderSessionDelegate``)
    /// on the reader `connection` names (`nil`: libnfc's default device), opened at `begin()`
    /// and closed when invalidated.
    /// - Parameters:
    ///   - pollingOption: the tag families to look for.
    ///   - delegate: receives the session's events on the main actor; held until the session ends.
    ///   - queue: ignored: the delegate is called on the main actor (CoreNFC's `queue: .main`).
    ///   - connection: the reader's connection string.
    ///   - timeout: the session's lifetime after `begin()`; 60 s by default.
    ///   - configuration: the ISO 7816 AIDs and FeliCa system codes to look for.
    public init(
        pollingOption: PollingOption, delegate: any NFCTagReaderSessionDelegate, queue: DispatchQueue? = nil,
        connection: String? = nil, timeout: Duration = defaultTimeout, configuration: Configuration = Configuration()
    ) {
        self.init(
            pollingOption: pollingOption, source: .connection(connection), timeout: timeout, alertMessage: "",
            configuration: configuration, delegate: delegate)
    }

    private init(
        pollingOption: PollingOption, source: Source, timeout: Duration, alertMessage: String, configuration: Configuration,
        delegate: (any NFCTagReaderSessionDelegate)? = nil
    ) {
        self.delegate = delegate
        self.pollingOption = pollingOption
        self.configuration = configuration
        self.source = source
        self.timeout = timeout
        self.alert = Mutex(alertMessage)
        let (tagStream, tagContinuation) = AsyncStream.makeStream(of: Result<NFCTag, NFCReaderError>.self)
        let (promptStream, promptContinuation) = AsyncStream.makeStream(of: String.self)
        self.tags = NFCReaderSessionEvents(base: tagStream)
        self.tagContinuation = tagContinuation
        let (detectedStream, detectedContinuation) = AsyncStream.makeStream(of: Result<[NFCTag], NFCReaderError>.self)
        self.detectedTags = NFCReaderSessionEvents(base: detectedStream)
        self.detectedContinuation = detectedContinuation
        self.prompts = promptStream
        self.promptContinuation = promptContinuation
        tagContinuation.onTermination = { [weak self] termination in
            guard case .cancelled = termination, let self else { return }
            Task { await self.invalidate() }
        }
        detectedContinuation.onTermination = { [weak self] termination in
            guard case .cancelled = termination, let self else { return }
            Task { await self.invalidate() }
        }
    }

    /// Whether the session has begun and is not invalidated (CoreNFC's `isReady`).
    public var isReady: Bool {
        if case .active = state { return true }
        return false
    }

    /// Why the session ended; `nil` while it has not.
    public var invalidationReason: NFCReaderError? {
        if case .invalidated(let reason) = state { return reason }
        return nil
    }

    /// Changes the message for the user and sends it on ``prompts``.
    public func setAlertMessage(_ message: String) {
        alert.withLock { $0 = message }
        promptAlertMessage()
    }

    private func promptAlertMessage() {
        if case .active = state { promptContinuation.yield(alertMessage) }
    }

    /// Takes the reader and starts polling.
    /// - Throws: ``NFCReaderError``: ``NFCReaderError/Code/sessionInvalidated``
    ///   when the session has already begun or ended (a session is not reusable);
    ///   ``NFCReaderError/Code/readerBusy`` when another session holds the reader;
    ///   ``NFCReaderError/Code/readerUnavailable`` or
    ///   ``NFCReaderError/Code/invalidParameter`` when the connection string cannot be
    ///   opened; ``NFCReaderError/Code/unsupportedFeature`` when the reader can poll none
    ///   of the ``pollingOption``. Every failure also invalidates the session.
    public func begin() async throws(NFCReaderError) {
        guard case .idle = state else {
            throw NFCReaderError(.sessionInvalidated, "the session has already begun; a session is not reusable")
        }
        state = .starting
        if pollingOption.contains(.pace) {
            let refusal = NFCReaderError(
                .readerErrorUnsupportedFeature,
                "PACE polling (ISO 14443 with BSI TR-03110 PACE) is not supported: poll with .iso14443, .iso15693 or .iso18092")
            await finish(refusal)
            throw refusal
        }
        do throws(NFCReaderError) {
            (selectIdentifiers, systemCodes) = try configuration.parsed()
        } catch {
            await finish(error)
            throw error
        }
        let reader: any NFCReader
        switch source {
        case .reader(let given):
            reader = given
            // The same libnfc device may not be opened by another session from its string.
            let connectionString = await given.connectionString
            if !ReaderConnectionString(connectionString).isSimulator {
                try take(.connection(connectionString), named: connectionString)
            }
        case .connection(let string):
            let parsed = ReaderConnectionString(string)
            let name = parsed.text
            if !parsed.isInProcess {
                try take(.connection(name), named: name)
            }
            do {
                reader = try await ReaderConnection.open(string)
            } catch {
                let code: NFCReaderError.Code = error.code == .invalidArgument ? .invalidParameter : .readerUnavailable
                let failure = NFCReaderError(code, "cannot open reader '\(name)': \(error.reason)", readerError: error)
                await finish(failure)
                throw failure
            }
            ownsReader = true
        }
        self.reader = reader
        if case .invalidated = state {
            // Invalidated while the reader was opening.
            if ownsReader { await reader.close() }
            for key in leases { ReaderLease.release(key) }
            leases = []
            throw sessionInvalidated()
        }
        try take(.reader(ObjectIdentifier(reader)), named: await reader.connectionString)
        let supported = await reader.supportedModulations
        modulations = pollingOption.modulations.filter { supported.contains($0) }
        guard !modulations.isEmpty else {
            let failure = NFCReaderError(.unsupportedFeature, "the reader '\(await reader.name)' cannot poll for any of the requested tag types")
            await finish(failure)
            throw failure
        }
        guard case .starting = state else { throw sessionInvalidated() }
        state = .active
        if !alertMessage.isEmpty { promptContinuation.yield(alertMessage) }
        let timeout = timeout
        timeoutTask = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            guard !Task.isCancelled, let self else { return }
            await self.expire()
        }
        pollingTask = Task { await self.pollForTag() }
    }

    /// Connects to `tag`, one of the tags this session detected last, so its commands reach it
    /// (CoreNFC's `connect(to:)`): when several were detected together, the reader selects it and
    /// the others' commands are refused until they are connected in turn.
    /// - Throws: ``NFCReaderError``: ``NFCReaderError/Code/sessionInvalidated``
    ///   after invalidation; ``NFCReaderError/Code/tagConnectionLost`` when `tag` is not
    ///   one of the tags detected last or has left the field.
    public func connect(to tag: NFCTag) async throws(NFCReaderError) {
        guard case .active = state, let reader else { throw sessionInvalidated() }
        guard currentTags.contains(where: { $0.identifier == tag.identifier }) else {
            throw NFCReaderError(.tagConnectionLost, "this is not a tag the session detected last")
        }
        if currentTags.count > 1, connection.identifier != tag.identifier {
            connection.identifier = nil
            do {
                try await reader.select(tag.targetInfo)
            } catch {
                throw NFCReaderError(.tagConnectionLost, "the tag has left the field: \(error.reason)", readerError: error)
            }
        }
        guard await reader.isTargetPresent() else {
            throw NFCReaderError(.tagConnectionLost, "the tag has left the field")
        }
        connection.identifier = tag.identifier
    }

    /// Lets go of the current tag (deselecting it: a simulated stack hands out its next tag) and
    /// polls again (CoreNFC's `restartPolling()`).
    ///
    /// As in CoreNFC, a tag that stayed in the field is detected and reported again, so "try
    /// again on the same tag" loops work. With `skippingTagInField` the tag just reported is
    /// instead not reported again until it has left the field (what the NDEF session does
    /// between messages).
    /// - Throws: ``NFCReaderError/Code/readerTransceiveErrorSessionInvalidated`` after invalidation.
    public func restartPolling(skippingTagInField: Bool = false) async throws(NFCReaderError) {
        guard case .active = state, let reader else { throw sessionInvalidated() }
        let previous = pollingTask
        previous?.cancel()
        await previous?.value
        guard case .active = state else { throw sessionInvalidated() }
        // A restart running at the same time has already started the next poll.
        guard pollingTask == previous else { return }
        connection.identifier = nil
        if !currentTags.isEmpty {
            currentTags = []
            try? await reader.deselect()
        }
        if !skippingTagInField { _ = tracker.forget() }
        guard case .active = state else { throw sessionInvalidated() }
        pollingTask = Task { await self.pollForTag() }
    }

    /// Ends the session (CoreNFC's `invalidate()` / `invalidate(errorMessage:)`): polling stops,
    /// ``tags`` ends with ``NFCReaderError/Code/userCanceled``, an `errorMessage` is sent
    /// on ``prompts`` first. Invalidating an ended session does nothing.
    public func invalidate(errorMessage: String? = nil) async {
        if case .invalidated = state { return }
        if let errorMessage { promptContinuation.yield(errorMessage) }
        await finish(NFCReaderError(.userCanceled, "the session was invalidated"))
    }

    /// Ends the session with `reason` (the NDEF session's `firstNDEFTagRead`).
    func invalidate(reason: NFCReaderError) async {
        await finish(reason)
    }

    private func expire() async {
        await finish(NFCReaderError(.sessionTimeout, "the session timed out after \(timeout)"))
    }

    private func sessionInvalidated() -> NFCReaderError {
        NFCReaderError(.sessionInvalidated, "the session has been invalidated; a session is not reusable")
    }

    private func take(_ key: ReaderLease.Key, named name: String) throws(NFCReaderError) {
        guard ReaderLease.acquire(key) else {
            let failure = NFCReaderError(.readerBusy, "the reader '\(name)' is in use by another session")
            state = .invalidated(failure)
            finishStreams(failure)
            for key in leases { ReaderLease.release(key) }
            leases = []
            throw failure
        }
        leases.append(key)
    }

    /// Polls until a new tag is found, identifies it and reports it; returns when it did, when
    /// cancelled, or when the reader failed (which ends the session).
    private func pollForTag() async {
        guard let reader else { return }
        var tracker = self.tracker
        defer { self.tracker = tracker }
        while !Task.isCancelled, case .active = state {
            let seen: TagPresenceTracker.Observation
            do {
                seen = try await tracker.step(on: reader, for: modulations)
            } catch {
                if !Task.isCancelled { await finish(NFCReaderError(error), fromPolling: true) }
                return
            }
            if Task.isCancelled { return }
            // Nothing new: an empty field, or a tag already reported that stays.
            guard let target = seen.arrival else { continue }
            // Several ISO 14443-A tags in the field are listed together (the first selected again).
            var targets = [target]
            if case .iso14443A = target,
               let listed = try? await reader.listTargets(for: [.iso14443A], limit: Self.maximumTagsDetected, timeout: .zero),
               listed.count > 1, listed.first?.identifier == target.identifier
            {
                targets = listed
            }
            if Task.isCancelled { return }
            var found: [NFCTag] = []
            for candidate in targets {
                if targets.count > 1, (try? await reader.select(candidate)) == nil { continue }
                // Identification and the configuration's commands go to this tag alone.
                connection.identifier = candidate.identifier
                defer { connection.identifier = nil }
                let tagReader = await SessionTagReader(base: reader, identifier: candidate.identifier, connection: connection)
                let tag: NFCTag
                do {
                    tag = try await NFCTag.connect(to: candidate, on: tagReader)
                    // Identification may leave a chip idle (an unanswered GET_VERSION): select again.
                    if targets.count > 1 {
                        try? await reader.select(candidate)
                    } else {
                        _ = try? await reader.poll(for: [target.modulation], timeout: .milliseconds(500))
                    }
                } catch {
                    // A tag no NFCTag case covers (Jewel): the tracker skips it until it leaves.
                    continue
                }
                if Task.isCancelled { return }
                // Not one the configuration looks for: skipped until it leaves, as CoreNFC does.
                guard let tag = await applyConfiguration(to: tag) else { continue }
                found.append(tag)
            }
            if Task.isCancelled { return }
            guard let first = found.first else { continue }
            guard case .active = state else { return }
            currentTags = found
            tagContinuation.yield(.success(first))
            detectedContinuation.yield(.success(found))
            return
        }
    }

    /// `tag` as the configuration has it: an ISO 7816 tag with the first of the select
    /// identifiers it accepts selected, a FeliCa tag holding one of the system codes; `nil` for a
    /// tag the configuration excludes, or one that left while being asked.
    private func applyConfiguration(to tag: NFCTag) async -> NFCTag? {
        switch tag {
        case .iso7816(let card) where !selectIdentifiers.isEmpty:
            for aid in selectIdentifiers {
                guard let select = try? ISO7816APDU(
                    instructionClass: 0x00, instructionCode: 0xA4, p1Parameter: 0x04, p2Parameter: 0x00,
                    data: aid.bytes, expectedResponseLength: 256)
                else { continue }
                do throws(NFCTagError) {
                    let (_, sw1, sw2) = try await card.sendCommand(apdu: select)
                    guard sw1 == 0x90, sw2 == 0x00 else { continue }
                } catch where error.code == .refused {
                    continue  // a payment application: never selected by a reader session
                } catch {
                    return nil
                }
                return .iso7816(
                    ISO7816Tag(
                        reader: card.reader, target: card.target, identity: card.identity, commandTimeout: card.commandTimeout,
                        initialSelectedAID: aid.hex, allowsPaymentApplications: card.allowsPaymentApplications))
            }
            return nil
        case .feliCa(let card) where !systemCodes.isEmpty:
            if let current = card.currentSystemCode, systemCodes.contains(current) { return tag }
            // Polling for each code, as CoreNFC polls for the listed codes: a card answers only
            // for a system it holds.
            for code in systemCodes where (try? await card.polling(systemCode: code)) != nil {
                return tag
            }
            return nil
        default:
            return tag
        }
    }

    /// Ends the session. Unless called by the polling task itself, waits for it to stop first: a
    /// reader must not be closed (by the session or, once invalidate returns, by its owner) in
    /// the middle of a poll.
    private func finish(_ reason: NFCReaderError, fromPolling: Bool = false) async {
        if case .invalidated = state { return }
        state = .invalidated(reason)
        let polling = pollingTask
        pollingTask = nil
        polling?.cancel()
        timeoutTask?.cancel()
        currentTags = []
        connection.identifier = nil
        if !fromPolling { await polling?.value }
        if ownsReader, let reader { await reader.close() }
        for key in leases { ReaderLease.release(key) }
        leases = []
        // Last: whoever the end of the streams tells (a delegate's didInvalidateWithError) may
        // begin the next session on this reader at once, so it is given back first.
        finishStreams(reason)
    }

    private func finishStreams(_ reason: NFCReaderError) {
        if reason.code != .userCanceled && reason.code != .firstNDEFTagRead {
            tagContinuation.yield(.failure(reason))
            detectedContinuation.yield(.failure(reason))
        }
        tagContinuation.finish()
        detectedContinuation.finish()
        promptContinuation.finish()
    }
}

extension NFCTag {
    /// What the reader found when it detected this tag.
    var targetInfo: TargetInfo {
        switch self {
        case .miFare(let tag): tag.type1.map { .jewel($0.target) } ?? .iso14443A(tag.target)
        case .iso7816(let tag): tag.target
        case .feliCa(let tag): .felica(tag.target)
        case .iso15693(let tag): .iso15693(tag.target)
        }
    }
}
