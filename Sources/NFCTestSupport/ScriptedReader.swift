public import NFCCore
public import NFCTags
public import Testing

/// What a scripted tag does with one command.
public enum ScriptedReply: Sendable, Hashable {
    /// The tag answers these bytes (an empty answer is what libnfc returns for a Type 2 ACK).
    case answer(Bytes)
    /// The reader reports this failure (a timeout when the tag ignores the command, a NAK…).
    case error(NFCReaderDeviceError)
    /// The tag leaves the field during this command: it fails with `tagLost`, and so does every
    /// later command; ``ScriptedReader/isTargetPresent()`` is false and polling finds nothing.
    case tagRemoved

    /// The tag answers `bytes`.
    public static func answer(_ bytes: [UInt8]) -> ScriptedReply { .answer(Bytes(bytes)) }
    /// The tag stays silent: a reader timeout.
    public static var timeout: ScriptedReply { .error(NFCReaderDeviceError(.timeout, "no answer (scripted)")) }
    /// A 4-bit NAK with `detail`.
    public static func nak(_ detail: UInt8) -> ScriptedReply { .error(NFCReaderDeviceError(.nak, "NAK (scripted)", detail: detail)) }
}

/// One step of a ``ScriptedReader``'s script: the command the code under test must send next,
/// and what the tag does with it. MIFARE Classic authentications are steps too, with the command
/// `60`/`61` + block (as ``TracingReader`` records them) and an empty answer for success.
public struct ScriptedExchange: Sendable, Hashable {
    /// The command expected, or nil for "whatever comes next".
    public var command: Bytes?
    /// The framing expected, or nil for either.
    public var mode: TransceiveMode?
    /// What the tag does.
    public var reply: ScriptedReply

    /// Expects `command` (in `mode`, when given) and replies `reply`.
    public init(_ command: [UInt8], mode: TransceiveMode? = nil, _ reply: ScriptedReply) {
        self.command = Bytes(command)
        self.mode = mode
        self.reply = reply
    }

    /// Expects `command` and answers `answer`.
    public init(_ command: [UInt8], mode: TransceiveMode? = nil, answer: [UInt8]) {
        self.init(command, mode: mode, .answer(answer))
    }

    /// Replies `reply` to whatever command comes next: for answers whose command a test does
    /// not pin (it checks ``ScriptedReader/sent`` afterwards, or does not care).
    public static func anyCommand(_ reply: ScriptedReply) -> ScriptedExchange {
        var step = ScriptedExchange([], .timeout)
        step.command = nil
        step.reply = reply
        return step
    }

    /// Answers `answer` to whatever command comes next.
    public static func anyCommand(answer: [UInt8]) -> ScriptedExchange { anyCommand(.answer(answer)) }
}

/// A tag's behaviour written as a value: a memory model, a hostile tag. A ``ScriptedReader``
/// holds it, hands it each command and keeps its state; the test reads the state back with
/// ``ScriptedReader/tag(as:)``.
public protocol ScriptedTag: Sendable {
    /// Answers `command`, or throws the reader error the tag's behaviour causes.
    mutating func answer(_ command: Bytes, mode: TransceiveMode) throws(NFCReaderDeviceError) -> Bytes
    /// A MIFARE Classic authentication; the default refuses (`notSupported`).
    mutating func authenticate(block: UInt8, keyType: ClassicKeyType, key: Bytes) throws(NFCReaderDeviceError)
    /// The reader selected the tag (a poll found it); the default does nothing.
    mutating func selected()
    /// The reader deselected the tag; the default does nothing.
    mutating func deselected()
}

extension ScriptedTag {
    /// Refuses: the tag is no MIFARE Classic.
    public mutating func authenticate(block: UInt8, keyType: ClassicKeyType, key: Bytes) throws(NFCReaderDeviceError) {
        throw NFCReaderDeviceError(.notSupported, "no MIFARE Classic here (scripted tag)")
    }
    /// Nothing to do.
    public mutating func selected() {}
    /// Nothing to do.
    public mutating func deselected() {}
}

/// What a ``ScriptedReader`` interposed on another reader does with one command.
public enum Interposition: Sendable, Hashable {
    /// Passes these bytes (the command, or a rewrite of it) on to the base reader.
    case forward(Bytes)
    /// Answers itself, without reaching the base reader.
    case reply(ScriptedReply)
}

/// The test suites' one fake reader: it implements NFCTags' ``NFCReader`` seam and answers in one
/// of four ways, recording every command in ``trace``:
///
/// - a **script** of ``ScriptedExchange``s in order: the code under test must send exactly the
///   scripted commands; anything else (or anything after the script, unless `afterScript` says
///   what then) is recorded as a test issue at the line that made the reader, and throws;
///   ``expectScriptFinished(sourceLocation:)`` checks nothing scripted was left unsent;
/// - a **table** from command to reply, for probes whose order does not matter, with an explicit
///   `otherwise` reply for other commands (without one they are test issues too);
/// - a **tag model** (``ScriptedTag``), a value that answers from its own state;
/// - an **interposer** on another reader (e.g. the simulator) that rewrites or answers commands
///   before they reach it.
///
/// Polling returns the `target` given (nil when none, or once the tag was removed) or, when
/// interposed, the base reader's answer.
public actor ScriptedReader: NFCReader {
    /// `scripted`, or the name given.
    public let name: String
    /// `test:scripted`.
    public let connectionString = "test:scripted"
    /// The modulations given (every one by default).
    public let supportedModulations: [Modulation]
    /// Every command so far with its outcome, oldest first (authentications as `60`/`61` + block).
    public private(set) var trace: [TracedCommand] = []

    private enum Behaviour {
        case script([ScriptedExchange], afterScript: ScriptedReply?)
        case table([Bytes: ScriptedReply], otherwise: ScriptedReply?)
        case tag(any ScriptedTag)
        case interposer(any NFCReader, @Sendable (Bytes, TransceiveMode) -> Interposition)
    }

    private var behaviour: Behaviour
    private var nextStep = 0
    private var removed = false
    private var announcesRemoval = false
    /// How many times ``isTargetPresent()`` was asked (a reader told of removals must not need to).
    public private(set) var presenceChecks = 0
    /// The timeout of every ``waitForRemoval(timeout:checkInterval:)``, oldest first.
    public private(set) var removalWaits: [Duration] = []
    private let target: TargetInfo?
    private let sourceLocation: SourceLocation
    /// When set, listing the field fails with it: a reader that cannot tell how many tags
    /// answer (``listsSeveralTargets`` is then true).
    private let listingFailure: NFCReaderDeviceError?

    private init(
        name: String, behaviour: Behaviour, target: TargetInfo?, modulations: [Modulation], sourceLocation: SourceLocation,
        listingFailure: NFCReaderDeviceError? = nil
    ) {
        self.listingFailure = listingFailure
        self.name = name
        self.behaviour = behaviour
        self.target = target
        self.supportedModulations = modulations
        self.sourceLocation = sourceLocation
    }

    /// A reader whose tag expects exactly `script`, in order. After the script, `afterScript`
    /// replies to every command; without it a further command is a test issue.
    public init(script: [ScriptedExchange], afterScript: ScriptedReply? = nil, target: TargetInfo? = nil,
                modulations: [Modulation] = Modulation.allCases, name: String = "scripted",
                sourceLocation: SourceLocation = #_sourceLocation) {
        self.init(name: name, behaviour: .script(script, afterScript: afterScript), target: target, modulations: modulations,
                  sourceLocation: sourceLocation)
    }

    /// A reader whose tag looks each command up in `table`; other commands get `otherwise`, or
    /// are a test issue when it is nil.
    public init(table: [[UInt8]: ScriptedReply], otherwise: ScriptedReply? = nil, target: TargetInfo? = nil,
                modulations: [Modulation] = Modulation.allCases, name: String = "scripted",
                sourceLocation: SourceLocation = #_sourceLocation) {
        var converted: [Bytes: ScriptedReply] = [:]
        for (command, reply) in table { converted[Bytes(command)] = reply }
        self.init(name: name, behaviour: .table(converted, otherwise: otherwise), target: target, modulations: modulations,
                  sourceLocation: sourceLocation)
    }

    /// A reader whose tag answers each command in `table` with its bytes; other commands get
    /// `otherwise`, or are a test issue when it is nil.
    public init(answers table: [[UInt8]: [UInt8]], otherwise: ScriptedReply? = nil, target: TargetInfo? = nil,
                modulations: [Modulation] = Modulation.allCases, sourceLocation: SourceLocation = #_sourceLocation) {
        var converted: [[UInt8]: ScriptedReply] = [:]
        for (command, answer) in table { converted[command] = .answer(answer) }
        self.init(table: converted, otherwise: otherwise, target: target, modulations: modulations, sourceLocation: sourceLocation)
    }

    /// A reader holding `tag`, which answers from its own state.
    public init(tag: some ScriptedTag, target: TargetInfo? = nil, modulations: [Modulation] = Modulation.allCases,
                name: String = "scripted", sourceLocation: SourceLocation = #_sourceLocation) {
        self.init(name: name, behaviour: .tag(tag), target: target, modulations: modulations, sourceLocation: sourceLocation)
    }

    /// A reader in front of `base`: each command goes through `rewrite` first, which forwards
    /// it (changed or not) or answers in the base's stead. Polling, presence, deselection and
    /// closing pass on to `base`.
    /// With `listingFailure`, listing the field (``listTargets(for:limit:timeout:)``) fails with
    /// it, so the reader cannot tell one tag from several.
    public init(interposingOn base: any NFCReader, modulations: [Modulation], name: String = "interposer",
                listingFailure: NFCReaderDeviceError? = nil,
                sourceLocation: SourceLocation = #_sourceLocation,
                rewrite: @escaping @Sendable (Bytes, TransceiveMode) -> Interposition) {
        self.init(name: name, behaviour: .interposer(base, rewrite), target: nil, modulations: modulations,
                  sourceLocation: sourceLocation, listingFailure: listingFailure)
    }

    /// True when listing is set to fail; else false (one tag at a time).
    public nonisolated var listsSeveralTargets: Bool { listingFailure != nil }

    /// Fails with the listing failure given; else one tag, what ``poll(for:timeout:)`` finds.
    public func listTargets(for modulations: [Modulation], limit: Int, timeout: Duration) async throws(NFCReaderDeviceError) -> [TargetInfo] {
        if let listingFailure { throw listingFailure }
        guard limit > 0, let found = try await poll(for: modulations, timeout: timeout) else { return [] }
        return [found]
    }

    /// Every command so far, oldest first.
    public var sent: [Bytes] { trace.map(\.command) }

    /// The tag model's current state, when it is a `T`.
    public func tag<T: ScriptedTag>(as type: T.Type) -> T? {
        if case .tag(let tag) = behaviour { return tag as? T }
        return nil
    }

    /// The scripted exchanges not reached yet.
    public var unsentExchanges: [ScriptedExchange] {
        if case .script(let steps, _) = behaviour { return Array(steps.dropFirst(nextStep)) }
        return []
    }

    /// Records a test issue when the script has exchanges the code did not reach.
    public func expectScriptFinished(sourceLocation: SourceLocation = #_sourceLocation) {
        let left = unsentExchanges
        if !left.isEmpty {
            Issue.record("\(left.count) scripted exchange(s) never came, first \(Self.describe(left[0])); sent:\n\(trace.lines.joined(separator: "\n"))",
                         sourceLocation: sourceLocation)
        }
    }

    /// Takes the tag away, as an operator would: later commands fail with `tagLost`.
    public func removeTag() { removed = true }

    /// Makes the reader one that is told when its tag leaves, as a PC/SC reader is by pcscd:
    /// ``waitForRemoval(timeout:checkInterval:)`` then ends when ``removeTag()`` is called (or
    /// at its timeout) without asking ``isTargetPresent()``.
    public func announceRemovals() { announcesRemoval = true }

    // MARK: NFCReader

    /// The target given, once per poll, until the tag is removed; the base's when interposed.
    public func poll(for modulations: [Modulation], timeout: Duration) async throws(NFCReaderDeviceError) -> TargetInfo? {
        switch behaviour {
        case .interposer(let base, _):
            return try await base.poll(for: modulations, timeout: timeout)
        case .tag(var tag):
            guard !removed, target != nil else { return nil }
            tag.selected()
            behaviour = .tag(tag)
        case .script, .table:
            guard !removed else { return nil }
        }
        return target
    }

    /// Answers from the script, table, tag or base; see the type's documentation.
    public func transceive(_ command: Bytes, mode: TransceiveMode, timeout: Duration) async throws(NFCReaderDeviceError) -> Bytes {
        let result: Result<Bytes, NFCReaderDeviceError>
        if removed {
            result = .failure(NFCReaderDeviceError(.tagLost, "the tag was taken away (scripted)"))
        } else if case .interposer(let base, let rewrite) = behaviour {
            switch rewrite(command, mode) {
            case .forward(let frame):
                do { result = .success(try await base.transceive(frame, mode: mode, timeout: timeout)) } catch { result = .failure(error) }
            case .reply(let reply):
                result = apply(reply)
            }
        } else {
            result = respond(to: command, mode: mode)
        }
        trace.append(TracedCommand(command: command, mode: mode, result: result))
        return try result.get()
    }

    /// A script or table step with the command `60|61 block`; the tag model's own check.
    public func authenticateClassic(block: UInt8, keyType: ClassicKeyType, key: Bytes, uid: Bytes) async throws(NFCReaderDeviceError) {
        let command = Bytes([keyType.rawValue, block])
        let result: Result<Bytes, NFCReaderDeviceError>
        if removed {
            result = .failure(NFCReaderDeviceError(.tagLost, "the tag was taken away (scripted)"))
        } else {
            switch behaviour {
            case .interposer(let base, _):
                do {
                    try await base.authenticateClassic(block: block, keyType: keyType, key: key, uid: uid)
                    result = .success(Bytes())
                } catch { result = .failure(error) }
            case .tag(var tag):
                do throws(NFCReaderDeviceError) {
                    try tag.authenticate(block: block, keyType: keyType, key: key)
                    result = .success(Bytes())
                } catch { result = .failure(error) }
                behaviour = .tag(tag)
            case .script, .table:
                result = respond(to: command, mode: .standard)
            }
        }
        trace.append(TracedCommand(command: command, mode: .standard, result: result))
        _ = try result.get()
    }

    /// False once the tag was removed; the base's answer when interposed.
    public func isTargetPresent() async -> Bool {
        presenceChecks += 1
        if case .interposer(let base, _) = behaviour { return await base.isTargetPresent() }
        return !removed
    }

    /// The base's wait when interposed; after ``announceRemovals()`` the "event" of
    /// ``removeTag()``; otherwise the default check of ``isTargetPresent()`` every
    /// `checkInterval`.
    public func waitForRemoval(timeout: Duration, checkInterval: Duration) async -> RemovalResult {
        removalWaits.append(timeout)
        if case .interposer(let base, _) = behaviour { return await base.waitForRemoval(timeout: timeout, checkInterval: checkInterval) }
        guard announcesRemoval else { return await waitForRemovalByChecking(timeout: timeout, checkInterval: checkInterval) }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while !removed {
            if ContinuousClock.now >= deadline { return .stillPresent }
            do { try await Task.sleep(for: .milliseconds(1)) } catch { return .cancelled }
        }
        return .removed
    }

    /// Tells the tag model; passes on when interposed.
    public func deselect() async throws(NFCReaderDeviceError) {
        switch behaviour {
        case .interposer(let base, _):
            try await base.deselect()
        case .tag(var tag):
            tag.deselected()
            behaviour = .tag(tag)
        case .script, .table:
            break
        }
    }

    /// Passes on when interposed.
    public func close() async {
        if case .interposer(let base, _) = behaviour { await base.close() }
    }

    // MARK: Answering

    private func respond(to command: Bytes, mode: TransceiveMode) -> Result<Bytes, NFCReaderDeviceError> {
        switch behaviour {
        case .script(let steps, let afterScript):
            guard nextStep < steps.count else {
                if let afterScript { return apply(afterScript) }
                return unexpected("\(hexString(command)) after the script's \(steps.count) exchange(s) ended")
            }
            let step = steps[nextStep]
            if let expected = step.command, expected != command {
                return unexpected("\(hexString(command)) at exchange \(nextStep + 1); the script expects \(Self.describe(step))")
            }
            if let expected = step.mode, expected != mode {
                return unexpected("\(hexString(command)) sent in mode \(mode) at exchange \(nextStep + 1); the script expects \(expected)")
            }
            nextStep += 1
            return apply(step.reply)
        case .table(let table, let otherwise):
            if let reply = table[command] ?? otherwise { return apply(reply) }
            return unexpected("\(hexString(command)), which the table does not hold")
        case .tag(var tag):
            let result: Result<Bytes, NFCReaderDeviceError>
            do throws(NFCReaderDeviceError) { result = .success(try tag.answer(command, mode: mode)) } catch { result = .failure(error) }
            behaviour = .tag(tag)
            return result
        case .interposer:
            return unexpected("\(hexString(command)) outside the interposer")
        }
    }

    private func apply(_ reply: ScriptedReply) -> Result<Bytes, NFCReaderDeviceError> {
        switch reply {
        case .answer(let bytes): return .success(bytes)
        case .error(let error): return .failure(error)
        case .tagRemoved:
            removed = true
            return .failure(NFCReaderDeviceError(.tagLost, "the tag was taken away (scripted)"))
        }
    }

    /// Records the test issue at the line that made the reader, with the trace so far, and
    /// fails the command so that the code under test stops.
    private func unexpected(_ what: String) -> Result<Bytes, NFCReaderDeviceError> {
        let sentSoFar = trace.isEmpty ? "nothing" : "\n" + trace.lines.joined(separator: "\n")
        Issue.record("ScriptedReader: unexpected command \(what); sent before it: \(sentSoFar)", sourceLocation: sourceLocation)
        return .failure(NFCReaderDeviceError(.io, "unexpected command (not in the test's script)"))
    }

    private static func describe(_ step: ScriptedExchange) -> String {
        step.command.map(hexString) ?? "any command"
    }
}
