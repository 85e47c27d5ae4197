/// What became of an attempt: the values of the ledgers' `status` column (one place for both
/// ledgers' schemas and for the code that writes them).
public enum LedgerAttemptStatus: String, Sendable, Hashable, CaseIterable, Codable {
    /// Written and verified.
    case done
    /// Not written, or not verified.
    case failed
    /// Refused before anything was written: the chip is not shown genuine (`batch
    /// --require-genuine`).
    case counterfeit
    /// Written and verified, but not done: while this station was cut off from the ledger its
    /// manifest row (or counter) went to another station, whose tag holds it
    /// (``LedgerAttempt/supersededStation``, ``LedgerAttempt/supersededUID``). The tag must be
    /// discarded or erased and the fact recorded (``ProvisioningLedger/resolveVoid(run:uid:as:)``,
    /// `nfctool ledger resolve`); until then the run is not complete.
    case void

    /// The SQL list of the values, for the schemas' CHECK constraints: `('done', 'failed', …)`.
    public static var sqlList: String { "(" + allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")" }
}

/// One provisioning attempt on one tag, as the ledger keeps it.
public struct LedgerAttempt: Sendable, Hashable, Codable {
    /// The attempt's row id (0 before it is recorded).
    public var id: Int64 = 0
    /// The run it belongs to.
    public var run: Int64
    /// The tag's UID, upper-case hex.
    public var uid: String
    /// The chip model.
    public var model: String
    /// The manifest row, 1-based (the n-th data row, as the dry run numbers them), when a
    /// manifest drove the run. Ledgers written before schema version 1 counted from 0; opening
    /// one migrates it.
    public var row: Int?
    /// The counter value `{n}` it got, when the template uses one.
    public var counter: Int?
    /// What was written, in a few words (`URI https://…`).
    public var summary: String
    /// Bytes of NDEF message written.
    public var bytes: Int
    /// Whether the read-back matched.
    public var verified: Bool
    /// Whether the tag was locked.
    public var locked: Bool
    /// Whether a password was set.
    public var protected: Bool
    /// The error, for a failed attempt.
    public var error: String?
    /// Why the attempt failed, as a stable code (``FailureCause``'s raw values), for a failed
    /// or counterfeit attempt. Nil for a done one and for attempts recorded before schema
    /// version 5 (SQLite) / 4 (PostgreSQL), which did not keep it.
    public var cause: String?
    /// When the tag was found (ISO 8601).
    public var started: String
    /// When the attempt ended (ISO 8601).
    public var finished: String
    /// The reader's connection string.
    public var reader: String
    /// `done` (written and verified), `failed`, or `counterfeit` (refused before any write: not
    /// a genuine chip); see ``LedgerAttemptStatus``.
    public var status: String
    /// The named run it belongs to (`--run`), if any.
    public var runName: String?
    /// The station that did it, in a named run.
    public var station: String?
    /// A unique key the station gave it, so that recording it twice (a journal replayed after
    /// the database came back) records it once.
    public var key: String?
    /// The lease epoch of the row claim the tag was written under (``RowClaim/claimed(_:epoch:)``):
    /// the ledger records it done only while the row still has this epoch (no other station
    /// has claimed it since). Nil outside named runs, for counters, and in journals written
    /// before schema version 6 (SQLite) / 5 (PostgreSQL).
    public var epoch: Int64?
    /// A ``LedgerAttemptStatus/void`` attempt's winner: the station whose tag holds the row or
    /// counter (nil when the ledger could not tell, or for other attempts).
    public var supersededStation: String?
    /// A ``LedgerAttemptStatus/void`` attempt's winner: the UID of the tag that holds the row or counter.
    public var supersededUID: String?
    /// How a ``LedgerAttemptStatus/void`` tag was accounted for (``VoidResolution``'s raw
    /// values); nil while it is not.
    public var resolution: String?

    /// Creates an attempt.
    public init(
        run: Int64, uid: String, model: String, row: Int? = nil, counter: Int? = nil, summary: String, bytes: Int,
        verified: Bool, locked: Bool = false, protected: Bool = false, error: String? = nil, cause: String? = nil, started: String,
        finished: String, reader: String, status: String, runName: String? = nil, station: String? = nil, key: String? = nil,
        epoch: Int64? = nil
    ) {
        self.epoch = epoch
        self.run = run
        self.uid = uid
        self.model = model
        self.row = row
        self.counter = counter
        self.summary = summary
        self.bytes = bytes
        self.verified = verified
        self.locked = locked
        self.protected = protected
        self.error = error
        self.cause = cause
        self.started = started
        self.finished = finished
        self.reader = reader
        self.status = status
        self.runName = runName
        self.station = station
        self.key = key
    }
}

/// How a ``LedgerAttemptStatus/void`` tag was accounted for (`nfctool ledger resolve`).
public enum VoidResolution: String, Sendable, Hashable, CaseIterable, Codable {
    /// The tag was thrown away (it never reaches the field).
    case discarded
    /// The tag was erased (`nfctool erase`, or `batch --void-erase`): it holds no message.
    case erased
}

/// What recording an attempt did (``ProvisioningLedger/recordOutcome(_:)``).
public struct RecordedAttempt: Sendable, Hashable {
    /// The attempt's id (its first id when it was recorded before: a journal replayed twice).
    public var id: Int64
    /// Its status as recorded: a verified tag whose row or counter went to another station
    /// meanwhile is ``LedgerAttemptStatus/void``, not `done`.
    public var status: String
    /// For a void attempt: the station whose tag holds the row or counter, when known.
    public var supersededStation: String?
    /// For a void attempt: the UID of the tag that holds the row or counter, when known.
    public var supersededUID: String?

    /// A record's outcome.
    public init(id: Int64, status: String, supersededStation: String? = nil, supersededUID: String? = nil) {
        self.id = id
        self.status = status
        self.supersededStation = supersededStation
        self.supersededUID = supersededUID
    }

    /// Whether the attempt was recorded void (its tag must be discarded or erased).
    public var isVoid: Bool { status == LedgerAttemptStatus.void.rawValue }
}
