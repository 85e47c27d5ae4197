import NFCCore

/// Leaving an NXP ICODE chip's privacy mode when no poll can find the chip.
///
/// In privacy mode an ICODE SLIX2, SLIX-S or SLIX-L answers no INVENTORY, so no reader's poll
/// finds it and it has no UID to address; it still takes GET RANDOM NUMBER and SET PASSWORD
/// with the privacy password, sent unaddressed (SL2S2602 and SL2S5302, "Privacy mode"; the same
/// two frames as Proxmark3's privacy disable, and Flipper's SLIX listener takes them so). After
/// that the chip answers inventory again until the next ENABLE PRIVACY.
public enum ICodePrivacy {
    /// The unaddressed GET RANDOM NUMBER frame: flags `02` (high data rate), `B2`, NXP's `04`.
    public static var getRandomNumberFrame: [UInt8] {
        [ISO15693RequestFlag.dataRate, ICodeCommand.getRandomNumber, ISO15693Command.nxpManufacturerCode]
    }

    /// The unaddressed SET PASSWORD frame for the privacy password: flags `02`, `B3`, `04`, the
    /// identifier `04`, then `password` XOR `random` twice (``ICodePassword/xored(with:)``).
    public static func setPrivacyPasswordFrame(_ password: ICodePassword, random: [UInt8]) -> [UInt8] {
        [ISO15693RequestFlag.dataRate, ICodeCommand.setPassword, ISO15693Command.nxpManufacturerCode,
         ICodePasswordIdentifier.privacy.rawValue] + password.xored(with: random)
    }

    /// The steps ``leave(_:through:timeout:)`` sends, as `--plan` lists them (no password).
    public static let plannedSteps = [
        "GET RANDOM NUMBER (B2), unaddressed: the chip in privacy mode still answers it",
        "SET PASSWORD (B3) privacy (04), unaddressed: the privacy password XOR the random number twice",
    ]

    /// Leaves privacy mode: GET RANDOM NUMBER then SET PASSWORD (privacy) to the chip in the
    /// field through ``NFCReader/transceiveUnselected(_:timeout:)``.
    /// - Throws: ``NFCTagError`` `notSupported` (the reader cannot send to a chip its poll did
    ///   not find; nothing sent); `connectionLost` (no chip answered GET RANDOM NUMBER: no ICODE
    ///   chip in the field); `authenticationFailed` (the chip stayed silent after SET PASSWORD: a
    ///   wrong password, and it answers nothing until it leaves the field); `tagResponse` (an
    ///   error answer or a malformed one).
    public static func leave(_ password: ICodePassword, through reader: any NFCReader, timeout: Duration) async throws(NFCTagError) {
        let randomAnswer: [UInt8]
        do {
            randomAnswer = try await reader.transceiveUnselected(Bytes(getRandomNumberFrame), timeout: timeout).array
        } catch {
            switch error.code {
            case .notSupported: throw NFCTagError(.notSupported, error.reason, readerError: error)
            case .timeout, .tagLost:
                throw NFCTagError(.connectionLost, "no ICODE chip answered GET RANDOM NUMBER (unaddressed)", readerError: error)
            default: throw NFCTagError(error, during: "GET RANDOM NUMBER")
            }
        }
        guard randomAnswer.count == 3, randomAnswer[0] & ISO15693ResponseFlag.error == 0 else {
            throw NFCTagError(.tagResponse, "GET RANDOM NUMBER answered \(Hex.encode(randomAnswer)), not flags 00 and 2 bytes")
        }
        let random = Array(randomAnswer[1...])
        let answer: [UInt8]
        do {
            answer = try await reader.transceiveUnselected(Bytes(setPrivacyPasswordFrame(password, random: random)), timeout: timeout).array
        } catch where error.code == .timeout || error.code == .tagLost {
            throw NFCTagError(
                .authenticationFailed,
                "the chip did not take the privacy password (no answer to SET PASSWORD); it answers nothing more until it leaves the field",
                readerError: error)
        } catch {
            throw NFCTagError(error, during: "SET PASSWORD (privacy)")
        }
        guard answer.first.map({ $0 & ISO15693ResponseFlag.error == 0 }) == true else {
            throw NFCTagError(.authenticationFailed, "the chip refused the privacy password (answer \(Hex.encode(answer)))")
        }
    }
}
