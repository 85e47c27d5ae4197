import NFCCore

/// More than one tag answered where a command needs exactly one: a write, lock or format would
/// otherwise go to whichever tag the reader happened to take first.
public struct SeveralTagsInField: Error, Sendable, Hashable, CustomStringConvertible {
    /// Every tag that answered, the one the reader took first first.
    public var targets: [TargetInfo]

    /// The error for `targets` (two or more).
    public init(_ targets: [TargetInfo]) {
        self.targets = targets
    }

    /// How many tags answered.
    public var count: Int { targets.count }

    /// `2 tags in the field: take one away`.
    public var description: String { "\(count) tags in the field: take one away" }
}

extension NFCReader {
    /// The most tags ``tagsInField(with:limit:)`` lists by default (`nfc-list` lists up to 16).
    public static var tagsInFieldLimit: Int { 16 }

    /// Every tag in the field beside `target`, the tag a poll has just found and selected: the
    /// ISO 14443-A tags the reader can list together (a PN532 lists two, the simulator its whole
    /// field), `target` first, through ``NFCReader/listTargets(alongside:limit:)`` (no second poll
    /// where the reader can start from `target`). Other tag types and readers that report one card (PC/SC) give
    /// `[target]`. `target` is left selected.
    /// - Throws: the reader's ``NFCReaderDeviceError``; `tagLost` when `target` no longer answers.
    public func tagsInField(with target: TargetInfo, limit: Int = Self.tagsInFieldLimit) async throws(NFCReaderDeviceError) -> [TargetInfo] {
        guard case .iso14443A = target, limit > 1, listsSeveralTargets else { return [target] }
        // The reader starts from `target`, selected by the poll that found it.
        return try await listTargets(alongside: target, limit: limit)
    }
}
