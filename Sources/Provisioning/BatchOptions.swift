import Foundation
public import NDEF
import NFCCore
public import NFCTags

/// What one tag gets: its message and how the ledger describes it.
public struct BatchItem: Sendable {
    /// The message to write.
    public var message: NDEFMessage
    /// A few words for the ledger and the operator (`URI https://…`).
    public var summary: String
    /// The manifest row it came from.
    public var row: Int?
    /// The counter value it used.
    public var counter: Int?
    /// The NTAG21x mirror its message asks for (a manifest row's own), nil for
    /// ``BatchOptions/mirror``.
    public var mirror: NTAGMirror? = nil
    /// The lease epoch of its row's claim, in a named run (``RowClaim/claimed(_:epoch:)``).
    public var epoch: Int64? = nil
}

/// Where each tag's data comes from.
public enum BatchSource: Sendable {
    /// A template: `build(uid, counter)` makes the message; a counter is allocated from the
    /// ledger per tag (at least `start`) when `usesCounter`.
    case template(usesCounter: Bool, start: Int, build: @Sendable (_ uid: [UInt8], _ counter: Int?) throws -> NDEFMessage)
    /// A manifest: rows consumed in order, skipping rows the ledger has done, or — with
    /// `matchByUID` — the row whose `uid` column names the tag.
    /// `mirror(row)` is the NTAG21x mirror a row's message asks for (its `url` column's
    /// `{mirror:…}`), nil for none.
    case manifest(
        rows: [ManifestRow], matchByUID: Bool, build: @Sendable (_ row: ManifestRow, _ uid: [UInt8]) throws -> NDEFMessage,
        mirror: @Sendable (_ row: ManifestRow) -> NTAGMirror? = { _ in nil })
}

/// Why ``BatchOptions/admission`` turned a tag away, as the ledger records it.
public struct BatchRefusal: Sendable, Hashable {
    /// The attempt's status in the ledger (``LedgerAttemptStatus/counterfeit``, or `failed`).
    public var status: LedgerAttemptStatus
    /// The ledger's error text.
    public var reason: String

    /// A refusal.
    public init(status: LedgerAttemptStatus, reason: String) {
        self.status = status
        self.reason = reason
    }
}

/// How a batch runs.
public struct BatchOptions: Sendable {
    /// Stop after this many tags done (nil: until the data or the operator stops it).
    public var count: Int?
    /// Stop after this many failed tags (nil: never).
    public var maxFailures: Int?
    /// Stop after this many consecutive tags failed the same deterministic way (the message
    /// does not fit, the tag is read-only, not NDEF formatted, or cannot do it): the next tags
    /// of the run would fail the same way. Nil never stops for it.
    public var maxConsecutiveFailures: Int? = 3
    /// Format blank (not NDEF) tags first.
    public var format = false
    /// Lock each tag after its verified write.
    public var lock = false
    /// Protect each NTAG21x with this password after the write and before the lock, if any (the
    /// lock sets CFGLCK, which freezes AUTH0 and ACCESS; the lock then authenticates with it).
    public var password: NTAGPassword?
    /// Write a tag whose UID the ledger already has as done.
    public var allowRewrite = false
    /// How a new tag is told from one that stays: a tag just handled is no new arrival until
    /// the reader has found an empty field for `debounce` (or a different tag); polls back off
    /// while a tag stays. See ``NFCTags/TagPresenceTracker``.
    public var presence = TagPresenceTracker.Options(debounce: .milliseconds(300), pollSlice: .milliseconds(200))
    /// How long one poll waits before checking for a stop (``presence``'s poll slice).
    public var pollSlice: Duration {
        get { presence.pollSlice }
        set { presence.pollSlice = newValue }
    }
    /// Stop when no new tag has come for this long (nil: wait for ever). A tag left on the
    /// reader is not a new tag.
    public var idleTimeout: Duration?
    /// The command timeout for tag operations.
    public var commandTimeout: Duration = .seconds(1)
    /// A check each tag must pass before anything is claimed or written for it (e.g. its
    /// originality signature): nil admits the tag; a refusal skips it, recorded in the ledger
    /// with the refusal's status (`counterfeit` for a chip not shown genuine) and reason (no row,
    /// no counter used).
    public var admission: (@Sendable (NFCTag) async -> BatchRefusal?)?
    /// Each message holds this NTAG21x mirror's placeholder characters once: tags are written
    /// with ``NFCTags/Type2Tag/writeNDEF(_:mirror:at:verify:)`` (NTAG213/215/216 only).
    public var mirror: NTAGMirror?
    /// NTAG 424 DNA mode: instead of writing the item's message, each tag is personalized for
    /// SUN with its own diversified keys and its URL read back and verified; the ledger's
    /// summary holds the URL template and the key identifiers (never a key).
    public var ntag424: NTAG424BatchPersonalization?
    /// Show each tag's outcome on readers that have a buzzer and LEDs (``NFCTags/NFCReader/signal(_:)``):
    /// a short beep and green for a done tag, a long beep and red for a failure (a counterfeit
    /// too), sent after the tag's result is recorded. A reader without feedback gets a note
    /// (``BatchEvent/feedback(reader:_:)``) and the run goes on.
    public var feedback = false
    /// A named run: a tag recorded void (its row or counter went to another station while this
    /// one was cut off) and still on its reader is erased at once (its NDEF message emptied,
    /// as `nfctool erase` does) and recorded as erased (`batch --void-erase`).
    public var voidErase = false

    /// Creates options.
    public init(count: Int? = nil, maxFailures: Int? = nil) {
        self.count = count
        self.maxFailures = maxFailures
    }
}

/// A station of a named run on a shared ledger: who it is, how long it may hold a row, and where
/// it keeps verified tags it could not record.
public struct SharedRun: Sendable {
    /// The run's name (`--run`).
    public var name: String
    /// This station's name (`--station`).
    public var station: String
    /// How long a claimed row stays this station's without being recorded.
    public var lease: Duration
    /// The local journal of tags written but not recorded.
    public var journal: BatchJournal

    /// Creates a station's view of a run.
    public init(name: String, station: String, lease: Duration, journal: BatchJournal) {
        self.name = name
        self.station = station
        self.lease = lease
        self.journal = journal
    }
}
