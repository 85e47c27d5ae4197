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
    /// field), `target` first. Other tag types and readers that report one card (PC/SC) give
    /// `[target]`. `target` is left selected.
    /// - Throws: the reader's ``NFCReaderDeviceError``; `tagLost` when `target` no longer answers.
    public func tagsInField(with target: TargetInfo, limit: Int = Self.tagsInFieldLimit) async throws(NFCReaderDeviceError) -> [TargetInfo] {
        guard case .iso14443A = target, limit > 1, listsSeveralTargets else { return [target] }
        let listed = try await listTargets(for: [.iso14443A], limit: limit, timeout: .milliseconds(500))
        // Every listed tag but `target` itself (once): a second tag with the same UID counts.
        var others = listed
        if let index = others.firstIndex(where: { $0.identifier == target.identifier }) { others.remove(at: index) }
        if listed.first?.identifier != target.identifier {
            // The reader took another tag first (or lost this one): commands go to `target`.
            try await select(target)
        }
        return [target] + others
    }
}
