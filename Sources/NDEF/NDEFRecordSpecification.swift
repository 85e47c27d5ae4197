public import NFCCore

/// What a record of a message to be written is: its kind with that kind's fields, and an
/// optional record ID. The one description both `nfctool ndef encode`/`write` (from options)
/// and batch provisioning (from manifest columns and templates) build messages from.
///
/// ``payloads()`` builds the record (or, for ``Kind/records(_:)``, the records) and is total:
/// every rule is checked there, and a fault is an ``NDEFSpecificationError`` naming the field.
/// ``specifications(from:defaultNetworkKey:)`` reads specifications from fields given as text
/// in order (a record-starting field, then the fields that change it).
public struct NDEFRecordSpecification: Sendable, Equatable {
    /// The kinds of record, each with its fields.
    public enum Kind: Sendable, Equatable {
        /// A well-known URI record; the URI needs a scheme (`https:`, `tel:`, …), and an
        /// `http(s)` URL a host. The longest RTD-URI prefix is abbreviated.
        case uri(String)
        /// A well-known Text record (language tag 1–63 ASCII letters, digits, `-`).
        case text(NDEFText)
        /// A MIME media record of `type` (`type/subtype`) holding `data`.
        case mime(type: String, data: Bytes)
        /// An NFC Forum external type record (`domain:type`) holding `data`.
        case external(type: String, data: Bytes)
        /// An absolute-URI record: the URI is the record type; `data` is the payload.
        case absoluteURI(String, data: Bytes)
        /// An Android Application Record naming a Java-style package.
        case androidApplication(packageName: String)
        /// A Wi-Fi Simple Configuration credential.
        case wifi(WiFiNetwork)
        /// A Smart Poster (URI, titles, action, …).
        case smartPoster(NDEFSmartPoster)
        /// Bluetooth BR/EDR out-of-band pairing data.
        case bluetooth(BluetoothOOB)
        /// Records already built (e.g. read from a JSON message), taken as they are.
        case records([NDEFPayload])
    }

    /// A Wi-Fi network as a record specification states it: what is left out takes the
    /// defaults, and a network that authenticates needs a key (no silent open network).
    public struct WiFiNetwork: Sendable, Equatable {
        /// The network name (SSID), 1–32 bytes of UTF-8.
        public var ssid: String
        /// How the network authenticates; `nil` means WPA2-Personal.
        public var authentication: WiFiCredential.Authentication?
        /// How it encrypts; `nil` means AES, or none for an open network.
        public var encryption: WiFiCredential.Encryption?
        /// The passphrase or key (at most 64 bytes); needed unless the network is open.
        public var networkKey: Bytes?
        /// The access point's MAC address (6 bytes); `nil` means any (`FF:FF:FF:FF:FF:FF`).
        public var macAddress: [UInt8]?

        /// Creates a network description.
        public init(ssid: String, authentication: WiFiCredential.Authentication? = nil,
                    encryption: WiFiCredential.Encryption? = nil, networkKey: Bytes? = nil, macAddress: [UInt8]? = nil) {
            self.ssid = ssid
            self.authentication = authentication
            self.encryption = encryption
            self.networkKey = networkKey
            self.macAddress = macAddress
        }

        /// The authentication used: the one given, else WPA2-Personal.
        public var effectiveAuthentication: WiFiCredential.Authentication { authentication ?? .wpa2Personal }
    }

    /// The kind and its fields.
    public var kind: Kind
    /// The record ID (at most 255 bytes of UTF-8), if any; only for a kind that makes one record.
    public var identifier: String?

    /// Creates a specification.
    public init(_ kind: Kind, identifier: String? = nil) {
        self.kind = kind
        self.identifier = identifier
    }

    /// The field that starts a record of this kind.
    public var startingField: Field {
        switch kind {
        case .uri: .uri
        case .text: .text
        case .mime: .mimeType
        case .external: .externalType
        case .absoluteURI: .absoluteURI
        case .androidApplication: .packageName
        case .wifi: .ssid
        case .smartPoster: .smartPoster
        case .bluetooth: .bluetoothAddress
        case .records: .records
        }
    }

    /// The record(s) this specification describes.
    /// - Throws: ``NDEFSpecificationError`` naming the field at fault: `.invalidValue` for a
    ///   value the record type does not allow, `.missing` for a Wi-Fi network that
    ///   authenticates but has no key.
    public func payloads() throws(NDEFSpecificationError) -> [NDEFPayload] {
        var built: [NDEFPayload]
        switch kind {
        case .uri(let uri):
            try Self.checkURIText(uri, field: .uri)
            built = [try Self.building(.uri) { () throws(NDEFError) in try .wellKnownTypeURIPayload(url: uri) }]
        case .text(let text):
            built = [try Self.building(.text) { () throws(NDEFError) in try .textPayload(text) }]
        case .mime(let type, let data):
            built = [try Self.building(.mimeType) { () throws(NDEFError) in try .mimeTypePayload(type: type, data: data) }]
        case .external(let type, let data):
            built = [try Self.building(.externalType) { () throws(NDEFError) in try .externalTypePayload(type: type, data: data) }]
        case .absoluteURI(let uri, let data):
            built = [try Self.building(.absoluteURI) { () throws(NDEFError) in try .absoluteURIPayload(uri: uri, data: data) }]
        case .androidApplication(let name):
            built = [try Self.building(.packageName) { () throws(NDEFError) in try .androidApplicationRecord(packageName: name) }]
        case .wifi(let network):
            built = [try Self.wifiPayload(network)]
        case .smartPoster(let poster):
            built = [try Self.building(.smartPoster) { () throws(NDEFError) in try .smartPosterPayload(poster) }]
        case .bluetooth(let oob):
            built = [try Self.building(.bluetoothAddress) { () throws(NDEFError) in try .bluetoothOOBPayload(oob) }]
        case .records(let records):
            built = records
        }
        if let identifier {
            guard built.count == 1, built[0].typeNameFormat != .empty else {
                throw NDEFSpecificationError(.identifier, .invalidValue, NDEFError(.invalidValue, "an ID applies to one non-empty record"))
            }
            guard identifier.utf8.count <= 255 else {
                throw NDEFSpecificationError(.identifier, .invalidValue,
                                             NDEFError(.fieldTooLong, "ID is \(identifier.utf8.count) bytes; at most 255"))
            }
            built[0].identifier = Bytes(utf8: identifier)
        }
        return built
    }

    /// The records of `specifications`, in order.
    /// - Throws: ``NDEFSpecificationError`` of the first one that cannot be built, with its
    ///   ``NDEFSpecificationError/record`` index.
    public static func payloads(of specifications: [NDEFRecordSpecification]) throws(NDEFSpecificationError) -> [NDEFPayload] {
        var records: [NDEFPayload] = []
        for (index, specification) in specifications.enumerated() {
            do {
                records.append(contentsOf: try specification.payloads())
            } catch {
                var located = error
                located.record = index
                throw located
            }
        }
        return records
    }

    /// Runs a payload builder, naming `field` when it fails (the language, whatever the
    /// record, for a bad language tag).
    private static func building(_ field: Field, _ build: () throws(NDEFError) -> NDEFPayload) throws(NDEFSpecificationError) -> NDEFPayload {
        do {
            return try build()
        } catch {
            throw NDEFSpecificationError(error.code == .invalidLanguageTag ? .language : field, .invalidValue, error)
        }
    }

    private static func wifiPayload(_ network: WiFiNetwork) throws(NDEFSpecificationError) -> NDEFPayload {
        let authentication = network.effectiveAuthentication
        let encryption = network.encryption ?? (authentication == .open ? .none : .aes)
        let key = network.networkKey ?? Bytes()
        if authentication != .open && key.isEmpty {
            throw NDEFSpecificationError(.networkKey, .missing,
                                         NDEFError(.invalidValue, "\(authentication.name) needs a network key"))
        }
        let ssid = Bytes(utf8: network.ssid)
        guard (1...32).contains(ssid.count) else {
            throw NDEFSpecificationError(.ssid, .invalidValue, NDEFError(.invalidValue, "Wi-Fi SSID must be 1 to 32 bytes, not \(ssid.count)"))
        }
        let credential = WiFiCredential(ssid: ssid, authentication: authentication, encryption: encryption,
                                        networkKey: key, macAddress: network.macAddress ?? [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        if let problem = credential.joinProblem {
            throw NDEFSpecificationError(problem.field == .encryption ? .encryption : .networkKey, .invalidValue,
                                         NDEFError(.invalidValue, problem.reason))
        }
        do {
            return try .wifiCredentialPayload(credential)
        } catch {
            let field: Field = credential.macAddress.count != 6 ? .macAddress : .networkKey
            throw NDEFSpecificationError(field, .invalidValue, error)
        }
    }

    /// A URI a URI record may hold: a scheme (RFC 3986 3.1), and a host after `http(s)://`.
    static func checkURIText(_ uri: String, field: Field) throws(NDEFSpecificationError) {
        guard schemeLength(Array(uri.utf8)) != nil else {
            throw NDEFSpecificationError(field, .invalidValue, NDEFError(.invalidURI, "a URI needs a scheme, e.g. https://\(uri)"))
        }
        let lower = uri.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            let parts = uri.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
            if parts.count < 3 || parts[2].isEmpty {
                throw NDEFSpecificationError(field, .invalidValue, NDEFError(.invalidURI, "an http(s) URL needs a host"))
            }
        }
    }
}

/// Why a record specification (or the fields it was read from) cannot make a record: the
/// field at fault, what kind of fault, and the NDEF error that says why.
public struct NDEFSpecificationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of fault.
    public enum Problem: Sendable, Hashable {
        /// The field's value is not allowed (or cannot be read as the field's type).
        case invalidValue
        /// A required field was not given (a Wi-Fi key for a network that authenticates).
        case missing
        /// A field that changes a record came where no record it changes was started: it
        /// must follow one of `expected` (every record-starting field when empty), not
        /// `found` (`nil`: no record at all yet).
        case misplaced(expected: [NDEFRecordSpecification.Field], found: NDEFRecordSpecification.Field?)
        /// The field was given twice for one record (the data of a MIME record).
        case repeated
    }

    /// The field at fault.
    public var field: NDEFRecordSpecification.Field
    /// What kind of fault.
    public var problem: Problem
    /// The code and human reason.
    public var error: NDEFError
    /// The 0-based index, among the fields read, of the field at fault (set by
    /// ``NDEFRecordSpecification/specifications(from:defaultNetworkKey:)``).
    public var position: Int?
    /// The 0-based index of the record at fault in a list of specifications (set by
    /// ``NDEFRecordSpecification/payloads(of:)``).
    public var record: Int?

    /// Creates an error.
    public init(_ field: NDEFRecordSpecification.Field, _ problem: Problem, _ error: NDEFError, position: Int? = nil, record: Int? = nil) {
        self.field = field
        self.problem = problem
        self.error = error
        self.position = position
        self.record = record
    }

    /// `field: reason`.
    public var description: String { "\(field.name): \(error.reason)" }
}
