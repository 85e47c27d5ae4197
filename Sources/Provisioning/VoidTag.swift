/// A tag written and verified at this station whose manifest row (or counter) went to another
/// station while this one was cut off from the ledger past its lease: the ledger recorded it
/// ``LedgerAttemptStatus/void``, not done. The tag carries a duplicate of another tag's data and
/// must not reach the field: it is discarded, or erased (`nfctool erase`, `batch --void-erase`),
/// and the fact recorded with `nfctool ledger resolve`.
public struct VoidTag: Sendable, Hashable {
    /// The void tag's UID.
    public var uid: String
    /// The reader it was written on.
    public var reader: String
    /// The manifest row it holds, when a manifest drove the run.
    public var row: Int?
    /// The counter value it holds, in a template run.
    public var counter: Int?
    /// The named run.
    public var run: String
    /// The session (``LedgerAttempt/run``) that wrote it.
    public var session: Int64
    /// The station whose tag holds the row or counter, when the ledger could tell.
    public var supersededStation: String?
    /// The UID of the tag that holds the row or counter, when the ledger could tell.
    public var supersededUID: String?

    /// A void tag from its attempt and what recording it said.
    public init(_ attempt: LedgerAttempt, _ recorded: RecordedAttempt) {
        uid = attempt.uid
        reader = attempt.reader
        row = attempt.row
        counter = attempt.counter
        run = attempt.runName ?? ""
        session = attempt.run
        supersededStation = recorded.supersededStation
        supersededUID = recorded.supersededUID
    }

    /// `row 17` or `counter 42`: what the tag holds that another tag holds too.
    public var what: String {
        if let row { return "row \(row)" }
        if let counter { return "counter \(counter)" }
        return "its data"
    }

    /// What the operator reads: the tag, the row, who has it, and what to do.
    public var sentence: String {
        let winner = supersededStation.map { "station \($0)" + (supersededUID.map { " (tag \($0))" } ?? "") } ?? "another station"
        return "VOID tag \(uid): \(what) of run '\(run)' went to \(winner) while this station was cut off from the ledger — "
            + "discard this tag, or erase it with `nfctool erase`; then record it with `nfctool ledger resolve --run \(run) --uid \(uid) --discarded` (or --erased)"
    }
}
