public import NDEF
public import NFCTags

/// A session that reads the NDEF message of each tag brought to the reader: CoreNFC's
/// `NFCNDEFReaderSession`, in async Swift.
///
/// It polls for every tag family the reader supports, reads each new tag's message and reports it
/// on ``messages``; an NDEF-formatted empty tag gives `NDEFMessage.empty`. Tags without NDEF,
/// and tags that leave before their message is read, are skipped. With
/// `invalidateAfterFirstRead` (the default, as in CoreNFC) the session ends after the first
/// message with ``NFCReaderSessionError/Code/firstNDEFTagRead`` and ``messages`` ends normally;
/// otherwise it goes on reading tags until invalidated or timed out, each tag once while it
/// stays in the field.
///
/// Everything else (one session per reader, the 60-second timeout, ``prompts``, no reuse after
/// invalidation) is as for ``NFCTagReaderSession``, which this session runs underneath.
public actor NFCNDEFReaderSession {
    /// Whether the session ends after the first message read.
    public nonisolated let invalidateAfterFirstRead: Bool
    /// The messages read, one per tag; see ``NFCReaderSessionEvents`` for how it ends.
    public nonisolated let messages: NFCReaderSessionEvents<NDEFMessage>
    /// What a user should be told (CoreNFC's alert sheet); see ``NFCTagReaderSession/prompts``.
    public nonisolated var prompts: AsyncStream<String> { tagSession.prompts }

    private let tagSession: NFCTagReaderSession
    private let continuation: AsyncStream<Result<NDEFMessage, NFCReaderSessionError>>.Continuation
    private var readingTask: Task<Void, Never>?

    /// A session on a reader the caller opened (and closes).
    /// - Parameters:
    ///   - invalidateAfterFirstRead: end the session after the first message.
    ///   - reader: the reader to poll.
    ///   - timeout: the session's lifetime after ``begin()``; 60 s by default.
    ///   - alertMessage: the first message for the user, sent on ``prompts`` at ``begin()``.
    public init(
        invalidateAfterFirstRead: Bool = true, reader: any NFCReader,
        timeout: Duration = NFCTagReaderSession.defaultTimeout, alertMessage: String = ""
    ) {
        self.init(
            invalidateAfterFirstRead: invalidateAfterFirstRead,
            tagSession: NFCTagReaderSession(
                pollingOption: [.iso14443, .iso15693, .iso18092], reader: reader, timeout: timeout,
                alertMessage: alertMessage))
    }

    /// A session that opens its reader at ``begin()`` from a connection string (see
    /// ``ReaderConnection``; `nil` for libnfc's default device) and closes it when invalidated.
    /// - Parameters:
    ///   - invalidateAfterFirstRead: end the session after the first message.
    ///   - connection: the reader's connection string; `nil` for the default device.
    ///   - timeout: the session's lifetime after ``begin()``; 60 s by default.
    ///   - alertMessage: the first message for the user, sent on ``prompts`` at ``begin()``.
    public init(
        invalidateAfterFirstRead: Bool = true, connection: String?,
        timeout: Duration = NFCTagReaderSession.defaultTimeout, alertMessage: String = ""
    ) {
        self.init(
            invalidateAfterFirstRead: invalidateAfterFirstRead,
            tagSession: NFCTagReaderSession(
                pollingOption: [.iso14443, .iso15693, .iso18092], connection: connection, timeout: timeout,
                alertMessage: alertMessage))
    }

    private init(invalidateAfterFirstRead: Bool, tagSession: NFCTagReaderSession) {
        self.invalidateAfterFirstRead = invalidateAfterFirstRead
        self.tagSession = tagSession
        let (stream, continuation) = AsyncStream.makeStream(of: Result<NDEFMessage, NFCReaderSessionError>.self)
        self.messages = NFCReaderSessionEvents(base: stream)
        self.continuation = continuation
        continuation.onTermination = { termination in
            guard case .cancelled = termination else { return }
            Task { await tagSession.invalidate() }
        }
    }

    /// Whether the session has begun and is not invalidated.
    public var isReady: Bool {
        get async { await tagSession.isReady }
    }

    /// Why the session ended; `nil` while it has not.
    public var invalidationReason: NFCReaderSessionError? {
        get async { await tagSession.invalidationReason }
    }

    /// Changes the message for the user and sends it on ``prompts``.
    public func setAlertMessage(_ message: String) async {
        await tagSession.setAlertMessage(message)
    }

    /// Takes the reader and starts reading.
    /// - Throws: ``NFCReaderSessionError`` as ``NFCTagReaderSession/begin()``.
    public func begin() async throws(NFCReaderSessionError) {
        do {
            try await tagSession.begin()
        } catch {
            // A second begin() leaves a running session's messages alone.
            if error.code != .sessionInvalidated {
                continuation.yield(.failure(error))
                continuation.finish()
            }
            throw error
        }
        readingTask = Task { await self.readTags() }
    }

    /// Ends the session; ``messages`` ends normally, with
    /// ``NFCReaderSessionError/Code/userCanceled`` as ``invalidationReason``. An `errorMessage`
    /// is sent on ``prompts`` first.
    public func invalidate(errorMessage: String? = nil) async {
        await tagSession.invalidate(errorMessage: errorMessage)
    }

    private func readTags() async {
        do throws(NFCReaderSessionError) {
            for try await tag in tagSession.tags {
                let message: NDEFMessage
                do {
                    message = try await tag.ndef.readNDEF()
                } catch {
                    // No NDEF, or the tag left: skipped, as CoreNFC's NDEF session does.
                    try await tagSession.restartPolling()
                    continue
                }
                continuation.yield(.success(message))
                if invalidateAfterFirstRead {
                    await tagSession.invalidate(
                        reason: NFCReaderSessionError(.firstNDEFTagRead, "the session read its first NDEF message"))
                } else {
                    try await tagSession.restartPolling()
                }
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
