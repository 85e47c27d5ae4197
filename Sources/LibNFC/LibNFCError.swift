/// Why a libnfc operation failed.
///
/// ``code`` is stable: match on it. Each code but ``Code/unrecognized`` is one of libnfc 1.8.0's
/// error numbers (`nfc.h`), named in the code's documentation. ``reason`` is for people.
public struct LibNFCError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a stable name users can match on.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// Input/output error: the device may not be usable any more without reopening it.
        ///
        /// The corresponding C error is `NFC_EIO`.
        case inputOutput
        /// Invalid argument(s).
        ///
        /// The corresponding C error is `NFC_EINVARG`.
        case invalidArgument
        /// Operation not supported by the device.
        ///
        /// The corresponding C error is `NFC_EDEVNOTSUPP`.
        case notSupportedByDevice
        /// No such device.
        ///
        /// The corresponding C error is `NFC_ENOTSUCHDEV`.
        case noSuchDevice
        /// Buffer overflow: the answer did not fit in the buffer given.
        ///
        /// The corresponding C error is `NFC_EOVFLOW`.
        case bufferOverflow
        /// Operation timed out.
        ///
        /// The corresponding C error is `NFC_ETIMEOUT`.
        case timeout
        /// Operation aborted (by the user, through `nfc_abort_command`).
        ///
        /// The corresponding C error is `NFC_EOPABORTED`.
        case operationAborted
        /// Not (yet) implemented by libnfc or its driver.
        ///
        /// The corresponding C error is `NFC_ENOTIMPL`.
        case notImplemented
        /// The target was released (it left the field or was deselected).
        ///
        /// The corresponding C error is `NFC_ETGRELEASED`.
        case targetReleased
        /// Error during RF transmission: no answer, a garbled answer, or a NACK.
        ///
        /// The corresponding C error is `NFC_ERFTRANS`.
        case radioFrequencyTransmission
        /// MIFARE Classic: authentication failed.
        ///
        /// The corresponding C error is `NFC_EMFCAUTHFAIL`.
        case mifareClassicAuthenticationFailed
        /// Software error in libnfc: allocation, file or pipe creation, and the like.
        ///
        /// The corresponding C error is `NFC_ESOFT`.
        case software
        /// The reader's chip reported an internal error.
        ///
        /// The corresponding C error is `NFC_ECHIP`.
        case chip
        /// A negative value libnfc 1.8.0 does not define (a driver's own number).
        ///
        /// There is no corresponding C error.
        case unrecognized

        /// The name of the corresponding C error, e.g. `NFC_ETIMEOUT`; `nil` for
        /// ``unrecognized``.
        public var cName: String? {
            switch self {
            case .inputOutput: "NFC_EIO"
            case .invalidArgument: "NFC_EINVARG"
            case .notSupportedByDevice: "NFC_EDEVNOTSUPP"
            case .noSuchDevice: "NFC_ENOTSUCHDEV"
            case .bufferOverflow: "NFC_EOVFLOW"
            case .timeout: "NFC_ETIMEOUT"
            case .operationAborted: "NFC_EOPABORTED"
            case .notImplemented: "NFC_ENOTIMPL"
            case .targetReleased: "NFC_ETGRELEASED"
            case .radioFrequencyTransmission: "NFC_ERFTRANS"
            case .mifareClassicAuthenticationFailed: "NFC_EMFCAUTHFAIL"
            case .software: "NFC_ESOFT"
            case .chip: "NFC_ECHIP"
            case .unrecognized: nil
            }
        }
    }

    /// The stable error code.
    public var code: Code
    /// A human explanation: what was being done and what libnfc answered.
    public var reason: String

    /// Creates an error.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    /// "reason [NFC_ETIMEOUT]", or "reason [unrecognized]".
    public var description: String {
        "\(reason) [\(code.cName ?? code.rawValue)]"
    }
}
