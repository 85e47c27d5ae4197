import NFCCore

extension ReaderTrace {
    /// The most lines ``parse(_:)`` reads (header included): a long `watch` session fits.
    public static let maximumLines = 1_000_000
    /// The longest line ``parse(_:)`` reads, in bytes (an exchange of 64 KiB in hex fits).
    public static let maximumLineLength = 256 * 1024

    /// The whole trace as JSON lines, each ending in a newline (docs/traces.md).
    public var jsonLines: String {
        var out = header.jsonLine + "\n"
        for event in events { out += event.jsonLine + "\n" }
        return out
    }

    /// Reads a trace from its JSON lines: the header first, then the events numbered 1, 2, …
    /// Empty lines are skipped; a missing final newline is accepted.
    /// - Throws: ``ReaderTraceError`` with the line and offset of the first fault.
    public static func parse(_ bytes: some Collection<UInt8>) throws(ReaderTraceError) -> ReaderTrace {
        let all = Array(bytes)
        var header: ReaderTraceHeader?
        var events: [ReaderTraceEvent] = []
        var lineNumber = 0
        var start = 0
        while start < all.count {
            var end = start
            while end < all.count, all[end] != 0x0A { end += 1 }
            lineNumber += 1
            let line = all[start..<end]
            start = end + 1
            guard line.count <= maximumLineLength else {
                throw ReaderTraceError(.size, line: lineNumber, "the line is longer than \(maximumLineLength) bytes")
            }
            guard lineNumber <= maximumLines else {
                throw ReaderTraceError(.size, line: lineNumber, "more than \(maximumLines) lines")
            }
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            let json: TraceJSON
            do {
                json = try TraceJSONParser.parse(line)
            } catch {
                throw ReaderTraceError(.syntax, line: lineNumber, offset: error.offset, error.reason)
            }
            var fields = TraceFields(json, line: lineNumber)
            if header == nil {
                header = try ReaderTraceHeader(&fields)
            } else {
                let event = try ReaderTraceEvent(&fields)
                guard event.number == events.count + 1 else {
                    throw ReaderTraceError(.outOfOrder, line: lineNumber, "event \(event.number) where \(events.count + 1) was expected")
                }
                events.append(event)
            }
            try fields.finish()
        }
        guard let header else { throw ReaderTraceError(.size, line: max(lineNumber, 1), "the trace has no header line") }
        return ReaderTrace(header: header, events: events)
    }
}

extension ReaderTraceHeader {
    /// The header's JSON line (no newline).
    public var jsonLine: String {
        TraceJSON.object([
            ("format", .string(Self.formatName)),
            ("version", .integer(version)),
            ("tool", .string(tool)),
            ("connection", .string(connection)),
            ("reader", .string(reader)),
            ("firmware", firmware.map(TraceJSON.string) ?? .null),
            ("profile", profile.map(TraceJSON.string) ?? .null),
            ("libnfc", libnfcVersion.map(TraceJSON.string) ?? .null),
            ("pcscLite", pcscLiteVersion.map(TraceJSON.string) ?? .null),
            ("modulations", .array(modulations.map { .string($0.rawValue) })),
            ("listsSeveralTargets", .bool(listsSeveralTargets)),
            ("feedback", feedback.map(TraceJSON.string) ?? .null),
            ("redacted", .bool(redacted)),
        ]).text
    }

    init(_ fields: inout TraceFields) throws(ReaderTraceError) {
        guard case .string(let format)? = fields.json["format"], format == Self.formatName else {
            throw ReaderTraceError(.notATrace, line: fields.line, "the first line is not a trace header (format '\(Self.formatName)')")
        }
        fields.used.insert("format")
        let version = try fields.integer("version")
        guard version >= 1 else { throw fields.invalid("version", "must be at least 1") }
        guard version <= Self.currentVersion else {
            throw ReaderTraceError(.unsupportedVersion, line: fields.line, "format version \(version) is newer than this nfctool reads (\(Self.currentVersion))")
        }
        self.init(
            tool: try fields.string("tool"), connection: try fields.string("connection"), reader: try fields.string("reader"),
            firmware: try fields.optionalString("firmware"), profile: try fields.optionalString("profile"),
            libnfcVersion: try fields.optionalString("libnfc"), pcscLiteVersion: try fields.optionalString("pcscLite"),
            modulations: try fields.modulations("modulations"), listsSeveralTargets: try fields.bool("listsSeveralTargets"),
            feedback: try fields.optionalString("feedback"), redacted: try fields.bool("redacted"))
        self.version = version
    }
}

extension ReaderTraceEvent {
    /// The event's JSON line (no newline): `n`, `call`, the call's arguments, its result, `us`.
    public var jsonLine: String {
        var pairs: [(key: String, value: TraceJSON)] = [("n", .integer(number)), ("call", .string(request.callName))]
        switch request {
        case .poll(let modulations): pairs.append(("modulations", .array(modulations.map { .string($0.rawValue) })))
        case .transceive(let command, let mode), .checkCanSend(let command, let mode):
            pairs.append(("mode", .string(mode.traceName)))
            pairs.append(("command", .string(command.hex)))
        case .transceiveUnselected(let frame): pairs.append(("command", .string(frame.hex)))
        case .authenticateClassic(let block, let keyType, let key, let uid):
            pairs.append(("block", .integer(Int(block))))
            pairs.append(("keyType", .string(keyType.traceName)))
            pairs.append(("key", .string(key.hex)))
            pairs.append(("uid", .string(Hex.encode(uid, uppercase: true))))
        case .listTargets(let modulations, let limit):
            pairs.append(("modulations", .array(modulations.map { .string($0.rawValue) })))
            pairs.append(("limit", .integer(limit)))
        case .listTargetsAlongside(let selected, let limit):
            pairs.append(("selected", selected.traceJSON))
            pairs.append(("limit", .integer(limit)))
        case .select(let target): pairs.append(("target", target.traceJSON))
        case .signal(let signal): pairs.append(("signal", .string(signal.rawValue)))
        case .isTargetPresent, .waitForRemoval, .deselect, .unsupportedCardReason: break
        }
        switch result {
        case .done: break
        case .found(let target): pairs.append(("found", target?.traceJSON ?? .null))
        case .answer(let answer): pairs.append(("answer", .string(answer.hex)))
        case .present(let present): pairs.append(("present", .bool(present)))
        case .removal(let removal): pairs.append(("removal", .string(removal.traceName)))
        case .targets(let targets): pairs.append(("targets", .array(targets.map(\.traceJSON))))
        case .sent(let sent): pairs.append(("sent", .bool(sent)))
        case .reason(let reason): pairs.append(("reason", reason.map(TraceJSON.string) ?? .null))
        case .failed(let error):
            pairs.append(("error", .object([
                ("code", .string(error.code.rawValue)), ("reason", .string(error.reason)),
                ("detail", error.detail.map { .integer(Int($0)) } ?? .null),
            ])))
        }
        pairs.append(("us", .integer(microseconds)))
        return TraceJSON.object(pairs).text
    }

    init(_ fields: inout TraceFields) throws(ReaderTraceError) {
        let number = try fields.integer("n")
        guard number >= 1 else { throw fields.invalid("n", "must be at least 1") }
        let call = try fields.string("call")
        let request: ReaderTraceRequest
        switch call {
        case "poll": request = .poll(try fields.modulations("modulations"))
        case "transceive": request = .transceive(try fields.traceBytes("command"), try fields.mode("mode"))
        case "transceiveUnselected": request = .transceiveUnselected(try fields.traceBytes("command"))
        case "checkCanSend": request = .checkCanSend(try fields.traceBytes("command"), try fields.mode("mode"))
        case "authenticateClassic":
            let block = try fields.integer("block")
            guard (0...255).contains(block) else { throw fields.invalid("block", "must be 0…255") }
            let keyType: ClassicKeyType
            switch try fields.string("keyType") {
            case "A": keyType = .a
            case "B": keyType = .b
            default: throw fields.invalid("keyType", "must be \"A\" or \"B\"")
            }
            request = .authenticateClassic(block: UInt8(block), keyType: keyType, key: try fields.traceBytes("key"), uid: try fields.hexBytes("uid"))
        case "isTargetPresent": request = .isTargetPresent
        case "waitForRemoval": request = .waitForRemoval
        case "listTargets": request = .listTargets(try fields.modulations("modulations"), limit: try fields.count("limit"))
        case "listTargetsAlongside": request = .listTargetsAlongside(try fields.target("selected"), limit: try fields.count("limit"))
        case "select": request = .select(try fields.target("target"))
        case "deselect": request = .deselect
        case "signal":
            guard let signal = ReaderSignal(rawValue: try fields.string("signal")) else {
                throw fields.invalid("signal", "must be one of \(ReaderSignal.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            request = .signal(signal)
        case "unsupportedCardReason": request = .unsupportedCardReason
        default: throw fields.invalid("call", "'\(call)' is not a reader call")
        }
        let result: ReaderTraceResult
        if fields.json["error"] != nil {
            result = .failed(try fields.error("error"))
        } else {
            switch request {
            case .poll: result = .found(try fields.optionalTarget("found"))
            case .transceive, .transceiveUnselected: result = .answer(try fields.traceBytes("answer"))
            case .isTargetPresent: result = .present(try fields.bool("present"))
            case .waitForRemoval:
                switch try fields.string("removal") {
                case "removed": result = .removal(.removed)
                case "stillPresent": result = .removal(.stillPresent)
                case "cancelled": result = .removal(.cancelled)
                default: throw fields.invalid("removal", "must be removed, stillPresent or cancelled")
                }
            case .listTargets, .listTargetsAlongside: result = .targets(try fields.targets("targets"))
            case .signal: result = .sent(try fields.bool("sent"))
            case .unsupportedCardReason: result = .reason(try fields.optionalString("reason"))
            case .authenticateClassic, .select, .deselect, .checkCanSend: result = .done
            }
        }
        let microseconds = try fields.integer("us")
        guard microseconds >= 0 else { throw fields.invalid("us", "must not be negative") }
        self.init(number: number, request: request, result: result, microseconds: microseconds)
    }
}

extension TransceiveMode {
    /// `standard` or `raw`, in traces.
    var traceName: String { self == .raw ? "raw" : "standard" }
}

extension ClassicKeyType {
    /// `A` or `B`, in traces.
    var traceName: String { self == .a ? "A" : "B" }
}

extension RemovalResult {
    /// `removed`, `stillPresent` or `cancelled`, in traces.
    var traceName: String {
        switch self {
        case .removed: "removed"
        case .stillPresent: "stillPresent"
        case .cancelled: "cancelled"
        }
    }
}

extension TargetInfo {
    /// The target as a trace object: `type` and its fields in hex (docs/traces.md, "Targets").
    var traceJSON: TraceJSON {
        func hex(_ bytes: Bytes) -> TraceJSON { .string(Hex.encode(bytes, uppercase: true)) }
        switch self {
        case .iso14443A(let t):
            return .object([("type", .string("iso14443a")), ("uid", hex(t.uid)), ("atqa", hex(t.atqa)),
                            ("sak", .string(Hex.number(t.sak, width: 2))), ("ats", hex(t.ats))])
        case .iso14443B(let t):
            return .object([("type", .string("iso14443b")), ("pupi", hex(t.pupi)), ("applicationData", hex(t.applicationData)),
                            ("protocolInfo", hex(t.protocolInfo))])
        case .felica(let t):
            return .object([("type", .string("felica")), ("idm", hex(t.idm)), ("pmm", hex(t.pmm)),
                            ("systemCode", t.systemCode.map { .integer(Int($0)) } ?? .null), ("bitRate", .integer(t.bitRate))])
        case .jewel(let t):
            return .object([("type", .string("jewel")), ("sensRes", hex(t.sensRes)), ("id", hex(t.id))])
        case .iso15693(let t):
            return .object([("type", .string("iso15693")), ("uid", hex(t.uid)), ("dsfid", .integer(Int(t.dsfid)))])
        }
    }
}

/// The fields of one line's object, read by name, with the ones read remembered so that
/// ``finish()`` can refuse a field nobody asked for (a typo, a field of a newer version).
struct TraceFields {
    let json: TraceJSON
    let line: Int
    var used: Set<String> = []

    init(_ json: TraceJSON, line: Int) {
        self.json = json
        self.line = line
    }

    func invalid(_ key: String, _ reason: String) -> ReaderTraceError {
        ReaderTraceError(.invalidField, line: line, "'\(key)' \(reason)")
    }

    mutating func field(_ key: String) throws(ReaderTraceError) -> TraceJSON {
        guard case .object = json else { throw ReaderTraceError(.invalidField, line: line, "the line is not a JSON object") }
        guard let value = json[key] else { throw ReaderTraceError(.invalidField, line: line, "'\(key)' is missing") }
        used.insert(key)
        return value
    }

    /// Every field was read: an unknown one is an error (same-version files have no others).
    func finish() throws(ReaderTraceError) {
        guard case .object(let pairs) = json else { throw ReaderTraceError(.invalidField, line: line, "the line is not a JSON object") }
        if let unknown = pairs.first(where: { !used.contains($0.key) }) {
            throw ReaderTraceError(.invalidField, line: line, "'\(unknown.key)' is not a field of this line")
        }
    }

    mutating func string(_ key: String) throws(ReaderTraceError) -> String {
        guard case .string(let s) = try field(key) else { throw invalid(key, "must be a string") }
        return s
    }

    mutating func optionalString(_ key: String) throws(ReaderTraceError) -> String? {
        switch try field(key) {
        case .string(let s): return s
        case .null: return nil
        default: throw invalid(key, "must be a string or null")
        }
    }

    mutating func integer(_ key: String) throws(ReaderTraceError) -> Int {
        guard case .integer(let i) = try field(key) else { throw invalid(key, "must be an integer") }
        return i
    }

    mutating func count(_ key: String) throws(ReaderTraceError) -> Int {
        let value = try integer(key)
        guard value >= 0 else { throw invalid(key, "must not be negative") }
        return value
    }

    mutating func bool(_ key: String) throws(ReaderTraceError) -> Bool {
        guard case .bool(let b) = try field(key) else { throw invalid(key, "must be true or false") }
        return b
    }

    mutating func traceBytes(_ key: String) throws(ReaderTraceError) -> TraceBytes {
        guard let bytes = TraceBytes(hex: try string(key)) else { throw invalid(key, "must be hex, two digits or ** a byte") }
        return bytes
    }

    mutating func hexBytes(_ key: String) throws(ReaderTraceError) -> Bytes {
        let bytes = try traceBytes(key)
        guard !bytes.isRedacted else { throw invalid(key, "cannot be redacted") }
        return bytes.bytes
    }

    mutating func mode(_ key: String) throws(ReaderTraceError) -> TransceiveMode {
        switch try string(key) {
        case "standard": return .standard
        case "raw": return .raw
        default: throw invalid(key, "must be standard or raw")
        }
    }

    mutating func modulations(_ key: String) throws(ReaderTraceError) -> [Modulation] {
        guard case .array(let values) = try field(key) else { throw invalid(key, "must be an array") }
        var modulations: [Modulation] = []
        for value in values {
            guard case .string(let name) = value, let modulation = Modulation(rawValue: name) else {
                throw invalid(key, "holds a value that is not a modulation (\(Modulation.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            modulations.append(modulation)
        }
        return modulations
    }

    mutating func error(_ key: String) throws(ReaderTraceError) -> NFCReaderDeviceError {
        var inner = TraceFields(try field(key), line: line)
        let codeName = try inner.string("code")
        guard let code = NFCReaderDeviceError.Code(rawValue: codeName) else { throw invalid("error.code", "'\(codeName)' is not a reader error code") }
        let reason = try inner.string("reason")
        let detail: UInt8?
        switch try inner.field("detail") {
        case .null: detail = nil
        case .integer(let d) where (0...255).contains(d): detail = UInt8(d)
        default: throw invalid("error.detail", "must be null or 0…255")
        }
        try inner.finish()
        return NFCReaderDeviceError(code, reason, detail: detail)
    }

    mutating func target(_ key: String) throws(ReaderTraceError) -> TargetInfo {
        try Self.target(try field(key), key: key, line: line)
    }

    mutating func optionalTarget(_ key: String) throws(ReaderTraceError) -> TargetInfo? {
        let value = try field(key)
        if value == .null { return nil }
        return try Self.target(value, key: key, line: line)
    }

    mutating func targets(_ key: String) throws(ReaderTraceError) -> [TargetInfo] {
        guard case .array(let values) = try field(key) else { throw invalid(key, "must be an array") }
        var targets: [TargetInfo] = []
        for value in values { targets.append(try Self.target(value, key: key, line: line)) }
        return targets
    }

    static func target(_ json: TraceJSON, key: String, line: Int) throws(ReaderTraceError) -> TargetInfo {
        var f = TraceFields(json, line: line)
        let target: TargetInfo
        switch try f.string("type") {
        case "iso14443a":
            let sak = try f.hexBytes("sak")
            guard sak.count == 1 else { throw f.invalid("sak", "must be one byte") }
            target = .iso14443A(ISO14443ATarget(uid: try f.hexBytes("uid"), atqa: try f.hexBytes("atqa"), sak: sak[0], ats: try f.hexBytes("ats")))
        case "iso14443b":
            target = .iso14443B(ISO14443BTarget(pupi: try f.hexBytes("pupi"), applicationData: try f.hexBytes("applicationData"),
                                                protocolInfo: try f.hexBytes("protocolInfo")))
        case "felica":
            let systemCode: UInt16?
            switch try f.field("systemCode") {
            case .null: systemCode = nil
            case .integer(let code) where (0...0xFFFF).contains(code): systemCode = UInt16(code)
            default: throw f.invalid("systemCode", "must be null or 0…65535")
            }
            let bitRate = try f.integer("bitRate")
            guard bitRate == 212 || bitRate == 424 else { throw f.invalid("bitRate", "must be 212 or 424") }
            target = .felica(FeliCaTarget(idm: try f.hexBytes("idm"), pmm: try f.hexBytes("pmm"), systemCode: systemCode, bitRate: bitRate))
        case "jewel":
            target = .jewel(JewelTarget(sensRes: try f.hexBytes("sensRes"), id: try f.hexBytes("id")))
        case "iso15693":
            let dsfid = try f.integer("dsfid")
            guard (0...255).contains(dsfid) else { throw f.invalid("dsfid", "must be 0…255") }
            target = .iso15693(ISO15693Target(uid: try f.hexBytes("uid"), dsfid: UInt8(dsfid)))
        case let other:
            throw f.invalid("type", "'\(other)' is not a target type (iso14443a, iso14443b, felica, jewel, iso15693)")
        }
        try f.finish()
        return target
    }
}
