public import Foundation
public import NDEF

// CoreNFC's record decoders, returning Foundation's types; NDEF's own versions (a `String` URI, the
// language as its tag) stay for Foundation-free code and where the type asks for them.

extension NDEFPayload {
    /// CoreNFC's `wellKnownTypeURIPayload() -> URL?`: NDEF's ``NDEF/NDEFPayload/wellKnownTypeURIPayload()``
    /// (the URI with its identifier code expanded, RTD-URI 1.0) as a `URL`; `nil` when this is no
    /// URI record or the URI is no valid `URL`.
    public func wellKnownTypeURIPayload() -> URL? {
        let uri: String? = wellKnownTypeURIPayload()
        return uri.flatMap { URL(string: $0) }
    }

    /// CoreNFC's `wellKnownTypeTextPayload() -> (String?, Locale?)`: NDEF's
    /// ``NDEF/NDEFPayload/wellKnownTypeTextPayload()`` (RTD-Text 1.0, UTF-8 or UTF-16) with the
    /// language tag as a `Locale`; `(nil, nil)` when this is no Text record.
    public func wellKnownTypeTextPayload() -> (String?, Locale?) {
        let (text, language): (String?, String?) = wellKnownTypeTextPayload()
        return (text, language.map { Locale(identifier: $0) })
    }
}
