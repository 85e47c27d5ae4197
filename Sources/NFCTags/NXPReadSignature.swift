public import NFCCore

/// NXP's native Read_Sig in ISO/IEC 7816-4 framing, as NTAG 424 DNA and MIFARE DESFire EV2/EV3
/// answer it (NTAG 424 DNA datasheet, "Read_Sig"; AN12196, "Originality check"): `90 3C 00 00 01
/// 00 00` (class 90h wraps a native command, data = the address 00h), answered by the 56-byte
/// ECC signature and `91 00` (or `91 90`).
public enum NXPNativeCommand {
    /// The class byte that wraps a native command in an APDU, `90`.
    public static let wrappedClass: UInt8 = 0x90
    /// Read_Sig, `3C`.
    public static let readSignature: UInt8 = 0x3C
    /// The signature's address, `00`.
    public static let signatureAddress: UInt8 = 0x00
    /// SW1 of a wrapped native answer, `91`; SW2 is the native status.
    public static let statusPrefix: UInt8 = 0x91
    /// Native status OPERATION_OK, `00`.
    public static let operationOK: UInt8 = 0x00
    /// Native status `90`, which the NTAG 424 DNA datasheet lists for Read_Sig's plain answer.
    public static let readSignatureOK: UInt8 = 0x90
    /// Native status ILLEGAL_COMMAND_CODE, `1C`: the chip has no such command.
    public static let illegalCommand: UInt8 = 0x1C
    /// Native status LENGTH_ERROR, `7E`: the command's parameters have the wrong length.
    public static let lengthError: UInt8 = 0x7E
    /// The signature's length: `r ‖ s` on secp224r1, 56 bytes.
    public static let signatureLength = 56

    /// The Read_Sig command APDU.
    public static var readSignatureAPDU: ISO7816APDU {
        ISO7816APDU(unchecked: wrappedClass, readSignature, 0x00, 0x00, data: [signatureAddress], expectedResponseLength: 256)
    }

    /// The signature in a Read_Sig answer.
    /// - Throws: ``NFCTagError`` `notSupported` for ILLEGAL_COMMAND_CODE or a class the chip
    ///   refuses; `tagResponse` for another status or a length other than 56.
    static func signature(from answer: (Bytes, UInt8, UInt8)) throws(NFCTagError) -> Bytes {
        let (data, sw1, sw2) = answer
        if sw1 == statusPrefix, sw2 == illegalCommand || (sw1 == 0x6E && sw2 == 0x00) {
            throw NFCTagError(.notSupported, "the chip has no Read_Sig")
        }
        if sw1 == 0x6E || sw1 == 0x6D { throw NFCTagError(.notSupported, "the chip has no Read_Sig (\(Hex.encode([sw1, sw2], uppercase: true)))") }
        guard sw1 == statusPrefix, sw2 == operationOK || sw2 == readSignatureOK else {
            throw NFCTagError(.tagResponse, "Read_Sig answered status \(Hex.encode([sw1, sw2], uppercase: true))")
        }
        guard data.count == signatureLength else {
            throw NFCTagError(.tagResponse, "Read_Sig answered \(data.count) bytes, not \(signatureLength)")
        }
        return data
    }
}

extension ISO7816Tag {
    /// Read_Sig: the 56-byte originality signature of an NTAG 424 DNA or DESFire EV2/EV3.
    /// - Throws: ``NFCTagError`` `notSupported` when the chip has no Read_Sig; `tagResponse`,
    ///   `connectionLost`.
    public func readNXPSignature() async throws(NFCTagError) -> Bytes {
        try NXPNativeCommand.signature(from: try await sendCommand(apdu: NXPNativeCommand.readSignatureAPDU))
    }
}

extension MiFareTag {
    /// Read_Sig on a DESFire (or another ISO-DEP MIFARE chip): as ``ISO7816Tag/readNXPSignature()``.
    public func readNXPSignature() async throws(NFCTagError) -> Bytes {
        try NXPNativeCommand.signature(from: try await sendMiFareISO7816Command(NXPNativeCommand.readSignatureAPDU))
    }
}
