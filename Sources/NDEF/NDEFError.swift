/// Why an NDEF message or record could not be decoded, encoded or built.
///
/// ``code`` is stable: match on it. ``offset`` is the byte offset at fault, counted from the
/// start of the bytes handed to the decoder (for a record's payload, from the start of that
/// payload), when there is one. ``reason`` is for people.
public struct NDEFError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a stable name users can match on.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// No bytes at all where a message was expected.
        case emptyInput
        /// The record header (flags, type length, payload length, ID length) is cut short.
        case truncatedHeader
        /// A type, ID or payload length runs past the end of the bytes.
        case lengthPastEnd
        /// The first record does not have the MB (message begin) flag.
        case missingMessageBegin
        /// A record after the first has the MB flag.
        case messageBeginTwice
        /// The bytes end before a record with the ME (message end) flag.
        case missingMessageEnd
        /// Bytes follow the record with the ME flag.
        case trailingBytes
        /// TNF 0x07 is reserved by NDEF 1.0.
        case reservedTypeNameFormat
        /// A TNF-empty record with a type, ID or payload.
        case emptyRecordNotEmpty
        /// A TNF-unknown or TNF-unchanged record with a type.
        case unexpectedType
        /// A well-known, media, absolute-URI or external record without a type.
        case missingType
        /// TNF unchanged outside a chunked record.
        case unchangedOutsideChunk
        /// Chunks out of order: a middle chunk without TNF unchanged, an ID after the first
        /// chunk, ME inside a chunked record, or a chunked record never terminated.
        case badChunkSequence
        /// Text that is not valid UTF-8.
        case invalidUTF8
        /// Text that is not valid UTF-16.
        case invalidUTF16
        /// A record's payload does not follow its record type definition.
        case invalidPayload
        /// A Text record language tag longer than 63 bytes, empty where required, or not ASCII.
        case invalidLanguageTag
        /// A URI that is empty or contains characters a URI cannot hold.
        case invalidURI
        /// A URI record abbreviation code above 0x23 (reserved).
        case reservedURIPrefix
        /// A MIME media type that is not `type/subtype` with valid characters.
        case invalidMIMEType
        /// An NFC Forum external type that is not `domain:type`.
        case invalidExternalType
        /// A type or ID longer than 255 bytes, or a payload over 2^32 - 1 bytes.
        case fieldTooLong
        /// A value outside what the record type allows (e.g. an unknown Wi-Fi authentication).
        case invalidValue
    }

    /// The stable error code.
    public var code: Code
    /// The byte offset at fault, if the error is about specific bytes.
    public var offset: Int?
    /// A human explanation of what was expected and what was found.
    public var reason: String

    /// Creates an error.
    public init(_ code: Code, at offset: Int? = nil, _ reason: String) {
        self.code = code
        self.offset = offset
        self.reason = reason
    }

    /// "at byte N: reason (code)" or "reason (code)".
    public var description: String {
        if let offset { return "at byte \(offset): \(reason) [\(code.rawValue)]" }
        return "\(reason) [\(code.rawValue)]"
    }

    /// The same error with its offset moved by `delta` (for errors found inside a payload).
    public func shifted(by delta: Int) -> NDEFError {
        var copy = self
        if let offset { copy.offset = offset + delta }
        return copy
    }
}
