public import NFCCore
import NFCTags

/// The card side of an NFC Forum Type 4 tag (T4T 2.0): the NDEF Tag Application with its
/// capability container (E103) and NDEF file (E104), answering the APDUs of an external reader
/// one by one. A value: feed it each command with ``respond(to:)``, read ``message`` when the
/// reader has left.
///
/// ```swift
/// var tag = try EmulatedType4Tag(message: Bytes(try message.encoded()), readOnly: false)
/// let answer = tag.respond(to: apdu)   // R-APDU: data then SW1 SW2
/// ```
public struct EmulatedType4Tag: Sendable, Hashable {
    /// The size of the NDEF file by default: NLEN and 2046 bytes of message.
    public static let defaultFileSize = 2048
    /// MLe and MLc: the most data one READ BINARY answers and one UPDATE BINARY carries. 128
    /// keeps each APDU inside one PN532 frame.
    public static let maximumDataLength = 128

    /// Why a tag cannot be made.
    public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The reason, one line.
        public var description: String
    }

    /// The NDEF Tag Application answering the commands, lenient (NFCTags'
    /// `Type4NDEFApplication.Conduct.lenient`).
    private var application: Type4NDEFApplication
    /// Whether an UPDATE BINARY changed the NDEF file.
    public private(set) var wasUpdated = false
    /// Whether a READ BINARY of the NDEF file reached the last byte of the message (the reader
    /// read it to its end; an empty message counts once NLEN was read).
    public private(set) var messageWasRead = false

    /// A tag holding `message` in an NDEF file of `fileSize` bytes (NLEN included).
    /// - Throws: ``ConfigurationError`` when the message does not fit or the size is outside
    ///   5…32767 (T4T 2.0 §5.1.2: the maximum NDEF file size).
    public init(message: Bytes, readOnly: Bool = false, fileSize: Int = EmulatedType4Tag.defaultFileSize) throws(ConfigurationError) {
        guard Type4NDEFApplication.ndefFileSizes.contains(fileSize) else {
            throw ConfigurationError(description: "an NDEF file holds 5 to 32767 bytes, not \(fileSize)")
        }
        guard message.count + 2 <= fileSize else {
            throw ConfigurationError(description: "a \(message.count)-byte message does not fit a \(fileSize)-byte NDEF file")
        }
        let file = [UInt8(message.count >> 8), UInt8(message.count & 0xFF)] + message.array
            + [UInt8](repeating: 0, count: fileSize - 2 - message.count)
        application = Type4NDEFApplication(
            ndefFile: file, readOnly: readOnly, maximumReadLength: Self.maximumDataLength,
            maximumUpdateLength: Self.maximumDataLength, conduct: .lenient)
    }

    /// The NDEF file: NLEN (2 bytes, big endian) then the message, padded with zeros.
    public var ndefFile: [UInt8] { application.ndefFile }
    /// Whether UPDATE BINARY is refused (write access condition `FF`).
    public var isReadOnly: Bool { application.isReadOnly }

    /// The capability container (T4T 2.0 §5.1): CCLEN 000F, mapping version 2.0, MLe, MLc,
    /// then the NDEF File Control TLV `04 06`: file ID, maximum size, read access `00`, write
    /// access `00` or `FF` (read-only).
    public var capabilityContainer: [UInt8] { application.capabilityContainer }

    /// The NDEF message the file holds now (NLEN bytes after NLEN); nil when NLEN is larger
    /// than the file (a reader left it inconsistent).
    public var message: Bytes? { application.message.map { Bytes($0) } }

    /// Answers one command APDU: response data then SW1 SW2.
    ///
    /// SELECT by name of the NDEF application, SELECT by file ID (P2 `0C` or `00`) of E103 and
    /// E104 once the application is selected, READ BINARY of the selected file, UPDATE BINARY
    /// of the NDEF file. Errors: `6E00` class, `6D00` instruction, `6700` length, `6A82` file
    /// or application not found, `6986` no file selected, `6B00` offset outside the file,
    /// `6982` update refused (read-only, or the capability container).
    public mutating func respond(to command: Bytes) -> Bytes {
        guard let apdu = try? ISO7816APDU(bytes: command) else { return Bytes(Type4NDEFApplication.answer(.wrongLength)) }
        guard apdu.instructionClass == 0x00 else { return Bytes(Type4NDEFApplication.answer(.classNotSupported)) }
        let instruction = apdu.instructionCode
        // READ BINARY carries no data, UPDATE BINARY no Le: either is a wrong length.
        let answer = application.respond(
            instruction: instruction, p1: apdu.p1Parameter, p2: apdu.p2Parameter,
            data: instruction == Type4Command.updateBinary && apdu.expectedResponseLength != nil ? nil : apdu.data.array,
            expectedLength: apdu.data.isEmpty ? apdu.expectedResponseLength : nil)
        if Array(answer.suffix(2)) == Type4NDEFApplication.answer(.success) {
            let offset = Int(apdu.p1Parameter) << 8 | Int(apdu.p2Parameter)
            if instruction == Type4Command.updateBinary { wasUpdated = true }
            if instruction == Type4Command.readBinary, application.selectedFile == Type4NDEFApplication.ndefFileID,
                offset + answer.count - 2 >= 2 + application.messageLength {
                messageWasRead = true
            }
        }
        return Bytes(answer)
    }
}
