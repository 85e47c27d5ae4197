import Foundation

// CoreNFC's synchronous session spellings over NFCKit's async ones (docs/porting-from-corenfc.md,
// "Checking availability").

/// CoreNFC's `NFCReaderSession`, the sessions' common superclass there: here only its class
/// property `readingAvailable` (the sessions are actors of their own, not subclasses).
public enum NFCReaderSession {
    /// CoreNFC's `NFCReaderSession.readingAvailable`: whether libnfc's default reader can be
    /// opened now, ``NFCReaderAvailability/check(connection:)`` for `nil` answered synchronously.
    /// It blocks the calling thread while the reader is opened and closed (the check itself runs
    /// off the caller's thread); async code should await `check(connection:)`, which also says why not.
    public static var readingAvailable: Bool { readingAvailable(connection: nil) }

    /// ``NFCReaderAvailability/check(connection:)``'s `isAvailable` for `connection`, waited for
    /// synchronously: the one implementation of the sessions' `readingAvailable`.
    public static func readingAvailable(connection: String?) -> Bool {
        let answer = Answer()
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            answer.set(await NFCReaderAvailability.check(connection: connection).isAvailable)
            done.signal()
        }
        done.wait()
        return answer.value
    }

    /// The detached check's answer, handed to the waiting thread.
    private final class Answer: @unchecked Sendable {
        private let lock = NSLock()
        private var stored = false
        var value: Bool { lock.withLock { stored } }
        func set(_ value: Bool) { lock.withLock { stored = value } }
    }
}

extension NFCNDEFReaderSession {
    /// CoreNFC's `NFCNDEFReaderSession.readingAvailable`: ``NFCReaderSession/readingAvailable``
    /// (libnfc's default reader can be opened now; blocks while it is checked).
    public static var readingAvailable: Bool { NFCReaderSession.readingAvailable }
}

extension NFCTagReaderSession {
    /// CoreNFC's `NFCTagReaderSession.readingAvailable`: ``NFCReaderSession/readingAvailable``
    /// (libnfc's default reader can be opened now; blocks while it is checked).
    public static var readingAvailable: Bool { NFCReaderSession.readingAvailable }

    /// CoreNFC's failable `NFCTagReaderSession(pollingOption:delegate:)` (its `queue:` left at
    /// `nil`), on libnfc's default reader: ``init(pollingOption:delegate:queue:connection:timeout:configuration:)``.
    /// Never `nil` in NFCKit (a reader that cannot be used ends the session at `begin()`); it is
    /// optional so that ported `session?.begin()` compiles.
    public init?(pollingOption: PollingOption, delegate: any NFCTagReaderSessionDelegate) {
        self.init(pollingOption: pollingOption, delegate: delegate, queue: nil, connection: nil)
    }
}
