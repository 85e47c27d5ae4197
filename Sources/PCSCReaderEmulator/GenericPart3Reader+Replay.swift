public import NFCTags
public import VirtualTags

extension GenericPart3Reader {
    /// The response to `apdu` when the card plays a reader trace (`pcsc-reader-emulator --replay`):
    /// the reader builds it as for any card (the ATR and GET DATA from the trace's target, READ
    /// BINARY and UPDATE BINARY as the tag's READ and WRITE, APDUs passed through), and the
    /// trace's tag answers the frames. Then:
    ///
    /// - once the trace and the client have parted ways, every APDU, GET DATA included, is
    ///   answered `6F 00` (no precise diagnosis): the client fails at the command that differs
    ///   and at every later one, never with a made-up success;
    /// - a READ BINARY or UPDATE BINARY whose frame's recorded result is an error gets the
    ///   status word the recording PC/SC reader turned into that error
    ///   (``statusWord(replaying:)``), so the client meets the error it met when recording. (A
    ///   transparent session, a direct transmit and an ISO-DEP APDU answer a recorded error as
    ///   for a tag that is silent or answers `6F 00`.)
    public func replayed(_ apdu: [UInt8], by player: TracePlayerTag) -> [UInt8] {
        let played = player.framesPlayed
        let response = cardResponse(to: apdu)
        if player.player.divergence != nil { return Self.sw(PCSCPart3.StatusWord.noPreciseDiagnosis) }
        let storage = apdu.count >= 2 && apdu[0] == PCSCPart3.pseudoClass && [PCSCPart3.readBinary, PCSCPart3.updateBinary].contains(apdu[1])
        if storage, player.framesPlayed != played, case .failed(let error)? = player.lastAnswer {
            return Self.sw(Self.statusWord(replaying: error))
        }
        return response
    }

    /// The status word NFCKit's PC/SC reader (`PCSCReader.statusError`) turns into an error of
    /// this code: a NAK from `6A 82`, `notSupported` from `6A 81`, a timeout from `63 00`; any
    /// other recorded error (a card lost, an RF error: the transport's, not a status word's) as
    /// `6F 00`, which that reader reports as a chip error.
    public static func statusWord(replaying error: NFCReaderDeviceError) -> UInt16 {
        switch error.code {
        case .nak: PCSCPart3.StatusWord.addressOutOfRange
        case .notSupported: PCSCPart3.StatusWord.functionNotSupported
        case .timeout: PCSCPart3.StatusWord.noInformation
        default: PCSCPart3.StatusWord.noPreciseDiagnosis
        }
    }
}
