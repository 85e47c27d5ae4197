public import NFCCore

extension NDEFRecordSpecification {
    /// A field of a record specification as people give it, one value at a time: a
    /// record-starting field (``startsRecord``) begins a record of its kind, the others change
    /// the record started last. Command-line options and manifest columns map onto these.
    public enum Field: Sendable, Hashable, CaseIterable {
        /// Starts a URI record: the URI.
        case uri
        /// Starts a Text record (language `en`): the text.
        case text
        /// Starts a MIME record: the media type.
        case mimeType
        /// Starts an external type record: `domain:type`.
        case externalType
        /// Starts an absolute-URI record: the URI that is its type.
        case absoluteURI
        /// Starts an Android Application Record: the package name.
        case packageName
        /// Starts a Wi-Fi credential record: the SSID.
        case ssid
        /// Starts a Smart Poster: its URI.
        case smartPoster
        /// Starts a Bluetooth OOB record: the address, `AA:BB:CC:DD:EE:FF`.
        case bluetoothAddress
        /// Adds records already built (``Value/records(_:)``).
        case records
        /// The language tag of the Text record, or of the Smart Poster's last title.
        case language
        /// Stores the Text record (or the Smart Poster's last title) as UTF-16; the value is ignored.
        case utf16
        /// The data of a MIME, external or absolute-URI record: text (stored as UTF-8) or bytes.
        case data
        /// The data of a MIME, external or absolute-URI record, as hex.
        case dataHex
        /// The record ID.
        case identifier
        /// The Wi-Fi authentication: `open`, `wpa2-personal`, … (``WiFiCredential/Authentication/names``).
        case authentication
        /// The Wi-Fi encryption: `none`, `aes`, … (``WiFiCredential/Encryption/names``).
        case encryption
        /// The Wi-Fi network key: text or bytes.
        case networkKey
        /// The access point's MAC address, 6 hex bytes.
        case macAddress
        /// Adds a title (language `en`) to the Smart Poster.
        case title
        /// The Smart Poster's recommended action: `do`, `save`, `edit` (or a number).
        case action
        /// The Bluetooth device's local name.
        case deviceName
        /// The Bluetooth class of device: 24-bit hex, e.g. `0x240404`.
        case deviceClass

        /// Whether the field begins a record.
        public var startsRecord: Bool { Self.starters.contains(self) }

        /// The record-starting fields, in the order help lists them.
        public static let starters: [Field] = [
            .uri, .text, .mimeType, .externalType, .absoluteURI, .packageName, .ssid, .smartPoster, .bluetoothAddress, .records,
        ]

        /// What a field that changes a record must follow (for ``language``, a Text record or
        /// a Smart Poster title); empty for a record-starting field and for ``identifier``,
        /// which changes any record.
        public var follows: [Field] {
            switch self {
            case .language, .utf16: [.text, .title]
            case .data, .dataHex: [.mimeType, .externalType, .absoluteURI]
            case .authentication, .encryption, .networkKey, .macAddress: [.ssid]
            case .title, .action: [.smartPoster]
            case .deviceName, .deviceClass: [.bluetoothAddress]
            default: []
            }
        }

        /// A short human name (`URI`, `language`, `Wi-Fi key`, …).
        public var name: String {
            switch self {
            case .uri: "URI"
            case .text: "text"
            case .mimeType: "MIME type"
            case .externalType: "external type"
            case .absoluteURI: "absolute URI"
            case .packageName: "Android package"
            case .ssid: "Wi-Fi SSID"
            case .smartPoster: "Smart Poster URI"
            case .bluetoothAddress: "Bluetooth address"
            case .records: "records"
            case .language: "language"
            case .utf16: "UTF-16"
            case .data, .dataHex: "data"
            case .identifier: "ID"
            case .authentication: "Wi-Fi authentication"
            case .encryption: "Wi-Fi encryption"
            case .networkKey: "Wi-Fi key"
            case .macAddress: "MAC address"
            case .title: "title"
            case .action: "action"
            case .deviceName: "Bluetooth name"
            case .deviceClass: "Bluetooth class"
            }
        }
    }

    /// A field's value: text (how every field can be given), bytes (the contents of a data
    /// or key file), or records already built.
    public enum Value: Sendable, Equatable {
        /// Text, read as the field's type (hex, a name, a number, …).
        case text(String)
        /// Bytes: for ``Field/data`` and ``Field/networkKey``.
        case bytes(Bytes)
        /// Built records: for ``Field/records``.
        case records([NDEFPayload])
    }

    /// The specifications `fields` describe, read in order: each record-starting field begins
    /// a record, each other field changes the record begun last.
    ///
    /// Every value is read here (hex, names, addresses, URI schemes); what the record type
    /// itself forbids is found by ``payloads()``.
    /// - Parameter defaultNetworkKey: the key of a Wi-Fi network given none.
    /// - Throws: ``NDEFSpecificationError`` with the ``NDEFSpecificationError/position`` of
    ///   the field at fault: a value that cannot be read, a field with no record to change
    ///   (`misplaced`), or data given twice (`repeated`).
    public static func specifications(
        from fields: [(field: Field, value: Value)], defaultNetworkKey: Bytes? = nil
    ) throws(NDEFSpecificationError) -> [NDEFRecordSpecification] {
        var reader = FieldReader()
        for (position, entry) in fields.enumerated() {
            do {
                try reader.read(entry.field, entry.value)
            } catch {
                var located = error
                located.position = position
                throw located
            }
        }
        return reader.specifications.map { specification in
            guard case .wifi(var network) = specification.kind, network.networkKey == nil else { return specification }
            network.networkKey = defaultNetworkKey
            return NDEFRecordSpecification(.wifi(network), identifier: specification.identifier)
        }
    }
}

/// Reads fields one at a time into specifications.
private struct FieldReader {
    typealias Field = NDEFRecordSpecification.Field
    var specifications: [NDEFRecordSpecification] = []
    /// The records whose data was given (a MIME record's data may be given once).
    var withData: Set<Int> = []

    mutating func read(_ field: Field, _ value: NDEFRecordSpecification.Value) throws(NDEFSpecificationError) {
        if field.startsRecord {
            specifications.append(NDEFRecordSpecification(try Self.start(field, value)))
            return
        }
        guard let last = specifications.indices.last else {
            throw NDEFSpecificationError(field, .misplaced(expected: field.follows, found: nil), NDEFError(.invalidValue, "\(field.name) comes before any record"))
        }
        var specification = specifications[last]
        if field == .identifier {
            specification.identifier = try Self.text(field, value)
            specifications[last] = specification
            return
        }
        let misplaced = NDEFSpecificationError(
            field, .misplaced(expected: field.follows, found: specification.startingField),
            NDEFError(.invalidValue, "\(field.name) does not apply to a record of \(specification.startingField.name)"))
        switch (field, specification.kind) {
        case (.language, .text(var text)), (.utf16, .text(var text)):
            if field == .language { text.language = try Self.text(field, value) } else { text.encoding = .utf16 }
            specification.kind = .text(text)
        case (.language, .smartPoster(var poster)) where !poster.titles.isEmpty,
             (.utf16, .smartPoster(var poster)) where !poster.titles.isEmpty:
            let index = poster.titles.count - 1
            if field == .language { poster.titles[index].language = try Self.text(field, value) } else { poster.titles[index].encoding = .utf16 }
            specification.kind = .smartPoster(poster)
        case (.data, .mime(let type, _)), (.dataHex, .mime(let type, _)):
            specification.kind = .mime(type: type, data: try dataOnce(field, value, record: last))
        case (.data, .external(let type, _)), (.dataHex, .external(let type, _)):
            specification.kind = .external(type: type, data: try dataOnce(field, value, record: last))
        case (.data, .absoluteURI(let uri, _)), (.dataHex, .absoluteURI(let uri, _)):
            specification.kind = .absoluteURI(uri, data: try dataOnce(field, value, record: last))
        case (.authentication, .wifi(var network)):
            network.authentication = try Self.named(field, value, WiFiCredential.Authentication.self)
            specification.kind = .wifi(network)
        case (.encryption, .wifi(var network)):
            network.encryption = try Self.named(field, value, WiFiCredential.Encryption.self)
            specification.kind = .wifi(network)
        case (.networkKey, .wifi(var network)):
            network.networkKey = try Self.bytes(field, value)
            specification.kind = .wifi(network)
        case (.macAddress, .wifi(var network)):
            guard let mac = try? Hex.decode(try Self.text(field, value)), mac.count == 6 else {
                throw Self.invalid(field, "expected 6 hex bytes like 00:11:22:33:44:55")
            }
            network.macAddress = mac
            specification.kind = .wifi(network)
        case (.title, .smartPoster(var poster)):
            poster.titles.append(NDEFText(text: try Self.text(field, value), language: "en"))
            specification.kind = .smartPoster(poster)
        case (.action, .smartPoster(var poster)):
            guard let action = NDEFSmartPoster.Action(name: try Self.text(field, value)) else {
                throw Self.invalid(field, "use do, save or edit")
            }
            poster.action = action
            specification.kind = .smartPoster(poster)
        case (.deviceName, .bluetooth(var oob)):
            oob.localName = try Self.text(field, value)
            specification.kind = .bluetooth(oob)
        case (.deviceClass, .bluetooth(var oob)):
            let text = try Self.text(field, value)
            let digits = text.hasPrefix("0x") || text.hasPrefix("0X") ? String(text.dropFirst(2)) : text
            guard let deviceClass = UInt32(digits, radix: 16), deviceClass <= 0xFF_FFFF else {
                throw Self.invalid(field, "expected a 24-bit hex number like 0x240404")
            }
            oob.deviceClass = deviceClass
            specification.kind = .bluetooth(oob)
        default:
            throw misplaced
        }
        specifications[last] = specification
    }

    /// The data of record `record`, refused when it already has some.
    mutating func dataOnce(_ field: Field, _ value: NDEFRecordSpecification.Value, record: Int) throws(NDEFSpecificationError) -> Bytes {
        guard withData.insert(record).inserted else {
            throw NDEFSpecificationError(field, .repeated, NDEFError(.invalidValue, "the record already has its data"))
        }
        if field == .dataHex {
            let text = try Self.text(field, value)
            do {
                return Bytes(try Hex.decode(text))
            } catch {
                throw Self.invalid(field, error.description)
            }
        }
        return try Self.bytes(field, value)
    }

    static func start(_ field: Field, _ value: NDEFRecordSpecification.Value) throws(NDEFSpecificationError) -> NDEFRecordSpecification.Kind {
        if field == .records {
            guard case .records(let records) = value else { throw invalid(field, "records must be given built") }
            return .records(records)
        }
        let text = try text(field, value)
        switch field {
        case .uri:
            try NDEFRecordSpecification.checkURIText(text, field: field)
            return .uri(text)
        case .text: return .text(NDEFText(text: text, language: "en"))
        case .mimeType: return .mime(type: text, data: Bytes())
        case .externalType: return .external(type: text, data: Bytes())
        case .absoluteURI: return .absoluteURI(text, data: Bytes())
        case .packageName: return .androidApplication(packageName: text)
        case .ssid: return .wifi(.init(ssid: text))
        case .smartPoster: return .smartPoster(NDEFSmartPoster(uri: text))
        default:
            guard let address = BluetoothOOB.parseAddress(text) else {
                throw invalid(field, "expected 6 hex bytes like 00:1A:7D:DA:71:13")
            }
            return .bluetooth(BluetoothOOB(address: address))
        }
    }

    static func invalid(_ field: Field, _ reason: String) -> NDEFSpecificationError {
        NDEFSpecificationError(field, .invalidValue, NDEFError(.invalidValue, reason))
    }

    static func text(_ field: Field, _ value: NDEFRecordSpecification.Value) throws(NDEFSpecificationError) -> String {
        guard case .text(let text) = value else { throw invalid(field, "the \(field.name) is given as text") }
        return text
    }

    static func bytes(_ field: Field, _ value: NDEFRecordSpecification.Value) throws(NDEFSpecificationError) -> Bytes {
        switch value {
        case .text(let text): return Bytes(utf8: text)
        case .bytes(let bytes): return bytes
        case .records: throw invalid(field, "the \(field.name) is given as text or bytes")
        }
    }

    static func named<V: WSCNamedValue>(_ field: Field, _ value: NDEFRecordSpecification.Value, _: V.Type) throws(NDEFSpecificationError) -> V {
        let text = try text(field, value)
        guard let named = V(name: text) else {
            throw invalid(field, "use one of \(V.names.map(\.0).joined(separator: ", "))")
        }
        return named
    }
}
