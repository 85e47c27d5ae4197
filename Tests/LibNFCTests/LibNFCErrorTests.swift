import Testing
@testable import LibNFC

/// One of libnfc 1.8.0's error numbers as `nfc.h` defines it.
struct LibNFCErrorNumber: Sendable, CustomTestStringConvertible {
    let cName: String
    let value: Int32
    let code: LibNFCError.Code

    var testDescription: String { "\(cName) (\(value))" }
}

/// Copied from libnfc 1.8.0's `include/nfc/nfc.h`, "Error codes".
let libnfcErrorNumbers: [LibNFCErrorNumber] = [
    .init(cName: "NFC_EIO", value: -1, code: .inputOutput),
    .init(cName: "NFC_EINVARG", value: -2, code: .invalidArgument),
    .init(cName: "NFC_EDEVNOTSUPP", value: -3, code: .notSupportedByDevice),
    .init(cName: "NFC_ENOTSUCHDEV", value: -4, code: .noSuchDevice),
    .init(cName: "NFC_EOVFLOW", value: -5, code: .bufferOverflow),
    .init(cName: "NFC_ETIMEOUT", value: -6, code: .timeout),
    .init(cName: "NFC_EOPABORTED", value: -7, code: .operationAborted),
    .init(cName: "NFC_ENOTIMPL", value: -8, code: .notImplemented),
    .init(cName: "NFC_ETGRELEASED", value: -10, code: .targetReleased),
    .init(cName: "NFC_ERFTRANS", value: -20, code: .radioFrequencyTransmission),
    .init(cName: "NFC_EMFCAUTHFAIL", value: -30, code: .mifareClassicAuthenticationFailed),
    .init(cName: "NFC_ESOFT", value: -80, code: .software),
    .init(cName: "NFC_ECHIP", value: -90, code: .chip),
]

@Suite("libnfc error numbers become LibNFCError codes", .timeLimit(.minutes(5)))
struct LibNFCErrorTests {
    @Test("each libnfc error number maps to its code, which names the C error", arguments: libnfcErrorNumbers)
    func errorNumberMapsToCode(_ number: LibNFCErrorNumber) {
        #expect(LibNFCError.Code(libnfcReturnValue: number.value) == number.code)
        #expect(number.code.cName == number.cName)
    }

    @Test("every code but unrecognized comes from exactly one libnfc error number")
    func tableCoversEveryCode() {
        let mapped = libnfcErrorNumbers.map(\.code)
        #expect(Set(mapped).count == mapped.count)
        #expect(Set(mapped) == Set(LibNFCError.Code.allCases).subtracting([.unrecognized]))
    }

    @Test("numbers libnfc does not define are unrecognized", arguments: [Int32(-9), -11, -21, -99, -100, Int32.min])
    func undefinedNumberIsUnrecognized(_ value: Int32) {
        #expect(LibNFCError.Code(libnfcReturnValue: value) == .unrecognized)
    }

    @Test("the description names the C error, or the code when there is none")
    func descriptionNamesTheCError() {
        #expect(LibNFCError(.timeout, "no answer from the tag").description == "no answer from the tag [NFC_ETIMEOUT]")
        #expect(LibNFCError.Code.unrecognized.cName == nil)
        #expect(LibNFCError(.unrecognized, "driver error -42").description == "driver error -42 [unrecognized]")
    }
}
