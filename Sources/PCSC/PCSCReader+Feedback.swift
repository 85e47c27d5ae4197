public import NFCTags
import NFCCore

extension PCSCReader {
    /// The profile's feedback ("the bi-color LED and buzzer (FF 00 40)"), or nil when the
    /// reader's family has none NFCKit drives.
    public nonisolated var feedback: String? { profile.feedback?.rawValue }

    /// Sends the profile's feedback command for `outcome` through the selected card's
    /// connection (the ACR122U's `FF 00 40`: a short beep and green, a long beep and red).
    /// - Returns: false, sending nothing, when the profile has no feedback.
    /// - Throws: ``NFCReaderDeviceError`` `tagLost` when no card is connected (the pseudo-APDU
    ///   goes through the card's connection: a tag that has left gets no signal), `chip` when
    ///   the reader answers anything but `90 xx` (`63 00`: it failed), or pcsc-lite's error.
    public func signal(_ outcome: ReaderSignal) async throws(NFCReaderDeviceError) -> Bool {
        guard let feedback = profile.feedback else { return false }
        _ = try openContext()
        guard card != nil else {
            throw NFCReaderDeviceError(.tagLost, "no card is connected on \(name), and \(feedback.rawValue) goes through the card's connection")
        }
        let (data, sw) = try transmit(feedback.command(for: outcome))
        let response = data + [UInt8(sw >> 8), UInt8(sw & 0xFF)]
        guard feedback.accepts(response) else {
            throw NFCReaderDeviceError(.chip, "\(feedback.rawValue) on \(name): the reader answered \(Hex.encode(response)), not 90 xx")
        }
        return true
    }
}
