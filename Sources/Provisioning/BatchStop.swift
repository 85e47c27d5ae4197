/// Why a batch stopped, as a stable name a script can match (`nfctool batch --json` prints it as
/// `stop`); ``BatchSummary/stopReason`` keeps the sentence for people.
public enum BatchStop: String, Sendable, Hashable, Codable, CaseIterable {
    /// `--count` tags were done.
    case countReached
    /// `--max-failures` tags failed.
    case maxFailures
    /// Tags in a row failed the same way that the next would too
    /// (``BatchOptions/maxConsecutiveFailures``).
    case repeatedFailure
    /// Every row of the manifest was done.
    case manifestDone
    /// Every row of the named run (`--run`) was done, by this station or others.
    case runDone
    /// No new tag came for `--idle`.
    case idle
    /// A tag's data could not be built (a template or row the message cannot be made from).
    case dataError
    /// The ledger failed, and the run with it.
    case ledgerError
    /// Interrupted (Ctrl-C, SIGTERM, SIGHUP): the tags in progress were finished.
    case interrupted
    /// The counter `{n}` handed out its last value (``LedgerCounter/maximum``): the tags that
    /// got a value were finished; no tag was taken without one.
    case counterUsedUp
    /// The event log (`nfctool batch --event-log`) could not be written: the tags in progress
    /// were finished.
    case eventLogFailed
    /// Every reader stopped (lost or closed) before any other reason.
    case readersStopped
    /// The program running the batch stopped it (``BatchCoordinator/stop(_:)``).
    case requested
}
