public import NFCCore
public import NDEF
public import NFCTags

// The CoreNFC shape of the sessions: delegate protocols, synchronous calls that take effect in
// order, and completion handlers. It runs over the async API (streams, actors), which stays the
// primary one; see docs/porting-from-corenfc.md.

/// The calls of a session's synchronous API, run one after another on one task, so
/// `session.alertMessage = …; session.invalidate()` take effect in the order written.
final class SessionCommandQueue: Sendable {
    private let continuation: AsyncStream<@Sendable () async -> Void>.Continuation

    init() {
        let (stream, continuation) = AsyncStream.makeStream(of: (@Sendable () async -> Void).self)
        self.continuation = continuation
        Task {
            for await command in stream { await command() }
        }
    }

    /// Runs `command` after the commands enqueued before it.
    func enqueue(_ command: @escaping @Sendable () async -> Void) {
        continuation.yield(command)
    }

    /// Runs `work` in turn, then hands its outcome (`nil` or the error) to `completionHandler`
    /// on the main actor: CoreNFC's completion-handler shape.
    func enqueue(
        _ work: @escaping @Sendable () async throws -> Void, completionHandler: @escaping @MainActor @Sendable ((any Error)?) -> Void
    ) {
        enqueue {
            do {
                try await work()
                await completionHandler(nil)
            } catch {
                await completionHandler(error)
            }
        }
    }

    deinit { continuation.finish() }
}

/// CoreNFC's `NFCNDEFReaderSessionDelegate`: what an ``NFCNDEFReaderSession`` made with
/// ``NFCNDEFReaderSession/init(delegate:queue:invalidateAfterFirstRead:connection:timeout:)``
/// reports, on the main actor.
///
/// As in CoreNFC, a delegate that implements ``readerSession(_:didDetect:)`` gets the tags and
/// drives them (connect, query, read, write, lock, `restartPolling()`); one that does not gets
/// each tag's message in ``readerSession(_:didDetectNDEFs:)`` (the default
/// ``readerSession(_:didDetect:)`` reads it, and ends the session after the first message when
/// `invalidateAfterFirstRead` is set). ``readerSession(_:didInvalidateWithError:)`` comes last,
/// with an ``NFCReaderError``.
@MainActor
public protocol NFCNDEFReaderSessionDelegate: AnyObject, Sendable {
    /// The session began and polls for tags.
    func readerSessionDidBecomeActive(_ session: NFCNDEFReaderSession)
    /// The session ended, for `error` (an ``NFCReaderError``); it cannot be begun again.
    func readerSession(_ session: NFCNDEFReaderSession, didInvalidateWithError error: any Error)
    /// The messages read from a tag (when ``readerSession(_:didDetect:)`` is not implemented).
    func readerSession(_ session: NFCNDEFReaderSession, didDetectNDEFs messages: [NFCNDEFMessage])
    /// The tags in the field; the session pauses until `restartPolling()` or `invalidate()`.
    func readerSession(_ session: NFCNDEFReaderSession, didDetect tags: [any NFCNDEFTag])
}

extension NFCNDEFReaderSessionDelegate {
    /// Does nothing.
    public func readerSessionDidBecomeActive(_ session: NFCNDEFReaderSession) {}

    /// Does nothing.
    public func readerSession(_ session: NFCNDEFReaderSession, didDetectNDEFs messages: [NFCNDEFMessage]) {}

    /// Reads the message of each tag and reports it to ``readerSession(_:didDetectNDEFs:)``;
    /// then ends the session (`invalidateAfterFirstRead`) or polls for the next tag. Tags
    /// without NDEF, or that leave before their message is read, are skipped.
    public func readerSession(_ session: NFCNDEFReaderSession, didDetect tags: [any NFCNDEFTag]) {
        session.tagSession.commands.enqueue { [weak self] in
            await session.readMessages(of: tags) { messages in
                self?.readerSession(session, didDetectNDEFs: messages)
            }
        }
    }
}

extension NFCNDEFReaderSession {
    /// Starts the session (CoreNFC's `begin()`): a failure, or a session already invalidated, is
    /// reported to the delegate's `readerSession(_:didInvalidateWithError:)` (or ends
    /// ``messages``/``tags``) instead of being thrown.
    public nonisolated func begin() {
        tagSession.commands.enqueue { await self.beginFromCommand() }
    }

    /// Ends the session (CoreNFC's `invalidate()`), after the calls made before it.
    public nonisolated func invalidate() {
        tagSession.commands.enqueue { await self.invalidate(errorMessage: nil) }
    }

    /// Ends the session showing `errorMessage` (CoreNFC's `invalidate(errorMessage:)`), after the
    /// calls made before it.
    public nonisolated func invalidate(errorMessage: String?) {
        tagSession.commands.enqueue { await self.invalidate(errorMessage: errorMessage) }
    }

    /// Polls again (CoreNFC's `restartPolling()`); a tag that stayed in the field is reported
    /// again.
    public nonisolated func restartPolling() {
        tagSession.commands.enqueue { try? await self.restartPolling() }
    }

    /// Connects to `tag` (CoreNFC's `connect(to:completionHandler:)`); `completionHandler` gets
    /// `nil` or an ``NFCReaderError``, on the main actor.
    public nonisolated func connect(
        to tag: any NFCNDEFTag, completionHandler: @escaping @MainActor @Sendable ((any Error)?) -> Void
    ) {
        tagSession.commands.enqueue({ try await self.connect(to: tag) }, completionHandler: completionHandler)
    }

    private func beginFromCommand() async {
        do {
            try await begin()
        } catch {
            if let delegate { await delegate.readerSession(self, didInvalidateWithError: error) }
            return
        }
        guard let delegate else { return }
        Task { await self.drive(delegate) }
    }

    /// Reports the session's events to `delegate` until it ends.
    private func drive(_ delegate: any NFCNDEFReaderSessionDelegate) async {
        await delegate.readerSessionDidBecomeActive(self)
        do throws(NFCReaderError) {
            for try await found in tags {
                await delegate.readerSession(self, didDetect: found)
            }
        } catch {}
        let reason =
            await invalidationReason
            ?? NFCReaderError(.readerSessionInvalidationErrorUserCanceled, "the session was invalidated")
        await delegate.readerSession(self, didInvalidateWithError: reason)
    }

    /// The default tag handling of a delegate: read each tag's message, report it, then end
    /// the session or poll for the next tag (skipping the tags just read while they stay).
    func readMessages(
        of found: [any NFCNDEFTag], report: @escaping @MainActor @Sendable ([NFCNDEFMessage]) -> Void
    ) async {
        for tag in found {
            do {
                try await connect(to: tag)
                let message = try await tag.readNDEF()
                await report([message])
            } catch {
                continue
            }
            if invalidateAfterFirstRead {
                await tagSession.invalidate(
                    reason: NFCReaderError(.readerSessionInvalidationErrorFirstNDEFTagRead, "the session read its first NDEF message"))
                return
            }
        }
        try? await tagSession.restartPolling(skippingTagInField: true)
    }
}

extension NFCNDEFTag {
    /// CoreNFC's `queryNDEFStatus(completionHandler:)`: the status, the capacity in bytes, and
    /// `nil` or an ``NFCReaderError``, on the main actor.
    public func queryNDEFStatus(
        completionHandler: @escaping @MainActor @Sendable (NFCNDEFStatus, Int, (any Error)?) -> Void
    ) {
        Task {
            do throws(NFCTagError) {
                let query = try await queryNDEFStatus()
                await completionHandler(query.status, query.capacity, nil)
            } catch {
                await completionHandler(.notSupported, 0, NFCReaderError(error))
            }
        }
    }

    /// CoreNFC's `readNDEF(completionHandler:)`: the message or an ``NFCReaderError``, on the
    /// main actor.
    public func readNDEF(completionHandler: @escaping @MainActor @Sendable (NFCNDEFMessage?, (any Error)?) -> Void) {
        Task {
            do throws(NFCTagError) {
                let message = try await readNDEF()
                await completionHandler(message, nil)
            } catch {
                await completionHandler(nil, NFCReaderError(error))
            }
        }
    }

    /// CoreNFC's `writeNDEF(_:completionHandler:)`: writes `message` (read back to verify) and
    /// reports `nil` or an ``NFCReaderError`` on the main actor; an empty message is
    /// ``NFCReaderError/Code/ndefReaderSessionErrorZeroLengthMessage``.
    public func writeNDEF(_ message: NFCNDEFMessage, completionHandler: @escaping @MainActor @Sendable ((any Error)?) -> Void) {
        Task {
            do throws(NFCReaderError) {
                try await writeNDEF(message)
                await completionHandler(nil)
            } catch {
                await completionHandler(error)
            }
        }
    }

    /// CoreNFC's `writeLock(completionHandler:)`: makes the tag read-only for good, reporting
    /// `nil` or an ``NFCReaderError`` on the main actor.
    public func writeLock(completionHandler: @escaping @MainActor @Sendable ((any Error)?) -> Void) {
        Task {
            do throws(NFCTagError) {
                try await writeLock()
                await completionHandler(nil)
            } catch {
                await completionHandler(NFCReaderError(error))
            }
        }
    }
}

/// CoreNFC's `NFCTagReaderSessionDelegate`: what an ``NFCTagReaderSession`` made with
/// ``NFCTagReaderSession/init(pollingOption:delegate:queue:connection:timeout:configuration:)``
/// reports, on the main actor. ``tagReaderSession(_:didInvalidateWithError:)`` comes last, with
/// an ``NFCReaderError``.
@MainActor
public protocol NFCTagReaderSessionDelegate: AnyObject, Sendable {
    /// The session began and polls for tags.
    func tagReaderSessionDidBecomeActive(_ session: NFCTagReaderSession)
    /// The session ended, for `error` (an ``NFCReaderError``); it cannot be begun again.
    func tagReaderSession(_ session: NFCTagReaderSession, didInvalidateWithError error: any Error)
    /// The tags in the field; the session pauses until `restartPolling()` or `invalidate()`.
    func tagReaderSession(_ session: NFCTagReaderSession, didDetect tags: [NFCTag])
}

extension NFCTagReaderSessionDelegate {
    /// Does nothing.
    public func tagReaderSessionDidBecomeActive(_ session: NFCTagReaderSession) {}
}

extension NFCTagReaderSession {
    /// Starts the session (CoreNFC's `begin()`): a failure, or a session already invalidated, is
    /// reported to the delegate's `tagReaderSession(_:didInvalidateWithError:)` (or ends
    /// ``tags``) instead of being thrown.
    public nonisolated func begin() {
        commands.enqueue { await self.beginFromCommand() }
    }

    /// Ends the session (CoreNFC's `invalidate()`), after the calls made before it.
    public nonisolated func invalidate() {
        commands.enqueue { await self.invalidate(errorMessage: nil) }
    }

    /// Ends the session showing `errorMessage` (CoreNFC's `invalidate(errorMessage:)`), after the
    /// calls made before it.
    public nonisolated func invalidate(errorMessage: String?) {
        commands.enqueue { await self.invalidate(errorMessage: errorMessage) }
    }

    /// Polls again (CoreNFC's `restartPolling()`); a tag that stayed in the field is reported
    /// again.
    public nonisolated func restartPolling() {
        commands.enqueue { try? await self.restartPolling(skippingTagInField: false) }
    }

    /// Connects to `tag` (CoreNFC's `connect(to:completionHandler:)`); `completionHandler` gets
    /// `nil` or an ``NFCReaderError``, on the main actor.
    public nonisolated func connect(
        to tag: NFCTag, completionHandler: @escaping @MainActor @Sendable ((any Error)?) -> Void
    ) {
        commands.enqueue({ try await self.connect(to: tag) }, completionHandler: completionHandler)
    }

    private func beginFromCommand() async {
        do {
            try await begin()
        } catch {
            if let delegate { await delegate.tagReaderSession(self, didInvalidateWithError: error) }
            return
        }
        guard let delegate else { return }
        Task { await self.drive(delegate) }
    }

    /// Reports the session's events to `delegate` until it ends.
    private func drive(_ delegate: any NFCTagReaderSessionDelegate) async {
        await delegate.tagReaderSessionDidBecomeActive(self)
        do throws(NFCReaderError) {
            for try await found in detectedTags {
                await delegate.tagReaderSession(self, didDetect: found)
            }
        } catch {}
        let reason =
            invalidationReason
            ?? NFCReaderError(.readerSessionInvalidationErrorUserCanceled, "the session was invalidated")
        await delegate.tagReaderSession(self, didInvalidateWithError: reason)
    }
}

extension ISO7816Tag {
    /// CoreNFC's `sendCommand(apdu:completionHandler:)`: the response data, SW1, SW2 and `nil`
    /// or an ``NFCReaderError``, on the main actor.
    public func sendCommand(
        apdu: ISO7816APDU, completionHandler: @escaping @MainActor @Sendable (Bytes, UInt8, UInt8, (any Error)?) -> Void
    ) {
        Task {
            do throws(NFCTagError) {
                let (data, sw1, sw2) = try await sendCommand(apdu: apdu)
                await completionHandler(data, sw1, sw2, nil)
            } catch {
                await completionHandler(Bytes(), 0, 0, NFCReaderError(error))
            }
        }
    }
}
