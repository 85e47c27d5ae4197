public import NFCCore

extension MiFareTag {
    /// Sends an ISO 7816 APDU to an ISO-DEP MIFARE tag (DESFire, Plus in SL3), as CoreNFC's
    /// `sendMiFareISO7816Command(_:)`: same response chaining (`61 xx`, `6C xx`) and payment
    /// policy as ``ISO7816Tag/sendCommand(apdu:)``.
    /// - Parameter allowsPaymentApplications: lets the APDU SELECT a payment application.
    /// - Throws: ``NFCTagError`` `notSupported` when the tag does not speak ISO-DEP (SAK bit 6
    ///   clear: Ultralight, NTAG, Classic; a Type 1 tag), `refused` for a payment SELECT without opting in —
    ///   both before anything is sent; `connectionLost`, `tagResponse`.
    public func sendMiFareISO7816Command(
        _ apdu: ISO7816APDU, allowsPaymentApplications: Bool = false
    ) async throws(NFCTagError) -> (Bytes, UInt8, UInt8) {
        if type1 != nil { throw NFCTagError(.notSupported, "\(identity.model) is an NFC Forum Type 1 tag, without ISO-DEP: no APDUs") }
        guard target.supportsISODEP else {
            throw NFCTagError(.notSupported, "\(identity.model) does not speak ISO-DEP (SAK \(hexByte(target.sak))): no APDUs")
        }
        if !allowsPaymentApplications, let name = PaymentApplications.refusedName(in: apdu) {
            throw NFCTagError(
                .refused, "SELECT of payment application \(name) refused: pass allowsPaymentApplications to talk to payment cards")
        }
        let response = try await ISO7816Exchange.send(apdu, reader: reader, timeout: commandTimeout)
        return (response.data, response.sw1, response.sw2)
    }
}
