import NFCCore
public import NFCTags
import Foundation

/// A parsed simulator specification: which tags the simulated reader holds and what faults it
/// injects. The one grammar for the simulator, shared by `sim:` connection strings
/// (``init(parsing:)``) and the emulators' `--tag` (``init(tagSpecification:)``), documented in
/// `docs/simulator.md`:
///
/// ```
/// sim:MODEL[*COUNT][?OPTION[&OPTION…]]
/// sim:?file=PATH[&OPTION…]          (the model comes from the tag file)
/// sim:empty[?poll-wait=MS]          (a reader with nothing in its field)
/// sim:MODEL[:PATH]+MODEL[:PATH][+…][?OPTION…]
///                                   (several tags in the field together, each from its tag
///                                    file when `:PATH` is given)
/// MODEL[*COUNT][:PATH][?OPTION…]    (--tag: `sim:` may be left out; `:PATH` is file=PATH, or
///                                    dir=PATH for a stack)
/// ```
///
/// In a field of several tags (`+`), the options apply to every tag and to the field; a stack
/// (`*N`, `count=`, `dir=`), `file=` (use `:PATH` after each model) and `hand-out` are refused.
/// Tag `i` (from 0) gets its model's default UID (or `uid=`) plus `i`, as in a stack.
///
/// Options: `file=PATH`, `dir=PATH`, `uid=HEX`, `ndef=HEX`, `signature=HEX` (the originality
/// signature of new NTAG21x, Ultralight EV1, Ultralight AES, SLIX2 and ICODE DNA tags), `count=N`, `leave-after=K`, `rf-error=K[,K…]`,
/// `ndef-size=N`, `read-only`, `poll-wait=MS`, `hand-out=deselect|never`, `presence=selected|field|none`.
public struct SimulatorConfiguration: Sendable, Hashable {
    /// The models whose chips answer an originality signature (`signature=`): 32 bytes, or
    /// as ``iso7816SignatureModels`` and ``ultralightAESSignatureModels`` say.
    static let signatureModels: Set<String> = ["ntag213", "ntag215", "ntag216", "ultralight", "ultralight-ev1-mf0ul21", "ultralight-aes", "slix2", "type4", "ntag424", "desfire-ev2", "desfire-ev3", "desfire-light", "desfire-light-ndef", "icode-dna"]

    /// The models answering a 48-byte READ_SIG signature (secp192r1).
    static let ultralightAESSignatureModels: Set<String> = ["ultralight-aes"]

    /// The models answering a 56-byte Read_Sig signature (ISO-DEP).
    static let iso7816SignatureModels: Set<String> = ["type4", "ntag424", "desfire-ev2", "desfire-ev3", "desfire-light", "desfire-light-ndef"]

    /// The largest stack.
    public static let maximumCount = 100_000

    /// The model, or nil when it comes from the tag file.
    public var model: TagModel?
    /// Tags in the stack.
    public var count: Int
    /// The first tag's UID; the others count up from it.
    public var uid: [UInt8]?
    /// A tag file holding the (single) tag's state.
    public var file: String?
    /// A directory holding one tag file per tag of the stack, named by UID (`04534…01.json`).
    public var directory: String?
    /// Faults to inject.
    public var faultPlan: FaultPlan
    /// Model options (Type 4 file size and read-only flag, an NDEF message to deliver tags with).
    public var options: TagModelOptions
    /// The longest an empty-field poll waits.
    public var pollWait: Duration
    /// Whether deselect takes the tag away; default: when `count > 1`.
    public var handOutOnDeselect: Bool?
    /// How the reader answers a presence check (`presence=`); default: as a PN532.
    public var presence: SimulatedReader.PresenceCheck = .selectedTag
    /// The string parsed.
    public var connectionString: String
    /// `sim:empty`: a reader with no tag in its field (``count`` is 0).
    public var isEmptyField = false
    /// The other tags in the field together with this configuration's tag (`sim:A+B`): one
    /// model (and tag file) each; empty for a single tag or a stack.
    public var companions: [(model: TagModel, file: String?)] {
        get { companionParts.map { ($0.model, $0.file) } }
        set { companionParts = newValue.map { Companion(model: $0.model, file: $0.file) } }
    }
    private var companionParts: [Companion] = []
    private struct Companion: Sendable, Hashable {
        var model: TagModel
        var file: String?
    }
    /// Whether the configuration puts several tags in the field together.
    public var isGroup: Bool { !companionParts.isEmpty }

    /// Whether `string` is for the simulator (starts with `sim:`): how a reader factory picks
    /// between the simulator and libnfc.
    public static func accepts(_ string: String) -> Bool { string.hasPrefix("sim:") }

    /// Parses a `sim:` connection string.
    /// - Throws: ``NFCReaderDeviceError`` `invalidArgument`, with a reason naming the bad part (an
    ///   unknown model lists the known ones).
    public init(parsing string: String) throws(NFCReaderDeviceError) {
        connectionString = string
        guard string.hasPrefix("sim:") else { throw Self.invalid("'\(string)' does not start with 'sim:'") }
        let rest = string.dropFirst(4)
        let head: Substring
        let query: Substring?
        if let q = rest.firstIndex(of: "?") {
            head = rest[..<q]
            query = rest[rest.index(after: q)...]
        } else {
            head = rest
            query = nil
        }
        count = 1
        faultPlan = .none
        options = TagModelOptions()
        pollWait = .seconds(1)
        var countGiven = false
        var modelName: Substring
        var parts = head.split(separator: "+", omittingEmptySubsequences: false)
        if parts.count > 1 {
            // Several tags in the field together: MODEL[:PATH] each.
            var first: (TagModel, String?)?
            for part in parts {
                let colon = part.firstIndex(of: ":")
                let name = part[..<(colon ?? part.endIndex)]
                let path = colon.map { String(part[part.index(after: $0)...]) }
                guard !name.isEmpty, !name.contains("*") else {
                    throw Self.invalid("each tag of a field '\(string)' is MODEL or MODEL:FILE (no stacks), got '\(part)'")
                }
                guard let found = TagModel.named(String(name)) else {
                    throw Self.invalid("unknown tag model '\(name)'; known models: \(TagModel.knownNames)")
                }
                if let path, path.isEmpty { throw Self.invalid("'\(part)' names no file after ':'") }
                if first == nil { first = (found, path) } else { companionParts.append(Companion(model: found, file: path)) }
            }
            file = first?.1
            parts = [Substring(first?.0.name ?? "")]
        }
        modelName = parts[0]
        if let star = head.firstIndex(of: "*"), !isGroup {
            modelName = head[..<star]
            count = try Self.integer(head[head.index(after: star)...], "stack size after '*'", 1...Self.maximumCount)
            countGiven = true
        }
        if modelName == "empty", !countGiven, !isGroup {
            model = nil
            isEmptyField = true
            count = 0
            pollWait = .milliseconds(50)
        } else if modelName.isEmpty {
            model = nil
        } else if let found = TagModel.named(String(modelName)) {
            model = found
        } else {
            throw Self.invalid("unknown tag model '\(modelName)'; known models: \(TagModel.knownNames)")
        }
        for item in (query ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let key: Substring
            let value: Substring?
            if let eq = item.firstIndex(of: "=") {
                key = item[..<eq]
                value = item[item.index(after: eq)...]
            } else {
                key = item
                value = nil
            }
            if isEmptyField && key != "poll-wait" {
                throw Self.invalid("sim:empty takes one option, poll-wait=MS; got '\(item)'")
            }
            func required() throws(NFCReaderDeviceError) -> Substring {
                guard let value, !value.isEmpty else { throw Self.invalid("option '\(key)' needs a value") }
                return value
            }
            switch key {
            case "file":
                if isGroup { throw Self.invalid("in a field of several tags, give each tag's file after its model (MODEL:FILE)") }
                file = String(try required())
            case "dir": directory = String(try required())
            case "uid":
                let text = try required()
                do { uid = try Hex.decode(String(text)) } catch {
                    throw Self.invalid("uid '\(text)': \(error)")
                }
            case "count":
                if countGiven { throw Self.invalid("the stack size is given twice") }
                count = try Self.integer(try required(), "count", 1...Self.maximumCount)
                countGiven = true
            case "leave-after":
                faultPlan.leaveAfterCommand = try Self.integer(try required(), "leave-after", 1...Int(Int32.max))
            case "rf-error":
                for part in try required().split(separator: ",", omittingEmptySubsequences: false) {
                    faultPlan.rfErrorOnCommands.insert(try Self.integer(part, "rf-error", 1...Int(Int32.max)))
                }
            case "ndef":
                let text = try required()
                do { options.ndefMessage = try Hex.decode(String(text)) } catch {
                    throw Self.invalid("ndef '\(text)': \(error)")
                }
            case "signature":
                let text = try required()
                guard let bytes = try? Hex.decode(String(text)), [32, 48, 56].contains(bytes.count) else {
                    throw Self.invalid("signature '\(text)' is not 32, 48 or 56 bytes of hex (an NXP originality signature r‖s)")
                }
                options.signature = bytes
            case "ndef-size": options.ndefFileSize = try Self.integer(try required(), "ndef-size", Type4VirtualTag.ndefFileSizes)
            case "read-only":
                switch value {
                case nil, "true", "1": options.readOnly = true
                case "false", "0": options.readOnly = false
                default: throw Self.invalid("read-only takes no value, or true/false")
                }
            case "poll-wait":
                pollWait = .milliseconds(try Self.integer(try required(), "poll-wait (ms)", 0...600_000))
            case "hand-out":
                switch try required() {
                case "deselect": handOutOnDeselect = true
                case "never": handOutOnDeselect = false
                default: throw Self.invalid("hand-out is 'deselect' or 'never'")
                }
            case "presence":
                switch try required() {
                case "selected": presence = .selectedTag
                case "field": presence = .anyTag
                case "none": presence = .never
                default: throw Self.invalid("presence is 'selected', 'field' or 'none'")
                }
            default:
                throw Self.invalid(
                    "unknown option '\(key)'; options: file, dir, uid, count, ndef, signature, leave-after, rf-error, ndef-size, read-only, poll-wait, hand-out, presence"
                )
            }
        }
        try validate()
    }

    /// The emulators' `--tag` value: a `sim:` string, or the same without `sim:`, where
    /// `MODEL:PATH` stands for `MODEL?file=PATH` and `MODEL*N:DIR` for `MODEL*N?dir=DIR`.
    /// - Throws: ``NFCReaderDeviceError`` `invalidArgument`, as ``init(parsing:)``.
    public init(tagSpecification specification: String) throws(NFCReaderDeviceError) {
        let beforeQuery = specification[..<(specification.firstIndex(of: "?") ?? specification.endIndex)]
        if specification.hasPrefix("sim:") || beforeQuery.contains("+") {
            // A field of several tags names its files after each model (MODEL:PATH+MODEL:PATH).
            if !specification.hasPrefix("sim:") {
                try self.init(parsing: "sim:" + specification)
                connectionString = specification
                return
            }
            try self.init(parsing: specification)
            return
        }
        let query = specification.firstIndex(of: "?")
        let head = specification[..<(query ?? specification.endIndex)]
        let colon = head.firstIndex(of: ":")
        let options = query.map { String(specification[$0...]) } ?? ""
        try self.init(parsing: "sim:" + head[..<(colon ?? head.endIndex)] + options)
        guard let colon else { return }
        let path = String(head[head.index(after: colon)...])
        if path.isEmpty { throw Self.invalid("'\(specification)' names no file after ':'") }
        if file != nil || directory != nil { throw Self.invalid("give the file either after ':' or as file=/dir=, not both") }
        if specification[..<colon].contains("*") { directory = path } else { file = path }
        connectionString = specification
        try validate()
    }

    /// The checks across options.
    private func validate() throws(NFCReaderDeviceError) {
        if isEmptyField { return }
        let string = connectionString
        if isGroup {
            if count > 1 || directory != nil {
                throw Self.invalid("a field of several tags ('+') cannot also be a stack (*N, count=, dir=)")
            }
            if handOutOnDeselect != nil { throw Self.invalid("hand-out applies to stacks, not to a field of several tags") }
            if let uid, let model, !companionParts.allSatisfy({ $0.model.uidLength == model.uidLength }) || uid.count != model.uidLength {
                throw Self.invalid("uid= in a field of several tags needs models of the same UID length (\(uid.count) bytes given)")
            }
            for (index, part) in companionParts.enumerated() where part.file != nil {
                if companionParts[(index + 1)...].contains(where: { $0.file == part.file }) || part.file == file {
                    throw Self.invalid("two tags of the field share the tag file \(part.file ?? "")")
                }
            }
        }
        if model == nil, file == nil {
            throw Self.invalid("'\(string)' names no model; use sim:MODEL (\(TagModel.knownNames)) or sim:?file=PATH")
        }
        if file != nil, count > 1 { throw Self.invalid("a tag file holds one tag; use dir=PATH for a stack") }
        if file != nil, directory != nil { throw Self.invalid("give file or dir, not both") }
        if let uid, let model, uid.count != model.uidLength {
            throw Self.invalid("model \(model.name) needs a \(model.uidLength)-byte uid, got \(uid.count) bytes")
        }
        if let signature = options.signature, let model {
            guard Self.signatureModels.contains(model.name) else {
                throw Self.invalid("signature applies to \(Self.signatureModels.sorted().joined(separator: ", ")) only")
            }
            let expected =
                Self.iso7816SignatureModels.contains(model.name) ? 56 : Self.ultralightAESSignatureModels.contains(model.name) ? 48 : 32
            guard signature.count == expected else {
                throw Self.invalid("a \(model.name) signature has \(expected) bytes, got \(signature.count)")
            }
        }
        if options.ndefFileSize != nil || options.readOnly, let model, model.name != "type4" && model.name != "type4b" {
            throw Self.invalid("ndef-size and read-only apply to type4 and type4b only")
        }
    }

    /// The UID of tag `index` (0-based) of the stack: the first UID (given, else the model's
    /// ``TagModel/defaultUID``) plus `index`, counting in the model's
    /// ``TagModel/countedUIDBytes`` (the bytes after the first; UID1…UID3 on a Topaz).
    public func uid(ofTag index: Int) -> [UInt8] {
        Self.countingUp(uid ?? model?.defaultUID ?? [0x04, 0x53, 0x49, 0x4D, 0x00, 0x00, 0x01], by: index, in: model?.countedUIDBytes)
    }

    /// `start` plus `index`, counting in `bytes` (by default the bytes after the first), the
    /// last of them the least significant.
    static func countingUp(_ start: [UInt8], by index: Int, in bytes: Range<Int>? = nil) -> [UInt8] {
        var value = start
        var carry = index
        let counted = (bytes ?? 1..<value.count).clamped(to: 0..<value.count)
        var i = counted.upperBound - 1
        while carry > 0, i >= counted.lowerBound {
            let sum = Int(value[i]) + carry
            value[i] = UInt8(sum & 0xFF)
            carry = sum >> 8
            i -= 1
        }
        return value
    }

    /// Makes the tags: from the tag file (or the directory's files) when it exists, else fresh
    /// from the model (and saved, when a file or directory is named), each with the tag file it
    /// persists to. Tag `i` gets ``uid(ofTag:)`` of `uidOffset + i`, from `firstUID` when given
    /// (the emulator's `--uid`, across all its `--tag`s).
    /// - Throws: ``NFCReaderDeviceError`` `invalidArgument` for a tag file that is not valid or names
    ///   another model, or a `firstUID` of the wrong length; `io` when a file cannot be read or
    ///   written.
    public func makeTags(uidOffset: Int = 0, firstUID: [UInt8]? = nil) throws(NFCReaderDeviceError) -> [(tag: any VirtualTag, file: TagFile?)] {
        var configuration = self
        if let firstUID {
            if let model, firstUID.count != model.uidLength {
                throw Self.invalid("--uid has \(firstUID.count) bytes; \(model.name) needs \(model.uidLength)")
            }
            configuration.uid = firstUID
        }
        if isGroup, let model {
            // Tag i of the field: its model's default UID (or the one given) plus i.
            var made: [(tag: any VirtualTag, file: TagFile?)] = []
            let parts = [Companion(model: model, file: file)] + companionParts
            for (index, part) in parts.enumerated() {
                var single = configuration
                single.companionParts = []
                single.model = part.model
                single.file = part.file
                let uid = Self.countingUp(configuration.uid ?? part.model.defaultUID, by: uidOffset + index, in: part.model.countedUIDBytes)
                if let path = part.file {
                    let (tag, tagFile) = try single.loadOrCreate(path: path, uid: uid)
                    made.append((tag, tagFile))
                } else {
                    do { made.append((try single.makeTag(part.model, uid: uid), nil)) } catch {
                        throw NFCReaderDeviceError(.invalidArgument, error.reason)
                    }
                }
            }
            return made
        }
        if let path = file {
            let (tag, tagFile) = try loadOrCreate(path: path, uid: configuration.uid(ofTag: uidOffset))
            return [(tag, tagFile)]
        }
        if isEmptyField { return [] }
        guard let model else { throw Self.invalid("no model") }
        guard let directory else {
            var tags: [(tag: any VirtualTag, file: TagFile?)] = []
            for index in 0..<count {
                do { tags.append((try makeTag(model, uid: configuration.uid(ofTag: uidOffset + index)), nil)) } catch {
                    throw NFCReaderDeviceError(.invalidArgument, error.reason)
                }
            }
            return tags
        }
        if let kind = FileAccess.fileKind(directory), kind != .directory {
            throw Self.invalid("dir=\(directory) is not a directory; give a directory for the tag files (or file= for one tag file)")
        }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw NFCReaderDeviceError(.io, "cannot create tag directory \(directory): \(error.localizedDescription)")
        }
        var loaded: [(tag: any VirtualTag, file: TagFile?)] = []
        for index in 0..<count {
            let uid = configuration.uid(ofTag: uidOffset + index)
            let path = (directory.hasSuffix("/") ? directory : directory + "/") + Hex.encode(uid) + ".json"
            loaded.append(try loadOrCreate(path: path, uid: uid))
        }
        return loaded
    }

    /// The tags of ``makeTags(uidOffset:firstUID:)`` in a field with the fault plan, each saved to
    /// its tag file after every change.
    /// - Throws: as ``makeTags(uidOffset:firstUID:)``.
    public func makeField() throws(NFCReaderDeviceError) -> VirtualField {
        let made = try makeTags()
        return isGroup ? Self.field(groups: [made], faultPlan: faultPlan) : Self.field(made, faultPlan: faultPlan)
    }

    /// A field holding `tags`, each persisted to its tag file.
    public static func field(_ tags: [(tag: any VirtualTag, file: TagFile?)], faultPlan: FaultPlan) -> VirtualField {
        field(groups: tags.map { [$0] }, faultPlan: faultPlan)
    }

    /// A field whose queue holds `groups` (the tags of a group in the field together), each tag
    /// persisted to its tag file.
    public static func field(groups: [[(tag: any VirtualTag, file: TagFile?)]], faultPlan: FaultPlan) -> VirtualField {
        let field = VirtualField(groups: groups.map { $0.map(\.tag) }, faultPlan: faultPlan)
        for (tag, file) in groups.joined() {
            if let file, let persistent = tag as? any PersistentVirtualTag { field.persist(persistent, in: file) }
        }
        return field
    }

    /// The tag a tag file holds, or a new one of ``model`` saved to it when the file is absent.
    private func loadOrCreate(path: String, uid: [UInt8]) throws(NFCReaderDeviceError) -> (any VirtualTag, TagFile) {
        let tagFile = TagFile(path: path)
        if FileAccess.fileKind(path) == .directory {
            throw Self.invalid("file=\(path) is a directory; give a tag file (or dir= for a directory of tag files)")
        }
        do throws(TagFileError) {
            if tagFile.exists {
                let tag = try tagFile.loadTag()
                if let model, let state = (tag as? any PersistentVirtualTag)?.tagState, state.model != model.name {
                    throw TagFileError(.invalidState, "tag file \(path) holds a \(state.model), not a \(model.name)")
                }
                return (tag, tagFile)
            }
            guard let model else {
                throw TagFileError(.unreadable, "tag file \(path) does not exist; name a model to create it")
            }
            let tag = try makeTag(model, uid: uid)
            if let persistent = tag as? any PersistentVirtualTag {
                // A new tag file in a folder that does not exist yet: make the folder, as dir= does.
                // (Text only: NSString's deletingLastPathComponent traps on a one-character name.)
                if let folder = FileAccess.directory(of: path) {
                    do {
                        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                    } catch {
                        throw TagFileError(.unwritable, "cannot create the folder \(folder) for tag file \(path): \(error.localizedDescription)")
                    }
                }
                try tagFile.save(persistent.tagState)
            }
            return (tag, tagFile)
        } catch {
            throw NFCReaderDeviceError(error.code == .unwritable || error.code == .unreadable ? .io : .invalidArgument, error.reason)
        }
    }

    /// A new tag of `model`, holding ``TagModelOptions/ndefMessage`` if one is given.
    private func makeTag(_ model: TagModel, uid: [UInt8]) throws(TagFileError) -> any VirtualTag {
        let tag = model.make(uid, options)
        guard let message = options.ndefMessage else { return tag }
        guard let preloadable = tag as? any NDEFPreloadable else {
            throw TagFileError(.invalidState, "model \(model.name) cannot be delivered with an NDEF message")
        }
        guard preloadable.setNDEFMessage(message) else {
            throw TagFileError(.invalidState, "an NDEF message of \(message.count) bytes does not fit a \(model.name)")
        }
        return tag
    }

    /// Makes the simulated reader the string describes.
    /// - Throws: as ``makeField()``.
    public func makeReader() throws(NFCReaderDeviceError) -> SimulatedReader {
        let field = try makeField()
        let label = isEmptyField ? "empty field" : ([model?.name ?? file ?? "tag file"] + companionParts.map(\.model.name)).joined(separator: "+")
        return SimulatedReader(
            field: field, name: "simulator (\(label)\(count > 1 ? " ×\(count)" : ""))",
            connectionString: connectionString, removesTagOnDeselect: handOutOnDeselect ?? (count > 1),
            emptyFieldWait: pollWait, presence: presence)
    }

    /// Parses `string` and makes its reader.
    /// - Throws: ``NFCReaderDeviceError`` `invalidArgument` or `io`, as ``init(parsing:)`` and
    ///   ``makeField()``.
    public static func makeReader(_ string: String) throws(NFCReaderDeviceError) -> SimulatedReader {
        try SimulatorConfiguration(parsing: string).makeReader()
    }

    private static func invalid(_ reason: String) -> NFCReaderDeviceError { NFCReaderDeviceError(.invalidArgument, reason) }

    private static func integer(_ text: Substring, _ what: String, _ range: ClosedRange<Int>) throws(NFCReaderDeviceError)
        -> Int
    {
        guard let value = Int(text), range.contains(value) else {
            throw invalid("\(what) must be a whole number in \(range.lowerBound)…\(range.upperBound), got '\(text)'")
        }
        return value
    }
}
