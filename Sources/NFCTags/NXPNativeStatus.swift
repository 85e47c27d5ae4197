import NFCCore

/// A native status code of NXP's ISO-DEP chips, the SW2 after `91`: MIFARE DESFire (EV1 command
/// set as libfreefare, nfcpy and Proxmark3 give it) and NTAG 424 DNA (datasheet 10.4, "Status
/// and error codes") share one set. An open set: a code no list names is kept as it came.
/// ``DESFire/Status`` and ``NTAG424Status`` are this type.
public struct NXPNativeStatus: RawRepresentable, Error, Sendable, Hashable, CustomStringConvertible {
    /// The code.
    public var rawValue: UInt8
    /// Wraps a code.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `00` OPERATION_OK.
    public static let ok = NXPNativeStatus(rawValue: NXPNativeCommand.operationOK)
    /// `0C` NO_CHANGES (DESFire).
    public static let noChanges = NXPNativeStatus(rawValue: 0x0C)
    /// `0E` OUT_OF_EEPROM_ERROR.
    public static let outOfEEPROM = NXPNativeStatus(rawValue: 0x0E)
    /// `1C` ILLEGAL_COMMAND_CODE: no such command.
    public static let illegalCommand = NXPNativeStatus(rawValue: NXPNativeCommand.illegalCommand)
    /// `1E` INTEGRITY_ERROR: a wrong MAC or padding in secure messaging.
    public static let integrityError = NXPNativeStatus(rawValue: 0x1E)
    /// `40` NO_SUCH_KEY.
    public static let noSuchKey = NXPNativeStatus(rawValue: 0x40)
    /// `7E` LENGTH_ERROR: the command's length is wrong.
    public static let lengthError = NXPNativeStatus(rawValue: NXPNativeCommand.lengthError)
    /// `9D` PERMISSION_DENIED: the access rights do not allow the command.
    public static let permissionDenied = NXPNativeStatus(rawValue: 0x9D)
    /// `9E` PARAMETER_ERROR: a parameter value is not allowed.
    public static let parameterError = NXPNativeStatus(rawValue: 0x9E)
    /// `A0` APPLICATION_NOT_FOUND (DESFire).
    public static let applicationNotFound = NXPNativeStatus(rawValue: 0xA0)
    /// `AD` AUTHENTICATION_DELAY: too many failed authentications, wait.
    public static let authenticationDelay = NXPNativeStatus(rawValue: 0xAD)
    /// `AE` AUTHENTICATION_ERROR: wrong key, or a command needing authentication without it.
    public static let authenticationError = NXPNativeStatus(rawValue: 0xAE)
    /// `AF` ADDITIONAL_FRAME: more frames follow.
    public static let additionalFrame = NXPNativeStatus(rawValue: 0xAF)
    /// `BE` BOUNDARY_ERROR: reading or writing past the end of a file.
    public static let boundaryError = NXPNativeStatus(rawValue: 0xBE)
    /// `CA` COMMAND_ABORTED: a multi-frame exchange was interrupted.
    public static let commandAborted = NXPNativeStatus(rawValue: 0xCA)
    /// `CE` COUNT_ERROR: the application or file count is at its limit (DESFire).
    public static let countError = NXPNativeStatus(rawValue: 0xCE)
    /// `DE` DUPLICATE_ERROR: the application or file exists (DESFire).
    public static let duplicateError = NXPNativeStatus(rawValue: 0xDE)
    /// `EE` MEMORY_ERROR.
    public static let memoryError = NXPNativeStatus(rawValue: 0xEE)
    /// `F0` FILE_NOT_FOUND.
    public static let fileNotFound = NXPNativeStatus(rawValue: 0xF0)

    /// The datasheet's name of the code, or nil for one it does not list.
    public var name: String? {
        [
            0x00: "OPERATION_OK", 0x0C: "NO_CHANGES", 0x0E: "OUT_OF_EEPROM_ERROR", 0xA0: "APPLICATION_NOT_FOUND",
            0xCE: "COUNT_ERROR", 0xDE: "DUPLICATE_ERROR", 0x1C: "ILLEGAL_COMMAND_CODE", 0x1E: "INTEGRITY_ERROR",
            0x40: "NO_SUCH_KEY", 0x7E: "LENGTH_ERROR", 0x9D: "PERMISSION_DENIED", 0x9E: "PARAMETER_ERROR",
            0xAD: "AUTHENTICATION_DELAY", 0xAE: "AUTHENTICATION_ERROR", 0xAF: "ADDITIONAL_FRAME", 0xBE: "BOUNDARY_ERROR",
            0xCA: "COMMAND_ABORTED", 0xEE: "MEMORY_ERROR", 0xF0: "FILE_NOT_FOUND",
        ][rawValue]
    }

    /// `91 AE (AUTHENTICATION_ERROR)`.
    public var description: String {
        let word = "91 " + Hex.encode([rawValue], uppercase: true)
        return name.map { "\(word) (\($0))" } ?? word
    }
}
