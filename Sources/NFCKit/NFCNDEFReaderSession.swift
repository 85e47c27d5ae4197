public import Foundation
public import NDEF
public import NFCTags

/// A session for NDEF tags: CoreNFC's `NFCNDEFReaderSession`, in async Swift.
///
/// It polls for every tag family the reader supports. What it reports depends on `detecting`,
/// as CoreNFC's depends on which delegate method the app implements:
/// - ``Detection/messages`` (CoreNFC's `didDetectNDEFs`): it reads each new tag's message and
///   reports it on ``messages``; an NDEF-formatted empty tag gives `NDEFMessage.empty`. Tags
///   without NDEF, and tags that leave before their message is read, are skipped. With
///   `invalidateAfterFirstRead` the session ends after the first message with
///   ``NFCReaderError/Code/readerSessionInvalidationErrorFirstNDEFTagRead`` and ``messages``
///   ends normally; otherwise it goes on reading tags until invalidated or timed out, each tag
///   once while it stays in the field.
/// - ``Detection/tags`` (CoreNFC's `didDetect tags:`): it reports the tags found on ``tags``
///   and pauses; the app calls ``connect(to:)``, then the tag's `queryNDEFStatus()`,
///   `readNDEF()`, `writeNDEF(_:)`, `writeLock()`, and ends with ``invalidate(errorMessage:)``
///   or polls again with ``restartPolling()``. `invalidateAfterFirstRead` is ignored, as in
///   CoreNFC.
///
/// Everything else (one session per reader, the 60-second timeout, ``prompts``, no reuse after
/// invalidation) is as for ``NFCTagReaderSession``, which this session runs underneath.
public actor NFCNDEFReaderSession {
    /// What an NDEF session reports.
    public enum Detection: Sendable, Hashable {
        /// The message of each tag, on ``NFCNDEFReaderSession/messages``.
        case messages
        /// The tags themselves, on ``NFCNDEFReaderSession/tags``, for the app to connect to,
        /// query, read, write and lock.
        case tags
    }

    /// Whether the session ends after the first message read (``Detection/messages`` only).
    public nonisolated let invalidateAfterFirstRead: Bool
    /// What the session reports.
    public nonisolated let detection: Detection
    /// The tags detected, for ``Detection/tags``: each element holds the tags found together
    /// (one, or several when the reader found more than one in the field); each is an
    /// `NFCTag` behind `any NFCNDEFTag`. Ends as ``messages`` does.
    public nonisolated let tags: NFCReaderSessionEvents<[any NFCNDEFTag]>
    /// The messages read, one per tag; see ``NFCReaderSessionEvents`` for how it ends.
    public nonisolated let messages: NFCReaderSessionEvents<NDEFMessage>
    /// What a user should be told (CoreNFC's alert sheet); see ``NFCTagReaderSession/prompts``.
    public nonisolated var prompts: AsyncStream<String> { tagSession.prompts }

    /// The message for the user while the session runs (CoreNFC's `alertMessage`); see
    /// ``NFCTagReaderSession/alertMessage``.
    public nonisolated var alertMessage: String {
        get { tagSession.alertMessage }
        set { tagSession.alertMessage = newValue }
    }
    /// The delegate of a session made with ``init(delegate:queue:invalidateAfterFirstRead:connection:timeout:)``.
    public nonisolated let delegate: (any NFCNDEFReaderSessionDelegate)?

    let tagSession: NFCTagReaderSession
    private let continuation: AsyncStream<Result<NDEFMessage, NFCReaderError>>.Continuation
    private let tagContinuation: AsyncStream<Result<[any NFCNDEFTag], NFCReaderError>>.Continuation
    private var readingTask: Task<Void, Never>?

    /// A session on a reader the caller opened (and closes).
    /// - Parameters:
    ///   - invalidateAfterFirstRead: end the session after the first message (required, as in
    ///     CoreNFC; ignored when detecting tags).
    ///   - detecting: report messages (the default) or tags.
    ///   - reader: the reader to poll.
    ///   - timeout: the session's lifetime after ``begin()``; 60 s by default.
    ///   - alertMessage: the first message for the user, sent on ``prompts`` at ``begin()``.
    public init(
        invalidateAfterFirstRead: Bool, detecting: Detection = .messages, reader: any NFCReader,
        timeout: Duration = NFCTagReaderSession.defaultTimeout, alertMessage: String = ""
    ) {
        self.init(
            invalidateAfterFirstRead: invalidateAfterFirstRead, detection: detecting,
            tagSession: NFCTagReaderSession(
                pollingOption: [.iso14443, .iso15693, .iso18092], reader: reader, timeout: timeout,
                alertMessage: alertMessage))
    }

    /// A session that opens its reader at ``begin()`` from a connection string (see
    /// ``ReaderConnection``; `nil` for libnfc's default device) and closes it when invalidated.
    /// - Parameters:
    ///   - invalidateAfterFirstRead: end the session after the first message (required, as in
    ///     CoreNFC; ignored when detecting tags).
    ///   - detecting: report messages (the default) or tags.
    ///   - connection: the reader's connection string; `nil` for the default device.
    ///   - timeout: the session's lifetime after ``begin()``; 60 s by default.
    ///   - alertMessage: the first message for the user, sent on ``prompts`` at ``begin()``.
    public init(
        invalidateAfterFirstRead: Bool, detecting: Detection = .messages, connection: String?,
        timeout: Duration = NFCTagReaderSession.defaultTimeout, alertMessage: String = ""
    ) {
        self.init(
            invalidateAfterFirstRead: invalidateAfterFirstRead, detection: detecting,
            tagSession: NFCTagReaderSession(
                pollingOption: [.iso14443, .iso15693, .iso18092], connection: connection, timeout: timeout,
                alertMessage: alertMessage))
    }

    /// A session that reports to a CoreNFC-style `delegate` (see
    /// ``NFCNDEFReaderSessionDelegate``), on the reader `connection` names (`nil`: libnfc's
    /// default device), opened at `begin()` and closed when invalidated.
    /// - Parameters:
    ///   - delegate: receives the session's events on the main actor; held until the session ends.
    ///   - queue: ignored: the delegate is called on the main actor (CoreNFC's `queue: .main`).
    ///   - invalidateAfterFirstRead: end the session after the first message (when the delegate
    ///     keeps the default `readerSession(_:didDetect:)`, which reads messages).
    ///   - connection: the reader's connection string.
    ///   - timeout: the session's lifetime after `begin()`; 60 s by default.
    public init(
        delegate: any NFCNDEFReaderSessionDelegate, queue: DispatchQueue?, invalidateAfterFirstRead: Bool,
        connection: String? = nil, timeout: Duration = NFCTagReaderSession.defaultTimeout
    ) {
        self.init(
            invalidateAfterFirstRead: invalidateAfterFirstRead, detection: .tags,
            tagSession: NFCTagReaderSession(
                pollingOption: [.iso14443, .iso15693, .iso18092], connection: connection, timeout: timeout),
            delegate: delegate)
    }

    private init(
        invalidateAfterFirstRead: Bool, detection: Detection, tagSession: NFCTagReaderSession,
        delegate: (any NFCNDEFReaderSessionDelegate)? = nil
    ) {
        self.delegate = delegate
        self.invalidateAfterFirstRead = invalidateAfterFirstRead
        self.detection = detection
        self.tagSession = tagSession
        let (stream, continuation) = AsyncStream.makeStream(of: Result<NDEFMessage, NFCReaderError>.self)
        self.messages = NFCReaderSessionEvents(base: stream)
        self.continuation = continuation
        let (tagStream, tagContinuation) = AsyncStream.makeStream(of: Result<[any NFCNDEFTag], NFCReaderError>.self)
        self.tags = NFCReaderSessionEvents(base: tagStream)
        self.tagContinuation = tagContinuation
        let cancelled: @Sendable (AsyncStream<Result<NDEFMessage, NFCReaderError>>.Continuation.Termination) -> Void = {
            termination in
            guard case .cancelled = termination else { return }
            Task { await tagSession.invalidate() }
        }
        switch detection {
        case .messages:
            continuation.onTermination = cancelled
            tagContinuation.finish()
        case .tags:
            tagContinuation.onTermination = { termination in
                guard case .cancelled = termination else { return }
                Task { await tagSession.invalidate() }
            }
            continuation.finish()
        }
    }

    /// Whether the session has begun and is not invalidated.
    public var isReady: Bool {
        get async { await tagSession.isReady }
    }

    /// Why the session ended; `nil` while it has not.
    public var invalidationReason: NFCReaderError? {
        get async { await tagSession.invalidationReason }
    }

    /// Changes the message for the user and sends it on ``prompts``.
    public func setAlertMessage(_ message: String) async {
        await tagSession.setAlertMessage(message)
    }

    /// Takes the reader and starts reading.
    /// - Throws: ``NFCReaderError`` as ``NFCTagReaderSession/begin()``.
    public func begin() async throws(NFCReaderError) {
        do {
            try await tagSession.begin()
        } catch {
            // A second begin() leaves a running session's messages alone.
            if error.code != .sessionInvalidated {
                continuation.yield(.failure(error))
                continuation.finish()
                tagContinuation.yield(.failure(error))
                tagContinuation.finish()
            }
            throw error
        }
        readingTask = Task {
            switch self.detection {
            case .messages: await self.readTags()
            case .tags: await self.reportTags()
            }
        }
    }

    /// Makes sure `tag` is the tag this session reported last and is still in the field, ready
    /// for commands (CoreNFC's `connect(to:)`).
    /// - Throws: ``NFCReaderError``: ``NFCReaderError/Code/readerTransceiveErrorSessionInvalidated``
    ///   after invalidation; ``NFCReaderError/Code/readerTransceiveErrorTagConnectionLost`` when
    ///   `tag` is not one this session reported last or has left the field;
    ///   ``NFCReaderError/Code/readerErrorInvalidParameter`` for a tag not from a session.
    public func connect(to tag: any NFCNDEFTag) async throws(NFCReaderError) {
        guard let tag = tag as? NFCTag else {
            throw NFCReaderError(.readerErrorInvalidParameter, "the tag was not reported by a session")
        }
        try await tagSession.connect(to: tag)
    }

    /// Lets go of the tags and polls again (CoreNFC's `restartPolling()`): a tag that stayed in
    /// the field is reported again.
    /// - Throws: ``NFCReaderError/Code/readerTransceiveErrorSessionInvalidated`` after invalidation.
    public func restartPolling() async throws(NFCReaderError) {
        try await tagSession.restartPolling()
    }

    private func reportTags() async {
        do throws(NFCReaderError) {
            for try await found in tagSession.detectedTags {
                tagContinuation.yield(.success(found.map { $0 as any NFCNDEFTag }))
            }
        } catch {
            let reason = await tagSession.invalidationReason ?? error
            if reason.code != .userCanceled && reason.code != .firstNDEFTagRead {
                tagContinuation.yield(.failure(reason))
            }
        }
        tagContinuation.finish()
    }

    /// Ends the session; ``messages`` ends normally, with
    /// ``NFCReaderError/Code/userCanceled`` as ``invalidationReason``. An `errorMessage`
    /// is sent on ``prompts`` first.
    public func invalidate(errorMessage: String? = nil) async {
        await tagSession.invalidate(errorMessage: errorMessage)
    }

    private func readTags() async {
        do throws(NFCReaderError) {
            detections: for try await found in tagSession.detectedTags {
                // Each tag of the detection (several in the field together: each once).
                for tag in found {
                    let message: NDEFMessage
                    do {
                        try await tagSession.connect(to: tag)
                        message = try await tag.ndef.readNDEF()
                    } catch {
                        // No NDEF, or the tag left: skipped, as CoreNFC's NDEF session does.
                        continue
                    }
                    continuation.yield(.success(message))
                    if invalidateAfterFirstRead {
                        await tagSession.invalidate(
                            reason: NFCReaderError(.firstNDEFTagRead, "the session read its first NDEF message"))
                        break detections
                    }
                }
                try await tagSession.restartPolling(skippingTagInField: true)
            }
        } catch {
            // The session's own reason (a timeout racing a restart) wins over `sessionInvalidated`.
            let reason = await tagSession.invalidationReason ?? error
            if reason.code != .userCanceled && reason.code != .firstNDEFTagRead {
                continuation.yield(.failure(reason))
            }
        }
        continuation.finish()
    }
}
