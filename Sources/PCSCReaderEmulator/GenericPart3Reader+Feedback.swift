import NFCTags

extension GenericPart3Reader {
    /// How the emulated reader answers the LED and buzzer command (the emulator's
    /// `--feedback-answer`), to test what a client does with each.
    public enum FeedbackAnswer: String, Sendable, CaseIterable {
        /// `90 xx`, the LED state after the command (ACR122U API): the command is carried out.
        case success
        /// `63 00`, "the operation failed" (ACR122U API): nothing is carried out.
        case fail
        /// `01 90 00`, an answer no manual gives (a byte of data before the status word).
        case malformed
    }

    /// Bi-color LED and Buzzer Control (`FF 00 40 P2 04 T1 T2 REP LINK`): `63 00` for a
    /// malformed command, else as ``feedbackAnswer`` says; carried out, it is handed to
    /// ``onFeedback`` and the LEDs' final states follow the masks of P2.
    func ledBuzzerControl(_ apdu: [UInt8]) -> [UInt8] {
        guard let command = ACR122ULEDBuzzerControl(apdu: apdu) else { return Self.sw(PCSCPart3.StatusWord.noInformation) }
        switch feedbackAnswer {
        case .fail: return Self.sw(PCSCPart3.StatusWord.noInformation)
        case .malformed: return [0x01] + Self.sw(PCSCPart3.StatusWord.success)
        case .success: break
        }
        typealias Bit = ACR122ULEDBuzzerControl.Bit
        let p2 = command.ledStateControl
        // Bit 0 of the state is red, bit 1 green, as P2's final-state bits.
        if p2 & Bit.redStateMask != 0 { ledState = (ledState & ~Bit.finalRed) | (p2 & Bit.finalRed) }
        if p2 & Bit.greenStateMask != 0 { ledState = (ledState & ~Bit.finalGreen) | (p2 & Bit.finalGreen) }
        onFeedback?(command)
        return [PCSCPart3.ACR122U.ledBuzzerSuccess, ledState]
    }
}
