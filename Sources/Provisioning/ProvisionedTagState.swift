import NDEF
import NFCCore
public import NFCTags

/// What a tag holds now, in the terms the ledger records an attempt in (``LedgerAttempt``): its
/// message as a summary and a byte count, whether it is locked, whether a password protects it.
/// `nfctool verify --ledger` reads it and compares it with the ledger (``LedgerComparison``).
public struct ProvisionedTagState: Sendable, Hashable {
    /// The stored message, as far as it could be read.
    public enum Message: Sendable, Hashable {
        /// The message: ``BatchCoordinator/describe(_:)``'s summary and its encoded size, as
        /// batch records them.
        case message(summary: String, bytes: Int)
        /// No message could be compared: not NDEF, unreadable (the reason says which).
        case unavailable(String)
    }

    /// How the tag is locked.
    public enum Lock: Sendable, Hashable {
        /// Locked for good: ``NFCTags/NFCNDEFTag/readOnlyGaps()`` names nothing missing.
        case locked
        /// Not locked: the NDEF status is read-write.
        case notLocked
        /// Read-only by its NDEF status but not locked for good: the missing parts.
        case partly([String])
        /// Unknown (the reason).
        case unknown(String)
    }

    /// How a password protects the tag.
    public enum Protection: Sendable, Hashable {
        /// No password: AUTH0 past the last page, or a chip without one.
        case none
        /// Protected (`write-protected from page 4`, `read-protected`).
        case protected(String)
        /// Unknown (the reason).
        case unknown(String)
    }

    /// The UID, upper-case hex (as the ledger keeps it).
    public var uid: String
    /// The chip model.
    public var model: String
    /// The stored message.
    public var message: Message
    /// The lock state.
    public var lock: Lock
    /// The password protection.
    public var protection: Protection
    /// The NTAG213/215/216 mirror that is on, nil when none is (or the chip has none): the
    /// message read then shows the UID or counter where the ledger's summary holds the
    /// placeholder characters.
    public var mirror: NTAGMirror?
    /// Whether the chip is an NTAG 424 DNA: its ledger summary is the SUN template, and the
    /// message it answers changes at every read.
    public var isNTAG424: Bool

    /// A state, as read or as a test gives it.
    public init(
        uid: String, model: String, message: Message, lock: Lock, protection: Protection, mirror: NTAGMirror? = nil,
        isNTAG424: Bool = false
    ) {
        self.uid = uid
        self.model = model
        self.message = message
        self.lock = lock
        self.protection = protection
        self.mirror = mirror
        self.isNTAG424 = isNTAG424
    }

    /// Reads `tag` (on `reader`, which re-selects a chip a refused READ sent idle); never
    /// throws: what cannot be read is ``Message/unavailable(_:)`` or `unknown`. Writes nothing.
    public static func read(_ tag: NFCTag, reader: any NFCReader) async -> ProvisionedTagState {
        let identity = tag.identity
        var state = ProvisionedTagState(
            uid: Hex.encode(tag.identifier, uppercase: true), model: identity.model, message: .unavailable("not read"),
            lock: .unknown("not read"), protection: .none, isNTAG424: identity.family == .ntagDNA)
        var status: NDEFStatus?
        do {
            let reading = try await tag.ndef.readNDEFWithStatus()
            status = reading.query.status
            if let message = reading.message {
                state.message = .message(summary: BatchCoordinator.describe(message), bytes: try message.encodedForTag().count)
            } else {
                state.message = .unavailable("not NDEF formatted")
            }
        } catch {
            state.message = .unavailable(error.reason)
            await reselectISO14443A(tag, reader)
        }
        do {
            let gaps = try await tag.ndef.readOnlyGaps()
            if gaps.isEmpty {
                state.lock = .locked
            } else if status == .readWrite {
                state.lock = .notLocked
            } else if status == .readOnly {
                state.lock = .partly(gaps)
            } else {
                state.lock = .unknown("NDEF status unknown; not locked: " + gaps.joined(separator: "; "))
            }
        } catch {
            state.lock = status == .readWrite ? .notLocked : .unknown(error.reason)
            await reselectISO14443A(tag, reader)
        }
        if case .miFare(let mifare) = tag, let type2 = mifare.type2, let profile = type2.profile {
            do {
                let configuration = try await type2.readConfiguration()
                if configuration.auth0 < profile.totalPages {
                    let kind = configuration.readProtected ? "read/write" : "write"
                    state.protection = .protected("\(kind)-protected from page \(configuration.auth0)")
                }
                if type2.hasMirror { state.mirror = configuration.mirror?.kind }
            } catch where error.code == .passwordRequired {
                state.protection = .protected("read-protected")
                await reselectISO14443A(tag, reader)
            } catch {
                state.protection = .unknown(error.reason)
                await reselectISO14443A(tag, reader)
            }
        }
        return state
    }

    /// Polls again for an ISO 14443-A tag, so that a chip a NAK sent to IDLE answers the next
    /// command; other tags are left alone.
    private static func reselectISO14443A(_ tag: NFCTag, _ reader: any NFCReader) async {
        guard case .miFare(let mifare) = tag, mifare.type1 == nil else { return }
        _ = try? await reader.poll(for: [.iso14443A], timeout: .milliseconds(500))
    }
}
