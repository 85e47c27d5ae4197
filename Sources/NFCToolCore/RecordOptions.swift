import Foundation
import NDEF
import NFCCore
import Provisioning

/// The record options of `ndef encode`, `write`, `emulate` and `batch`, and their mapping onto
/// NDEF's record specification (``NDEFRecordSpecification``), where the records are built.
enum RecordOptions {
    /// Each record option, in help order, with the specification field it gives and whether its value
    /// is that field's value or the path of a file holding it. The first ten start a record; the
    /// others change the record started last.
    static let fields: [(option: CommandOption, field: NDEFRecordSpecification.Field, source: MessageTemplate.Source)] = [
        (.option("url", valueName: "uri", help: "Add a URI record (a scheme is required: https://, tel:, mailto:, …).", repeatable: true), .uri, .value),
        (.option("text", valueName: "text", help: "Add a Text record (language from --lang, default en).", repeatable: true), .text, .value),
        (.option("mime", valueName: "type", help: "Add a MIME record of this media type; its data from --data, --data-hex or --data-file.", repeatable: true), .mimeType, .value),
        (.option("external", valueName: "domain:type", help: "Add an NFC Forum external type record; data as for --mime.", repeatable: true), .externalType, .value),
        (.option("absolute-uri", valueName: "uri", help: "Add a record whose type is this absolute URI; data as for --mime.", repeatable: true), .absoluteURI, .value),
        (.option("aar", valueName: "package", help: "Add an Android Application Record (e.g. com.example.app).", repeatable: true), .packageName, .value),
        (.option("wifi-ssid", valueName: "ssid", help: "Add a Wi-Fi credential record for this network (see --wifi-*).", repeatable: true), .ssid, .value),
        (.option("smart-poster", valueName: "uri", help: "Add a Smart Poster for this URI (see --title, --action).", repeatable: true), .smartPoster, .value),
        (.option("bluetooth", valueName: "address", help: "Add a Bluetooth OOB pairing record for AA:BB:CC:DD:EE:FF (see --bt-*).", repeatable: true), .bluetoothAddress, .value),
        (.option("json-file", valueName: "file", help: "Add the records of a JSON message file (docs/ndef.md); '-' reads standard input.", repeatable: true), .records, .file),
        (.option("lang", valueName: "tag", help: "Language of the preceding --text or --title (default en).", repeatable: true), .language, .value),
        (.flag("utf16", help: "Store the preceding --text or --title as UTF-16.", repeatable: true), .utf16, .value),
        (.option("data", valueName: "text", help: "Data (UTF-8 text) of the preceding --mime, --external or --absolute-uri.", repeatable: true), .data, .value),
        (.option("data-hex", valueName: "hex", help: "Data, as hex, of the preceding --mime, --external or --absolute-uri.", repeatable: true), .dataHex, .value),
        (.option("data-file", valueName: "file", help: "Data, read from a file, of the preceding --mime, --external or --absolute-uri.", repeatable: true), .data, .file),
        (.option("id", valueName: "id", help: "Record ID of the preceding record.", repeatable: true), .identifier, .value),
        (.option("wifi-auth", valueName: "auth", help: "open, wpa-personal, wpa2-personal (default), wpa-wpa2-personal, shared, wpa-enterprise, wpa2-enterprise.", repeatable: true)
            .completing(.words(WiFiCredential.Authentication.names.map(\.0))), .authentication, .value),
        (.option("wifi-encryption", valueName: "enc", help: "none, wep, tkip, aes (default; none for an open network), aes-tkip.", repeatable: true)
            .completing(.words(WiFiCredential.Encryption.names.map(\.0))), .encryption, .value),
        (.option("wifi-key-file", valueName: "file", help: "Read the network key from a file (or set NFCTOOL_WIFI_KEY); keys never go in arguments.", repeatable: true), .networkKey, .file),
        (.option("wifi-mac", valueName: "mac", help: "The access point's MAC address (default FF:FF:FF:FF:FF:FF, any).", repeatable: true), .macAddress, .value),
        (.option("title", valueName: "text", help: "Add a title to the preceding --smart-poster (language from a following --lang).", repeatable: true), .title, .value),
        (.option("action", valueName: "action", help: "Recommended action of the preceding --smart-poster: do, save or edit.", repeatable: true)
            .completing(.words([NDEFSmartPoster.Action.doAction, .save, .edit].map(\.name))), .action, .value),
        (.option("bt-name", valueName: "name", help: "Local name of the preceding --bluetooth device.", repeatable: true), .deviceName, .value),
        (.option("bt-class", valueName: "hex", help: "24-bit class of device of the preceding --bluetooth device, e.g. 0x240404.", repeatable: true), .deviceClass, .value),
    ]
    /// The record options, in help order.
    static let all = fields.map(\.option)
    /// The record options that start a record.
    static let starters = Set(fields.filter { $0.field.startsRecord }.map(\.option))
    private static let byOption = Dictionary(fields.map { ($0.option, ($0.field, $0.source)) }, uniquingKeysWith: { a, _ in a })

    /// The record options among `occurrences`, in order.
    static func occurrences(in occurrences: [ParsedArguments.Occurrence]) -> [ParsedArguments.Occurrence] {
        occurrences.filter { byOption[$0.option] != nil }
    }

    /// The message-building entries of the record options among `occurrences` (flags as empty
    /// text), each value made by `template`.
    static func entries(
        _ occurrences: [ParsedArguments.Occurrence], template: (ParsedArguments.Occurrence) throws(CommandError) -> ProvisioningTemplate
    ) throws(CommandError) -> [MessageTemplate.Entry] {
        var entries: [MessageTemplate.Entry] = []
        for o in Self.occurrences(in: occurrences) {
            guard let (field, source) = byOption[o.option] else { continue }
            entries.append(.init(field: field, source: source, template: try template(o), label: o.option.synopsis))
        }
        return entries
    }

    /// The key of a Wi-Fi network given no key file: `NFCTOOL_WIFI_KEY`.
    static func defaultNetworkKey(_ context: CommandContext) -> Bytes? {
        context.environment["NFCTOOL_WIFI_KEY"].map { Bytes(utf8: $0) }
    }

    /// The value of `field` held in the file at `path`: a data file's bytes, a key file's
    /// bytes without trailing line breaks, a JSON message's records ('-': standard input).
    static func load(_ path: String, for field: NDEFRecordSpecification.Field, _ context: CommandContext) throws(CommandError) -> NDEFRecordSpecification.Value {
        switch field {
        case .records:
            let bytes = path == "-" ? try context.io.readStandardInput(limit: InputLimits.jsonMessage)
                : try readFileBytes(path, what: "JSON file", limit: InputLimits.jsonMessage)
            do {
                return .records(try JSONDecoder().decode(NDEFMessage.self, from: Data(bytes)).records)
            } catch {
                throw .usage("JSON file '\(path)' is not an NDEF message: \(describeDecodingError(error))")
            }
        case .networkKey:
            var bytes = try readFileBytes(path, what: "Wi-Fi key file", limit: InputLimits.keyFile)
            while let last = bytes.last, last == 0x0A || last == 0x0D { bytes.removeLast() }
            return .bytes(Bytes(bytes))
        default:
            return .bytes(Bytes(try readFileBytes(path, what: "data file", limit: InputLimits.dataFile)))
        }
    }

    /// The records the record options among `occurrences` describe, in command-line order.
    /// - Throws: ``CommandError``: usage for a bad value, a modifier without its record or a
    ///   record that cannot be built; failure for an unreadable file.
    static func records(_ occurrences: [ParsedArguments.Occurrence], _ context: CommandContext) throws(CommandError) -> [NDEFPayload] {
        let specifications = try specifications(occurrences, context)
        do {
            return try NDEFRecordSpecification.payloads(of: specifications)
        } catch {
            throw commandError(error, occurrences)
        }
    }

    /// The record specifications the record options among `occurrences` describe, files read.
    static func specifications(_ occurrences: [ParsedArguments.Occurrence], _ context: CommandContext) throws(CommandError) -> [NDEFRecordSpecification] {
        let template = MessageTemplate(entries: try entries(occurrences) { o throws(CommandError) in ProvisioningTemplate(literal: o.value ?? "") })
        do {
            return try template.specifications(uid: [], counter: nil, defaultNetworkKey: defaultNetworkKey(context)) { path, field in
                try load(path, for: field, context)
            }
        } catch {
            throw commandError(error, occurrences)
        }
    }

    /// `error` (from building the record options among `occurrences`) as the command line says it.
    static func commandError(_ error: any Error, _ occurrences: [ParsedArguments.Occurrence]) -> CommandError {
        if let error = error as? CommandError { return error }
        guard let error = error as? NDEFSpecificationError else { return .usage("\(error)") }
        let used = Self.occurrences(in: occurrences)
        let starters = used.enumerated().filter { Self.starters.contains($0.element.option) }
        if let record = error.record, record < starters.count {
            var reason = error.error.reason
            if error.problem == .missing && error.field == .networkKey {
                reason += ": --wifi-key-file FILE or NFCTOOL_WIFI_KEY (for an open network, say --wifi-auth open)"
            } else if error.field == .identifier && error.error.code == .invalidValue {
                reason = "--id applies to one non-empty record"
            }
            return .usage("record \(record + 1) (\(starters[record].element.option.synopsis)): \(reason)")
        }
        guard let position = error.position, position < used.count else { return .usage(error.description) }
        let o = used[position]
        let starter = starters.last { $0.offset < position }?.element
        switch error.problem {
        case .misplaced(let expected, let found):
            let names = expected.compactMap { field in fields.first { $0.field == field }.map { "--" + $0.option.name } }
            let allowed = names.isEmpty ? "a record option" : names.count == 1 ? names[0]
                : names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1]
            let after = found != nil ? starter.map { ", not \($0.option.synopsis)" } ?? "" : ""
            return .usage("\(o.option.synopsis) must follow \(allowed)\(after)")
        case .repeated:
            return .usage("\(starter?.option.synopsis ?? "the record") '\(starter?.value ?? "")' already has its data")
        case .invalidValue, .missing:
            return .invalidValue(o.value ?? "", for: o.option, reason: error.error.reason)
        }
    }
}

/// A one-line explanation of a JSON decoding failure, with the path to the bad value.
func describeDecodingError(_ error: any Error) -> String {
    func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }
    switch error as? DecodingError {
    case .dataCorrupted(let c):
        if let underlying = c.underlyingError as NSError?, c.codingPath.isEmpty {
            return "not valid JSON (\(underlying.userInfo[NSDebugDescriptionErrorKey] as? String ?? underlying.localizedDescription))"
        }
        return "\(path(c.codingPath)): \(c.debugDescription)"
    case .keyNotFound(let key, let c): return "\(path(c.codingPath)): missing \"\(key.stringValue)\""
    case .typeMismatch(_, let c), .valueNotFound(_, let c): return "\(path(c.codingPath)): \(c.debugDescription)"
    default: return String(describing: error)
    }
}
