public import NFCCore

/// The content of a Smart Poster record (NFC Forum Smart Poster RTD 1.0, type `Sp`): a URI with
/// titles, a recommended action, the size and type of what the URI points to, and an icon.
public struct NDEFSmartPoster: Sendable, Hashable {
    /// What the reader's device is advised to do with the URI (the `act` record).
    public enum Action: Sendable, Hashable {
        /// 0x00: do the action (open the link, send the SMS, …).
        case doAction
        /// 0x01: save for later.
        case save
        /// 0x02: open for editing.
        case edit
        /// Any other (reserved) value, kept as found.
        case reserved(UInt8)

        /// The byte in the `act` record.
        public var rawValue: UInt8 {
            switch self {
            case .doAction: 0
            case .save: 1
            case .edit: 2
            case .reserved(let v): v
            }
        }

        /// The action for an `act` byte.
        public init(rawValue: UInt8) {
            switch rawValue {
            case 0: self = .doAction
            case 1: self = .save
            case 2: self = .edit
            default: self = .reserved(rawValue)
            }
        }

        /// `do`, `save`, `edit` or the number.
        public var name: String {
            switch self {
            case .doAction: "do"
            case .save: "save"
            case .edit: "edit"
            case .reserved(let v): String(v)
            }
        }

        /// Looks up `do`, `save`, `edit` or a number 0–255.
        public init?(name: String) {
            switch name {
            case "do": self = .doAction
            case "save": self = .save
            case "edit": self = .edit
            default:
                guard let v = UInt8(name) else { return nil }
                self.init(rawValue: v)
            }
        }
    }

    /// An icon: a MIME record of an `image/…` or `video/…` type.
    public struct Icon: Sendable, Hashable {
        /// The media type, e.g. `image/png`.
        public var mimeType: String
        /// The image or video bytes.
        public var data: Bytes
        /// Creates an icon.
        public init(mimeType: String, data: Bytes) {
            self.mimeType = mimeType
            self.data = data
        }
    }

    /// The URI (exactly one per Smart Poster).
    public var uri: String
    /// Titles, at most one per language.
    public var titles: [NDEFText]
    /// The recommended action, if any.
    public var action: Action?
    /// The size in bytes of what the URI points to, if given.
    public var size: UInt32?
    /// The MIME type of what the URI points to, if given.
    public var mimeType: String?
    /// Icons.
    public var icons: [Icon]
    /// Records a Smart Poster may carry that none of the fields above describe, kept in order.
    public var otherRecords: [NDEFPayload]

    /// Creates Smart Poster content.
    public init(uri: String, titles: [NDEFText] = [], action: Action? = nil, size: UInt32? = nil,
                mimeType: String? = nil, icons: [Icon] = [], otherRecords: [NDEFPayload] = []) {
        self.uri = uri
        self.titles = titles
        self.action = action
        self.size = size
        self.mimeType = mimeType
        self.icons = icons
        self.otherRecords = otherRecords
    }
}

extension NDEFPayload {
    /// A Smart Poster record (well-known type `Sp`) whose payload is an NDEF message of a URI
    /// record, Text records for the titles, and `act`, `s`, `t` and icon records as given.
    /// - Throws: ``NDEFError`` for an invalid URI, title language, icon or MIME type, or two
    ///   titles in the same language (Smart Poster RTD 3.3).
    public static func smartPosterPayload(_ poster: NDEFSmartPoster) throws(NDEFError) -> NDEFPayload {
        var records = [try wellKnownTypeURIPayload(url: poster.uri)]
        var languages = Set<String>()
        for title in poster.titles {
            guard languages.insert(title.language.lowercased()).inserted else {
                throw NDEFError(.invalidValue, "two Smart Poster titles in language \"\(title.language)\"; one per language")
            }
            records.append(try textPayload(title))
        }
        if let action = poster.action {
            records.append(NDEFPayload(format: .nfcWellKnown, type: "act", payload: [action.rawValue]))
        }
        if let size = poster.size {
            var bytes = [UInt8]()
            bytes.appendUInt32BE(size)
            records.append(NDEFPayload(format: .nfcWellKnown, type: "s", payload: Bytes(bytes)))
        }
        if let mimeType = poster.mimeType {
            try validateMIMEType(mimeType)
            records.append(NDEFPayload(format: .nfcWellKnown, type: "t", payload: Bytes(utf8: mimeType)))
        }
        for icon in poster.icons {
            let lower = icon.mimeType.lowercased()
            guard lower.hasPrefix("image/") || lower.hasPrefix("video/") else {
                throw NDEFError(.invalidMIMEType, "a Smart Poster icon must be image/… or video/…, not \(icon.mimeType)")
            }
            records.append(try mimeTypePayload(type: icon.mimeType, data: icon.data))
        }
        records.append(contentsOf: poster.otherRecords)
        let inner = try NDEFMessage(records: records).encoded()
        return NDEFPayload(format: .nfcWellKnown, type: smartPosterType, payload: Bytes(inner))
    }

    /// Decodes this record's payload as a Smart Poster.
    func decodeSmartPosterPayload() throws(NDEFError) -> NDEFSmartPoster {
        let inner: NDEFMessage
        do {
            inner = try NDEFMessage(bytes: payload)
        } catch {
            throw NDEFError(error.code, at: error.offset, "inside the Smart Poster: " + error.reason)
        }
        var uri: String? = nil
        var poster = NDEFSmartPoster(uri: "")
        for (index, record) in inner.records.enumerated() {
            let label = "Smart Poster record \(index + 1)"
            func fail(_ e: NDEFError) -> NDEFError { NDEFError(e.code, at: e.offset, "\(label): \(e.reason)") }
            if record.typeNameFormat == .nfcWellKnown {
                switch record.type {
                case wellKnownURIType:
                    guard uri == nil else {
                        throw NDEFError(.invalidPayload, "a Smart Poster holds exactly one URI record; found a second")
                    }
                    do { uri = try record.decodeURIPayload() } catch { throw fail(error) }
                    continue
                case wellKnownTextType:
                    do { poster.titles.append(try record.decodeTextPayload()) } catch { throw fail(error) }
                    continue
                case [0x61, 0x63, 0x74]:  // "act"
                    guard record.payload.count == 1 else {
                        throw NDEFError(.invalidPayload, "\(label): action record must hold 1 byte, not \(record.payload.count)")
                    }
                    poster.action = .init(rawValue: record.payload[0])
                    continue
                case [0x73]:  // "s"
                    guard record.payload.count == 4 else {
                        throw NDEFError(.invalidPayload, "\(label): size record must hold 4 bytes, not \(record.payload.count)")
                    }
                    var c = ByteCursor(record.payload)
                    poster.size = c.readUInt32BE()
                    continue
                case [0x74]:  // "t"
                    switch UnicodeValidation.decodeUTF8(record.payload) {
                    case .success(let t): poster.mimeType = t
                    case .failure(let e): throw NDEFError(.invalidUTF8, at: e.offset, "\(label): type record is not UTF-8")
                    }
                    continue
                default: break
                }
            }
            if record.typeNameFormat == .media, let t = record.typeString,
               t.lowercased().hasPrefix("image/") || t.lowercased().hasPrefix("video/") {
                poster.icons.append(.init(mimeType: t, data: record.payload))
                continue
            }
            poster.otherRecords.append(record)
        }
        guard let uri else {
            throw NDEFError(.invalidPayload, "a Smart Poster must hold a URI record; none found")
        }
        poster.uri = uri
        return poster
    }
}

/// `Sp`: the Smart Poster record type.
let smartPosterType: Bytes = [0x53, 0x70]
