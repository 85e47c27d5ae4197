public import VirtualTags

/// The RF field in front of the emulated antenna: a ``VirtualTags/VirtualField`` (a queue of
/// tags presented one after another, fault injection, tag files) plus a generation counter that
/// tells the chip when the tag in the field was swapped or re-presented.
///
/// Owned by one host thread, like the tags it holds.
public final class TagField {
    /// The field every command to a tag goes through.
    public let field: VirtualField
    /// Bumped whenever the tag in the field changes by a control action, so the chip notices
    /// that an activated target is gone even when the same tag comes back.
    public private(set) var generation = 0
    /// Whether a deselected tag leaves and the next of the stack comes (`--hand-out deselect`).
    public var handsOutOnDeselect = false

    /// A field over `field`.
    public init(field: VirtualField) {
        self.field = field
    }

    /// A field with `tags` queued, the first one presented.
    public convenience init(tags: [any VirtualTag]) {
        self.init(field: VirtualField(tags: tags))
    }

    /// The tag in the field, if any.
    public var tagInField: (any VirtualTag)? { field.currentTag }

    /// Takes the current tag out of the field.
    public func remove() {
        field.removeTag()
        generation += 1
    }

    /// Puts the tag taken away last back into the field (powered up again).
    public func present() {
        guard field.currentTag == nil, let tag = field.removedTags.last else { return }
        field.present(tag)
        generation += 1
    }

    /// Takes the current tag away and presents the next queued one, if any.
    public func next() {
        field.presentNext()
        generation += 1
    }

    /// One line describing the field: `NTAG215 04534…01 present, 2 waiting`, `empty (NTAG215
    /// 04534…01 removed), 2 waiting`.
    public var summary: String {
        func name(_ tag: any VirtualTag) -> String {
            "\(tag.modelName) \(tag.targetInfo.identifier.description.lowercased())"
        }
        let waiting = "\(field.waitingTags.count) waiting"
        if field.currentTag != nil { return "\(field.tagsInField.map(name).joined(separator: " + ")) present, \(waiting)" }
        if let tag = field.removedTags.last { return "empty (\(name(tag)) removed), \(waiting)" }
        return "empty, \(waiting)"
    }
}
