public import NFCTags

/// When the field misbehaves on purpose: the fault plan of a ``VirtualField``. Commands are
/// counted from 1 across the field's life (every frame, APDU or authentication sent to a tag).
public struct FaultPlan: Sendable, Hashable {
    /// The tag leaves the field right after answering command k: command k gets its answer,
    /// later commands find no tag (`tagLost`) until a tag is presented again.
    public var leaveAfterCommand: Int?
    /// Commands whose answer is corrupted on the air: the tag executes the command (a write
    /// happens) but the reader sees an RF error.
    public var rfErrorOnCommands: Set<Int>

    /// Creates a plan; the default injects nothing.
    public init(leaveAfterCommand: Int? = nil, rfErrorOnCommands: Set<Int> = []) {
        self.leaveAfterCommand = leaveAfterCommand
        self.rfErrorOnCommands = rfErrorOnCommands
    }

    /// A plan that injects nothing.
    public static let none = FaultPlan()
}

/// What the field carried back for one command.
public enum FieldAnswer: Sendable, Hashable {
    /// The tag's answer to a frame.
    case frame(TagAnswer)
    /// The tag's response APDU.
    case apdu([UInt8])
    /// A MIFARE Classic authentication result.
    case authenticated(Bool)
    /// No tag in the field (it left, or none was presented).
    case noTag
    /// The answer was corrupted (fault plan).
    case rfError
}

/// The RF field of a reader and the tags that pass through it, independent of any reader: the
/// in-process ``SimulatedReader`` and the PN532 emulator host one each.
///
/// Tags wait in a queue and are presented one after another, as an operator would (batch
/// provisioning): ``presentNext()`` brings the next one, ``removeTag()`` takes the current one
/// away. Every command goes through ``exchange(frame:)``, ``exchange(apdu:)`` or
/// ``authenticate(block:keyType:key:)``, which count it and apply the ``FaultPlan``. When a tag
/// has a ``TagFile``, it is saved after each command that changed its persistent state.
///
/// A field is a class owned by one host (an actor or one thread), like the tags in it.
public final class VirtualField {
    /// Tags not yet presented, first to come first.
    public private(set) var waitingTags: [any VirtualTag]
    /// The tag in the field, if any.
    public private(set) var currentTag: (any VirtualTag)?
    /// Commands sent to tags so far.
    public private(set) var commandCount = 0
    /// The faults to inject.
    public var faultPlan: FaultPlan
    /// Tags taken out of the field, in order.
    public private(set) var removedTags: [any VirtualTag] = []
    /// The last tag-file save failure, cleared by the next successful save.
    public private(set) var lastSaveError: TagFileError?

    private var files: [ObjectIdentifier: (file: TagFile, savedRevision: Int)] = [:]

    /// A field with `tags` waiting; the first is presented at once.
    public init(tags: [any VirtualTag] = [], faultPlan: FaultPlan = .none) {
        self.waitingTags = tags
        self.faultPlan = faultPlan
        presentNext()
    }

    /// Keeps `tag` saved in `file` after each command that changes it.
    public func persist(_ tag: any PersistentVirtualTag, in file: TagFile) {
        files[ObjectIdentifier(tag)] = (file, tag.stateRevision)
    }

    /// Whether a tag is in the field.
    public var isTagPresent: Bool { currentTag != nil }

    /// Takes the current tag away (into ``removedTags``); the field is empty until
    /// ``presentNext()`` or ``present(_:)``.
    public func removeTag() {
        if let tag = currentTag { removedTags.append(tag) }
        currentTag = nil
    }

    /// Removes the current tag and presents the next waiting one (powered on); returns it, or
    /// nil when none is left.
    @discardableResult
    public func presentNext() -> (any VirtualTag)? {
        removeTag()
        guard !waitingTags.isEmpty else { return nil }
        let tag = waitingTags.removeFirst()
        tag.powerOn()
        currentTag = tag
        return tag
    }

    /// Puts `tag` in the field now (powered on), taking the current one away: e.g. a torn tag
    /// brought back to be read.
    public func present(_ tag: any VirtualTag) {
        removeTag()
        tag.powerOn()
        currentTag = tag
    }

    /// Appends tags to the queue.
    public func enqueue(_ tags: [any VirtualTag]) { waitingTags += tags }

    /// Sends a frame (ISO 14443-A without CRC, FeliCa without length, ISO 15693 without CRC).
    public func exchange(frame: [UInt8]) -> FieldAnswer {
        deliver { .frame($0.respond(to: frame)) }
    }

    /// Sends an APDU to an ISO-DEP tag; a tag that is not ISO-DEP does not answer (`.frame(.silence)`).
    public func exchange(apdu: [UInt8]) -> FieldAnswer {
        deliver { tag in
            guard let isoDEP = tag as? any ISODEPVirtualTag else { return .frame(.silence) }
            return .apdu(isoDEP.respond(toAPDU: apdu))
        }
    }

    /// Authenticates a MIFARE Classic sector; any other tag refuses.
    public func authenticate(block: UInt8, keyType: ClassicKeyType, key: [UInt8]) -> FieldAnswer {
        deliver { tag in
            guard let classic = tag as? any ClassicVirtualTag else { return .authenticated(false) }
            return .authenticated(classic.authenticate(block: block, keyType: keyType, key: key))
        }
    }

    private func deliver(_ send: (any VirtualTag) -> FieldAnswer) -> FieldAnswer {
        guard let tag = currentTag else { return .noTag }
        commandCount += 1
        let number = commandCount
        var answer = send(tag)
        saveIfChanged(tag)
        if faultPlan.rfErrorOnCommands.contains(number) { answer = .rfError }
        if faultPlan.leaveAfterCommand == number { removeTag() }
        return answer
    }

    private func saveIfChanged(_ tag: any VirtualTag) {
        guard let persistent = tag as? any PersistentVirtualTag,
            let entry = files[ObjectIdentifier(tag)], entry.savedRevision != persistent.stateRevision
        else { return }
        do {
            try entry.file.save(persistent.tagState)
            files[ObjectIdentifier(tag)] = (entry.file, persistent.stateRevision)
            lastSaveError = nil
        } catch {
            lastSaveError = error
        }
    }
}
