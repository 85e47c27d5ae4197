import Foundation

// CoreNFC's synchronous session spellings over NFCKit's async ones (docs/porting-from-corenfc.md,
// "Checking availability").

/// CoreNFC's `NFCReaderSession`, the sessions' common superclass there: here only its class
/// property `readingAvailable` (the sessions are actors of their own, not subclasses).
public enum NFCReaderSession {
    /// CoreNFC's `NFCReaderSession.readingAvailable`: whether libnfc's default reader can be
    /// opened now, ``NFCReaderAvailability/check(connection:)`` for `nil` answered synchronously.
    ///
    /// It blocks the calling thread briefly, while the reader is opened and closed (a USB or
    /// serial round trip, as a synchronous CoreNFC call would), and needs no other thread of
    /// Swift's cooperative pool: the check runs on the calling thread itself (see
    /// ``readingAvailable(connection:)``). Call it from synchronous code, as CoreNFC code does in
    /// `beginScanning()`; async code should `await NFCReaderAvailability.check(connection:)`
    /// instead, which does not hold a thread and also says why a reader is not available.
    public static var readingAvailable: Bool { readingAvailable(connection: nil) }

    /// ``NFCReaderAvailability/check(connection:)``'s `isAvailable` for `connection`, answered
    /// synchronously: the one implementation of the sessions' `readingAvailable`.
    ///
    /// The calling thread runs the check itself (the libnfc and pcsc-lite calls still run on their
    /// device threads) and blocks until it is done; no thread of the cooperative pool is waited
    /// for, so it answers even when called from inside a `Task` with every pool thread busy. It is
    /// still a blocking call: do not make it from async code.
    public static func readingAvailable(connection: String?) -> Bool {
        CallerThreadTaskExecutor.run { await NFCReaderAvailability.check(connection: connection).isAvailable }
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
