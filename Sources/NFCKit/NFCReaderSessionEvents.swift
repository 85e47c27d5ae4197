/// What a session reports, as an `AsyncSequence` with a typed error: the tags an
/// ``NFCTagReaderSession`` detects, or the messages an ``NFCNDEFReaderSession`` reads.
///
/// The sequence ends when the session is invalidated. It ends normally when the app invalidated
/// the session (``NFCReaderError/Code/userCanceled``) or an NDEF session read its one
/// message (``NFCReaderError/Code/firstNDEFTagRead``), and throws the invalidation
/// reason otherwise (``NFCReaderError/Code/sessionTimeout``,
/// ``NFCReaderError/Code/readerUnavailable``, …). Iterate it from one task.
public struct NFCReaderSessionEvents<Element: Sendable>: AsyncSequence, Sendable {
    /// The error that ends the sequence.
    public typealias Failure = NFCReaderError

    let base: AsyncStream<Result<Element, NFCReaderError>>

    /// Iterates the events of one session.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<Result<Element, NFCReaderError>>.Iterator

        /// The next event; `nil` when the session ended normally.
        /// - Throws: ``NFCReaderError``: why the session ended, when not normally.
        public mutating func next() async throws(NFCReaderError) -> Element? {
            try Self.unwrap(await base.next())
        }

        /// The next event, iterating on `actor`; `nil` when the session ended normally.
        /// - Throws: ``NFCReaderError``: why the session ended, when not normally.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(NFCReaderError)
            -> Element?
        {
            try Self.unwrap(await base.next(isolation: actor))
        }

        private static func unwrap(_ event: Result<Element, NFCReaderError>?) throws(NFCReaderError)
            -> Element?
        {
            switch event {
            case nil: return nil
            case .success(let element): return element
            case .failure(let error): throw error
            }
        }
    }

    /// An iterator over the session's events.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator()) }
}
