public import NDEF
public import NFCCore
public import NFCTags

/// What a batch writes on each tag: the fields of NDEF record specifications
/// (``NDEF/NDEFRecordSpecification/Field``) in order, each value a ``ProvisioningTemplate``
/// filled per tag. A manifest row makes one with literal values (its columns name the fields,
/// see ``columns``); batch's record options make one whose values may hold placeholders.
public struct MessageTemplate: Sendable {
    /// Where a field's value comes from.
    public enum Source: Sendable, Hashable {
        /// The (filled) text is the value.
        case value
        /// The (filled) text names a file whose contents are the value.
        case file
    }

    /// One field of the message.
    public struct Entry: Sendable {
        /// The field.
        public var field: NDEFRecordSpecification.Field
        /// Whether the text is the value or a file's path.
        public var source: Source
        /// The text, placeholders filled per tag.
        public var template: ProvisioningTemplate
        /// What people called it (a manifest column's name), for messages.
        public var label: String

        /// Creates an entry.
        public init(field: NDEFRecordSpecification.Field, source: Source = .value, template: ProvisioningTemplate, label: String) {
            self.field = field
            self.source = source
            self.template = template
            self.label = label
        }
    }

    /// The fields, in order: each record-starting field begins a record.
    public var entries: [Entry]
    /// The NTAG21x mirror a manifest row's `url` asks for (`{mirror:uid}`, `{mirror:counter}`,
    /// `{mirror:uid}x{mirror:counter}`): its value then holds the placeholder characters.
    public var mirror: NTAGMirror?

    /// Creates a template.
    public init(entries: [Entry], mirror: NTAGMirror? = nil) {
        self.entries = entries
        self.mirror = mirror
    }

    /// Whether a counter must be allocated per tag (some value uses `{n}`).
    public var usesCounter: Bool { entries.contains { $0.template.usesCounter } }

    /// The manifest columns (case-insensitive) and the field each gives; the names are those
    /// of `nfctool ndef encode`'s record options. A `uid` column names the tag instead.
    public static let columns: [String: (field: NDEFRecordSpecification.Field, source: Source)] = [
        "url": (.uri, .value), "text": (.text, .value), "mime": (.mimeType, .value), "external": (.externalType, .value),
        "absolute-uri": (.absoluteURI, .value), "aar": (.packageName, .value), "wifi-ssid": (.ssid, .value),
        "smart-poster": (.smartPoster, .value), "bluetooth": (.bluetoothAddress, .value), "json-file": (.records, .file),
        "lang": (.language, .value), "utf16": (.utf16, .value), "data": (.data, .value), "data-hex": (.dataHex, .value),
        "data-file": (.data, .file), "id": (.identifier, .value), "wifi-auth": (.authentication, .value),
        "wifi-encryption": (.encryption, .value), "wifi-key-file": (.networkKey, .file), "wifi-mac": (.macAddress, .value),
        "title": (.title, .value), "action": (.action, .value), "bt-name": (.deviceName, .value), "bt-class": (.deviceClass, .value),
    ]

    /// The template of a manifest row: its columns in order (but `uid`), values taken
    /// literally (a brace is a brace), except an NTAG21x mirror placeholder in a `url` column
    /// (``NFCTags/NTAGMirrorTemplate``), replaced by the placeholder characters and kept as
    /// ``mirror``.
    /// - Throws: ``ProvisioningInputError`` for a column that names no field, a malformed mirror
    ///   placeholder or more than one mirror, with the row's line.
    public init(row: ManifestRow) throws(ProvisioningInputError) {
        var entries: [Entry] = []
        var mirror: NTAGMirror?
        for (name, value) in row.fields where name.lowercased() != "uid" {
            guard let column = Self.columns[name.lowercased()] else {
                throw ProvisioningInputError("column '\(name)' is not a record option", line: row.line)
            }
            var text = value
            if column.field == .uri {
                let template: NTAGMirrorTemplate?
                do { template = try NTAGMirrorTemplate(value) } catch { throw ProvisioningInputError("\(name) '\(value)': \(error.reason)", line: row.line) }
                if let template {
                    guard mirror == nil else {
                        throw ProvisioningInputError("an NTAG21x has one mirror: only one \(name) column may hold {mirror:…}", line: row.line)
                    }
                    mirror = template.mirror
                    text = template.text
                }
            }
            entries.append(Entry(field: column.field, source: column.source, template: ProvisioningTemplate(literal: text), label: name))
        }
        self.init(entries: entries, mirror: mirror)
    }

    /// The specifications for a tag with `uid` (and `counter`, when the template uses one).
    /// - Parameters:
    ///   - defaultNetworkKey: the key of a Wi-Fi network given none.
    ///   - load: reads the value of a field whose ``Source`` is a file, from the file's path.
    /// - Throws: ``NDEF/NDEFSpecificationError`` (its position counts ``entries``), or what `load` throws.
    public func specifications(
        uid: [UInt8], counter: Int?, defaultNetworkKey: Bytes? = nil,
        load: (String, NDEFRecordSpecification.Field) throws -> NDEFRecordSpecification.Value
    ) throws -> [NDEFRecordSpecification] {
        var fields: [(field: NDEFRecordSpecification.Field, value: NDEFRecordSpecification.Value)] = []
        for entry in entries {
            let text = entry.template.render(uid: uid, counter: counter)
            fields.append((entry.field, entry.source == .file ? try load(text, entry.field) : .text(text)))
        }
        return try NDEFRecordSpecification.specifications(from: fields, defaultNetworkKey: defaultNetworkKey)
    }

    /// The message for a tag: ``specifications(uid:counter:defaultNetworkKey:load:)``, built.
    /// - Throws: ``NDEF/NDEFSpecificationError`` (with the record's index when a record cannot
    ///   be built), or what `load` throws.
    public func message(
        uid: [UInt8], counter: Int?, defaultNetworkKey: Bytes? = nil,
        load: (String, NDEFRecordSpecification.Field) throws -> NDEFRecordSpecification.Value
    ) throws -> NDEFMessage {
        let specifications = try specifications(uid: uid, counter: counter, defaultNetworkKey: defaultNetworkKey, load: load)
        return NDEFMessage(records: try NDEFRecordSpecification.payloads(of: specifications))
    }

    /// `error` told with the entries' labels (for a manifest, its column names):
    /// `record 2 (wifi-ssid): …` for a record that cannot be built, `title must follow
    /// smart-poster, not url` for a field out of place, `lang 'x y': …` for a bad value.
    public func describe(_ error: NDEFSpecificationError) -> String {
        let starters = entries.enumerated().filter { $0.element.field.startsRecord }
        if let record = error.record, record < starters.count {
            let hint = error.problem == .missing && error.field == .networkKey
                ? " (give a wifi-key-file column, or wifi-auth open for an open network)" : ""
            return "record \(record + 1) (\(starters[record].element.label)): \(error.error.reason)\(hint)"
        }
        guard let position = error.position, position < entries.count else { return error.description }
        let entry = entries[position]
        switch error.problem {
        case .misplaced(let expected, let found):
            let names = expected.compactMap { field in Self.columns.filter { $0.value.field == field && $0.value.source == .value }.keys.first }
            let after = found != nil ? starters.last { $0.offset < position }.map { ", not \($0.element.label)" } ?? "" : ""
            return "\(entry.label) must follow \(names.isEmpty ? "a record" : names.joined(separator: " or "))\(after)"
        default:
            return "\(entry.label) '\(entry.template.text)': \(error.error.reason)"
        }
    }
}
