import NFCTags
import Synchronization

/// The thread a ledger's blocking work runs on: SQLite's busy waits (up to
/// ``SQLiteLedger/lockWait``) and PostgreSQL's round trips block for as long as they take, so
/// they run on a thread of their own, as LibNFC's and PCSC's readers do (a
/// ``DeviceThreadExecutor``), never on Swift's cooperative pool, whose few threads every task
/// shares.
///
/// ``BatchCoordinator`` runs on its ledger's executor, so every ledger call it makes is made on
/// that thread; ``ProvisioningLedger/perform(_:)`` brings any other caller's calls there. The
/// thread starts at the first use and ends with the executor.
public final class LedgerExecutor: Sendable {
    private let name: String
    private let thread = Mutex<DeviceThreadExecutor?>(nil)

    /// An executor whose thread (started at its first use) is called `name`.
    public init(name: String) { self.name = name }

    /// The executor shared by ledgers that have none of their own (a test's stand-in ledger).
    public static let shared = LedgerExecutor(name: "nfctool ledger")

    /// The serial executor, for an actor's `unownedExecutor`.
    public var unownedExecutor: UnownedSerialExecutor {
        thread.withLock { thread in
            if let thread { return thread.asUnownedSerialExecutor() }
            let started = DeviceThreadExecutor(name: name)
            thread = started
            return started.asUnownedSerialExecutor()
        }
    }

    deinit {
        thread.withLock { $0?.stop() }
    }

    /// Runs `body` on this executor's thread and returns its result: for blocking ledger work
    /// made outside a ledger's own calls, such as opening one (a SQLite busy wait, a PostgreSQL
    /// connection), so that it never holds a thread of the cooperative pool.
    public func run<T: Sendable, E: Error>(_ body: @Sendable () throws(E) -> T) async throws(E) -> T {
        try await LedgerCall(on: self).run(body)
    }
}

/// Runs closures on a ledger's executor (see ``ProvisioningLedger/perform(_:)``).
actor LedgerCall {
    private let executor: LedgerExecutor

    init(on executor: LedgerExecutor) { self.executor = executor }

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.unownedExecutor }

    func run<T: Sendable, E: Error>(_ body: @Sendable () throws(E) -> T) throws(E) -> T { try body() }
}
