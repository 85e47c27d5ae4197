public import NFCCore
public import Testing

/// The bytes of a hex literal written for reading (`hex("04 A1 B2")`, `hex("04a1b2")`): what a
/// test writes for commands, answers and tag images. The separators NFCCore's ``Hex/decode(_:)``
/// accepts (spaces, newlines, `:`, `-`, `_`) may split bytes.
///
/// A malformed literal (a non-hex character, an odd digit) is a bug in the test: it is recorded
/// as a test issue at the caller, with the offset at fault, and the result is empty. It never
/// passes silently as "no bytes".
public func hex(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> [UInt8] {
    do {
        return try Hex.decode(text)
    } catch {
        Issue.record("hex literal \"\(text)\": \(error)", sourceLocation: sourceLocation)
        return []
    }
}

/// ``hex(_:sourceLocation:)`` as ``Bytes``.
public func hexBytes(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> Bytes {
    Bytes(hex(text, sourceLocation: sourceLocation))
}

/// `bytes` as uppercase hex pairs separated by spaces (`04 A1 B2`), the form failure messages and
/// traces use.
public func hexString<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
    Hex.encode(bytes, uppercase: true, separator: " ")
}
