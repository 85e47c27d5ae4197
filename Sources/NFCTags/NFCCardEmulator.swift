public import NFCCore

/// How an emulated card announces itself to an external reader (ISO/IEC 14443-3 type A
/// anticollision, ISO/IEC 14443-4 activation).
public struct EmulatedCardIdentity: Sendable, Hashable {
    /// The UID: 4 bytes. PN53x chips send `08` (a random UID, ISO/IEC 14443-3 §6.5.4) as the
    /// first byte whatever is asked, so it must be `08`.
    public var uid: Bytes
    /// ATQA (SENS_RES), 2 bytes in over-the-air order.
    public var atqa: Bytes
    /// SAK (SEL_RES); bit 6 (`20`) announces ISO/IEC 14443-4.
    public var sak: UInt8

    /// An identity from its parts.
    public init(uid: Bytes, atqa: Bytes, sak: UInt8) {
        self.uid = uid
        self.atqa = atqa
        self.sak = sak
    }

    /// An NFC Forum Type 4 tag: UID `08 00 B0 0B`, ATQA `04 00`, SAK `20` (ISO/IEC 14443-4).
    public static let type4Tag = EmulatedCardIdentity(uid: Bytes([0x08, 0x00, 0xB0, 0x0B]), atqa: Bytes([0x04, 0x00]), sak: 0x20)
}

/// A reader that can act as a card (target mode): an external reader (a phone, a door reader)
/// selects it and exchanges APDUs with it. Only PN53x readers driven through libnfc have
/// target mode; NFCKit's `ReaderConnection.openCardEmulator` refuses the others with
/// ``NFCReaderDeviceError/Code/notSupported``.
public protocol NFCCardEmulator: Actor {
    /// The connection string the reader was opened with.
    var connectionString: String { get }

    /// Puts the reader in target mode as `identity` and waits at most `timeout` for an external
    /// reader to activate it (ISO/IEC 14443-4: the chip answers RATS itself).
    /// - Returns: false when no reader came in time.
    /// - Throws: ``NFCReaderDeviceError`` `notSupported` when the reader has no target mode,
    ///   `closed`, or the reader's failure.
    func waitForExternalReader(as identity: EmulatedCardIdentity, timeout: Duration) async throws(NFCReaderDeviceError) -> Bool

    /// The external reader's next command APDU.
    /// - Throws: ``NFCReaderDeviceError`` `tagLost` when the reader released the card or left the
    ///   field, `timeout` when it sent nothing within `timeout`.
    func receiveCommand(timeout: Duration) async throws(NFCReaderDeviceError) -> Bytes

    /// Answers the external reader's last command.
    /// - Throws: ``NFCReaderDeviceError`` `tagLost` when the reader is gone.
    func sendResponse(_ response: Bytes, timeout: Duration) async throws(NFCReaderDeviceError)

    /// Leaves target mode (the chip stops answering external readers).
    func endEmulation() async

    /// Closes the reader.
    func close() async
    /// Whether the chip can act as an ISO 14443-A card at all (what CoreNFC's
    /// `CardSession.isSupported` asks).
    var supportsTargetMode: Bool { get async }
}

extension NFCCardEmulator {
    /// An emulator that does not say has target mode.
    public var supportsTargetMode: Bool { true }
}
