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
    /// The tag leaves the field inside command k: it acts on the command (a WRITE is done) but
    /// leaves before its answer reaches the reader, which sees no tag (`tagLost`); later commands
    /// find no tag either. The cut a tearing sweep cannot reach between commands.
    public var leaveDuringCommand: Int?

    /// Creates a plan; the default injects nothing.
    public init(leaveAfterCommand: Int? = nil, rfErrorOnCommands: Set<Int> = [], leaveDuringCommand: Int? = nil) {
        self.leaveAfterCommand = leaveAfterCommand
        self.rfErrorOnCommands = rfErrorOnCommands
        self.leaveDuringCommand = leaveDuringCommand
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

/// One command the field carried and what came back, as ``VirtualField/trace`` records it.
public struct FieldExchange: Sendable, Hashable {
    /// How the command was sent.
    public enum Kind: Sendable, Hashable {
        /// A frame (``VirtualField/exchange(frame:)``).
        case frame
        /// An APDU (``VirtualField/exchange(apdu:)``).
        case apdu
        /// A MIFARE Classic authentication (the command holds the block number and key).
        case authentication
    }

    /// The command's number (from 1).
    public var number: Int
    /// How it was sent.
    public var kind: Kind
    /// The command bytes.
    public var command: [UInt8]
    /// What the reader got back (after faults).
    public var answer: FieldAnswer
}

/// The RF field of a reader and the tags that pass through it, independent of any reader: the
/// in-process ``SimulatedReader`` and the PN532 emulator host one each.
///
/// Tags wait in a queue and are presented one after another, as an operator would (batch
/// provisioning): ``presentNext()`` brings the next one, ``removeTag()`` takes the current one
/// away. A queue entry may also be a group of tags that are in the field together
/// (``init(groups:faultPlan:)``, `sim:ntag215+ntag213`): the first is ``currentTag``, the others
/// ``companionTags``; a reader lists them all and ``focus(on:)`` makes another the one commands
/// go to. Every command goes through ``exchange(frame:)``, ``exchange(apdu:)`` or
/// ``authenticate(block:keyType:key:)``, which count it and apply the ``FaultPlan``. When a tag
/// has a ``TagFile``, it is saved after each command that changed its persistent state.
///
/// A field is a class owned by one host (an actor or one thread), like the tags in it.
public final class VirtualField {
    /// Tags not yet presented, first to come first.
    public var waitingTags: [any VirtualTag] { waitingGroups.flatMap { $0 } }
    /// The queue: each entry comes into the field at once (one tag, or several together).
    private var waitingGroups: [[any VirtualTag]]
    /// The tag in the field that commands go to, if any.
    public private(set) var currentTag: (any VirtualTag)?
    /// The other tags in the field at the same time as ``currentTag`` (a group presented
    /// together); empty for a field of one tag.
    public private(set) var companionTags: [any VirtualTag] = []
    /// Every tag in the field, in the order they came into it (whichever is current).
    public var tagsInField: [any VirtualTag] {
        let all = (currentTag.map { [$0] } ?? []) + companionTags
        return all.sorted { (presentationOrder[ObjectIdentifier($0)] ?? 0) < (presentationOrder[ObjectIdentifier($1)] ?? 0) }
    }
    /// When each tag came into the field (a counter).
    private var presentationOrder: [ObjectIdentifier: Int] = [:]
    private var presentations = 0

    private func noteArrival(_ tag: any VirtualTag) {
        presentations += 1
        presentationOrder[ObjectIdentifier(tag)] = presentations
    }
    /// Commands sent to tags so far.
    public private(set) var commandCount = 0
    /// The faults to inject.
    public var faultPlan: FaultPlan
    /// Whether commands are recorded in ``trace``.
    public var isTracing = false
    /// The commands carried while ``isTracing``, oldest first: for tests that assert exact
    /// command sequences (e.g. "this NDEF write used 9 WRITE commands and no READ").
    public var trace: [FieldExchange] = []
    /// Tags taken out of the field, in order.
    public private(set) var removedTags: [any VirtualTag] = []
    /// The tag-file save failure of the last command, if its save failed.
    public private(set) var lastSaveError: TagFileError?

    private var files: [ObjectIdentifier: TagFile] = [:]

    /// A field with `tags` waiting; the first is presented at once.
    public init(tags: [any VirtualTag] = [], faultPlan: FaultPlan = .none) {
        self.waitingGroups = tags.map { [$0] }
        self.faultPlan = faultPlan
        presentNext()
    }

    /// A field whose queue holds `groups`: the tags of a group are in the field together. The
    /// first group is presented at once.
    public init(groups: [[any VirtualTag]], faultPlan: FaultPlan = .none) {
        self.waitingGroups = groups.filter { !$0.isEmpty }
        self.faultPlan = faultPlan
        presentNext()
    }

    /// Makes `tag`, which must be in the field, the one commands go to (a reader selected it
    /// among several). Returns false when it is not in the field.
    @discardableResult
    public func focus(on tag: any VirtualTag) -> Bool {
        if let currentTag, currentTag === tag { return true }
        guard let index = companionTags.firstIndex(where: { $0 === tag }) else { return false }
        companionTags.remove(at: index)
        if let currentTag { companionTags.insert(currentTag, at: 0) }
        currentTag = tag
        return true
    }

    /// Whether `tag` is in the field (current or companion).
    public func contains(_ tag: any VirtualTag) -> Bool {
        tagsInField.contains { $0 === tag }
    }

    /// Keeps `tag` saved in `file` after each command that changes it.
    public func persist(_ tag: any PersistentVirtualTag, in file: TagFile) {
        files[ObjectIdentifier(tag)] = file
    }

    /// Whether a tag is in the field.
    public var isTagPresent: Bool { currentTag != nil }

    /// Takes the current tag away (into ``removedTags``); a companion, if any, becomes the
    /// current tag; otherwise the field is empty until ``presentNext()`` or ``present(_:)``.
    public func removeTag() {
        if let tag = currentTag { removedTags.append(tag) }
        currentTag = companionTags.isEmpty ? nil : companionTags.removeFirst()
    }

    /// Removes every tag in the field and presents the next waiting entry (powered on): one tag,
    /// or a group together; returns the first, or nil when none is left.
    @discardableResult
    public func presentNext() -> (any VirtualTag)? {
        while currentTag != nil { removeTag() }
        guard !waitingGroups.isEmpty else { return nil }
        let group = waitingGroups.removeFirst()
        for tag in group {
            tag.powerOn()
            noteArrival(tag)
        }
        currentTag = group.first
        companionTags = Array(group.dropFirst())
        return currentTag
    }

    /// Puts `tag` in the field now (powered on), taking every tag in it away: e.g. a torn tag
    /// brought back to be read.
    public func present(_ tag: any VirtualTag) {
        while currentTag != nil { removeTag() }
        tag.powerOn()
        noteArrival(tag)
        currentTag = tag
    }

    /// Appends tags to the queue, each coming alone.
    public func enqueue(_ tags: [any VirtualTag]) { waitingGroups += tags.map { [$0] } }

    /// Sends a frame (ISO 14443-A without CRC, FeliCa without length, ISO 15693 without CRC).
    public func exchange(frame: [UInt8]) -> FieldAnswer {
        deliver(.frame, frame) { .frame($0.respond(to: frame)) }
    }

    /// Sends an APDU to an ISO-DEP tag; a tag that is not ISO-DEP does not answer (`.frame(.silence)`).
    public func exchange(apdu: [UInt8]) -> FieldAnswer {
        deliver(.apdu, apdu) { tag in
            guard let isoDEP = tag as? any ISODEPVirtualTag else { return .frame(.silence) }
            return .apdu(isoDEP.respond(toAPDU: apdu))
        }
    }

    /// Authenticates a MIFARE Classic sector; any other tag refuses.
    public func authenticate(block: UInt8, keyType: ClassicKeyType, key: [UInt8]) -> FieldAnswer {
        deliver(.authentication, [block] + key) { tag in
            guard let classic = tag as? any ClassicVirtualTag else { return .authenticated(false) }
            return .authenticated(classic.authenticate(block: block, keyType: keyType, key: key))
        }
    }

    private func deliver(_ kind: FieldExchange.Kind, _ command: [UInt8], _ send: (any VirtualTag) -> FieldAnswer)
        -> FieldAnswer
    {
        lastSaveError = nil
        guard let tag = currentTag else {
            if isTracing { trace.append(FieldExchange(number: commandCount, kind: kind, command: command, answer: .noTag)) }
            return .noTag
        }
        commandCount += 1
        let number = commandCount
        let revision = (tag as? any PersistentVirtualTag)?.stateRevision
        var answer = send(tag)
        if let persistent = tag as? any PersistentVirtualTag, persistent.stateRevision != revision {
            save(persistent)
        }
        if faultPlan.rfErrorOnCommands.contains(number) { answer = .rfError }
        if faultPlan.leaveAfterCommand == number { removeTag() }
        if faultPlan.leaveDuringCommand == number {
            answer = .noTag
            removeTag()
        }
        if isTracing { trace.append(FieldExchange(number: number, kind: kind, command: command, answer: answer)) }
        return answer
    }

    /// Saves a tag whose state this command changed (with any change an earlier failed save
    /// lost).
    private func save(_ tag: any PersistentVirtualTag) {
        guard let file = files[ObjectIdentifier(tag)] else { return }
        do {
            try file.save(tag.tagState)
        } catch {
            lastSaveError = error
        }
    }
}
