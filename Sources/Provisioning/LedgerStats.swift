/// Totals over a ledger.
public struct LedgerStats: Sendable, Hashable, Codable {
    /// Runs started.
    public var runs: Int
    /// Attempts recorded.
    public var attempts: Int
    /// Tags done (distinct UIDs with a verified attempt).
    public var done: Int
    /// Failed attempts.
    public var failed: Int
    /// Tags refused as counterfeit (attempts with status `counterfeit`).
    public var counterfeit: Int
    /// Void tags (``LedgerAttemptStatus/void``: written and verified while their row or counter
    /// went to another station).
    public var void: Int = 0
    /// Void tags not yet accounted for (discarded or erased, `nfctool ledger resolve`): a run
    /// with any is not complete.
    public var voidOpen: Int = 0
    /// Tags locked.
    public var locked: Int
    /// The next counter value to be handed out.
    public var nextCounter: Int?
    /// The named run these totals are of (nil: the whole ledger).
    public var run: String?
    /// The named run's rows and stations.
    public var progress: RunProgress?
    /// Failures by cause, span, rate and splits (``RunAnalysis``), when asked for
    /// (``ProvisioningLedger/stats(run:analysed:)``; `ledger stats`).
    public var analysis: RunAnalysis?

    /// Creates totals.
    public init(
        runs: Int, attempts: Int, done: Int, failed: Int, locked: Int, nextCounter: Int?, run: String? = nil, progress: RunProgress? = nil,
        counterfeit: Int = 0
    ) {
        self.runs = runs
        self.attempts = attempts
        self.done = done
        self.failed = failed
        self.counterfeit = counterfeit
        self.locked = locked
        self.nextCounter = nextCounter
        self.run = run
        self.progress = progress
    }
}
