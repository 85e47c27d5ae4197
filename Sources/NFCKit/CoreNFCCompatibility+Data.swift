public import Foundation
public import NDEF
public import NFCCore
public import NFCTags

// CoreNFC's `Data` spellings over NFCKit's `Bytes` API: each converts and calls the one `Bytes`
// implementation (docs/porting-from-corenfc.md, "What changes everywhere").

extension String {
    /// Foundation's `String(data:encoding:)` for NFCKit's `Bytes`, so that CoreNFC code's
    /// `String(data: record.payload, encoding: .utf8)` compiles where `payload` is `Bytes`.
    public init?(data: Bytes, encoding: String.Encoding) {
        self.init(data: Data(data.array), encoding: encoding)
    }
}

extension NDEFPayload {
    /// CoreNFC's `NFCNDEFPayload(format:type:identifier:payload:)` taking `Data`:
    /// ``NDEF/NDEFPayload/init(format:type:identifier:payload:)`` with the bytes.
    public init(format: NDEFTypeNameFormat, type: Data, identifier: Data, payload: Data) {
        self.init(format: format, type: Bytes(type), identifier: Bytes(identifier), payload: Bytes(payload))
    }

    /// CoreNFC's `NFCNDEFPayload(format:type:identifier:payload:chunkSize:)`: the chunk size is a
    /// hint for encoding in CoreNFC and ignored here (NFCKit encodes unchunked).
    public init(format: NDEFTypeNameFormat, type: Data, identifier: Data, payload: Data, chunkSize: Int) {
        self.init(format: format, type: type, identifier: identifier, payload: payload)
    }

    /// CoreNFC's `wellKnownTypeURIPayload(string:)`: a well-known URI record for `string`, `nil`
    /// when it cannot be stored; ``NDEF/NDEFPayload/wellKnownTypeURIPayload(url:)`` without the error.
    public static func wellKnownTypeURIPayload(string: String) -> NDEFPayload? {
        try? wellKnownTypeURIPayload(url: string)
    }
}

extension NDEFMessage {
    /// CoreNFC's `NFCNDEFMessage(data:)`: the message `data` encodes, `nil` when it is not a valid
    /// NDEF message; ``NDEF/NDEFMessage/init(bytes:)-(Bytes)`` without the error.
    public init?(data: Data) {
        guard let message = try? NDEFMessage(bytes: Bytes(data)) else { return nil }
        self = message
    }

    /// CoreNFC's `NFCNDEFMessage.length`: the length of the encoded message in bytes (0 when it
    /// cannot be encoded).
    public var length: Int { (try? encoded().count) ?? 0 }
}

extension ISO7816APDU {
    /// CoreNFC's `NFCISO7816APDU(instructionClass:instructionCode:p1Parameter:p2Parameter:data:expectedResponseLength:)`
    /// taking `Data`, which does not throw: `nil` where NFCKit's throwing initializer refuses the
    /// values (data over 65 535 bytes, Le outside 1…65 536 and not -1).
    public init?(
        instructionClass: UInt8, instructionCode: UInt8, p1Parameter: UInt8, p2Parameter: UInt8, data: Data,
        expectedResponseLength: Int
    ) {
        guard let apdu = try? ISO7816APDU(
            instructionClass: instructionClass, instructionCode: instructionCode, p1Parameter: p1Parameter,
            p2Parameter: p2Parameter, data: Bytes(data), expectedResponseLength: expectedResponseLength)
        else { return nil }
        self = apdu
    }
}
