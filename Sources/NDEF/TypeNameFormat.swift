/// How a record's type field is to be read: the 3-bit TNF of NFC Forum NDEF 1.0, section 3.2.6.
public enum NDEFTypeNameFormat: UInt8, Sendable, Hashable, CaseIterable {
    /// 0x00: no type, no ID, no payload.
    case empty = 0x00
    /// 0x01: an NFC Forum well-known type (RTD), e.g. `U`, `T`, `Sp`.
    case nfcWellKnown = 0x01
    /// 0x02: a MIME media type (RFC 2046), e.g. `text/vcard`.
    case media = 0x02
    /// 0x03: an absolute URI (RFC 3986) names the type.
    case absoluteURI = 0x03
    /// 0x04: an NFC Forum external type, `domain:type`.
    case nfcExternal = 0x04
    /// 0x05: unknown payload type; the type field is empty.
    case unknown = 0x05
    /// 0x06: a middle or terminating chunk of a chunked record.
    case unchanged = 0x06

    /// The name used in JSON and on the command line.
    public var name: String {
        switch self {
        case .empty: "empty"
        case .nfcWellKnown: "well-known"
        case .media: "media"
        case .absoluteURI: "absolute-uri"
        case .nfcExternal: "external"
        case .unknown: "unknown"
        case .unchanged: "unchanged"
        }
    }

    /// Looks up a format by ``name``.
    public init?(name: String) {
        guard let match = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = match
    }
}
