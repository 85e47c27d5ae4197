public import VirtualTags

/// The RF field in front of the emulated antenna: a stack of tags presented one after another
/// (for batch provisioning), the top one in the field or taken away.
///
/// Owned by one host thread, like the tags it holds.
public final class TagField {
    /// The tags, in the order they are presented.
    public let tags: [any VirtualTag]
    /// Index of the current tag in ``tags``; equal to `tags.count` when the stack is used up.
    public private(set) var currentIndex: Int
    /// Whether the current tag is in the field.
    public private(set) var isPresent: Bool
    /// Bumped whenever the tag in the field changes, so a reader can notice a swap.
    public private(set) var generation = 0

    /// A field holding `tags`, the first one presented.
    public init(tags: [any VirtualTag]) {
        self.tags = tags
        currentIndex = 0
        isPresent = !tags.isEmpty
    }

    /// The tag in the field, if any.
    public var tagInField: (any VirtualTag)? {
        guard isPresent, currentIndex < tags.count else { return nil }
        return tags[currentIndex]
    }

    /// Takes the current tag out of the field.
    public func remove() {
        isPresent = false
        generation += 1
    }

    /// Puts the current tag (back) into the field; it powers up.
    public func present() {
        guard currentIndex < tags.count else { return }
        isPresent = true
        generation += 1
        tags[currentIndex].powerOn()
    }

    /// Takes the current tag away and presents the next one of the stack, if any.
    public func next() {
        isPresent = false
        currentIndex = min(currentIndex + 1, tags.count)
        generation += 1
        if currentIndex < tags.count { present() }
    }

    /// One line describing the field: `tag 2/3 NTAG215 present`.
    public var summary: String {
        guard currentIndex < tags.count else { return "empty: all \(tags.count) tags used" }
        return "tag \(currentIndex + 1)/\(tags.count) \(tags[currentIndex].modelName) \(isPresent ? "present" : "removed")"
    }
}
