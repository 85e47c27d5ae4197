import NFCTags

/// How a PN53x's firmware carries Type 1 commands given to InDataExchange, shared by the PN532
/// emulator and the virtual ACR122U (whose PN532 the direct transmit reaches).
///
/// The firmware carries RID, RALL, READ, WRITE-E and WRITE-NE, and RSEG of segment 0 (nfcpy's
/// `clf/pn532.py` sends those with InDataExchange and drives the contactless unit by hand for
/// the rest; ACS's ACR122 manuals show READ, RALL and WRITE-E through it). The host gives the
/// whole NFC Forum frame with UID0…UID3 (nfcpy), or leaves the UID (and READ's and RALL's zero
/// bytes) out, as libnfc 1.8's `nfc-jewel` does (`utils/jewel.h`: READ is `01 ADD`, WRITE-E
/// `53 ADD DATA`, RID `78`) and ACS's manuals show (`D4 40 01 01 08`): the firmware then adds
/// them from the RID it sent at activation. The answer of a byte command comes back as its
/// data byte alone (`jewel.h` sizes it at one byte; ACS's manuals show `D5 41 00 18`), other
/// answers whole. READ8, WRITE-E8, WRITE-NE8, RSEG past segment 0 and unknown codes are
/// refused (nil; the PN532 user manual lists no Type 1 command, so which status the firmware
/// gives is the emulators' choice).
public enum PN53xType1Firmware {
    /// The NFC Forum frame the firmware sends for `hostFrame` to a tag whose RID gave `uid`, or
    /// nil for a command it does not carry.
    public static func frame(for hostFrame: [UInt8], uid: [UInt8]) -> [UInt8]? {
        guard let command = hostFrame.first else { return nil }
        switch (command, hostFrame.count) {
        case (Type1Command.readIdentification, 1): return Type1Frame.readIdentification()
        case (Type1Command.readIdentification, 7): return hostFrame
        case (Type1Command.readAll, 1): return Type1Frame.readAll(uid: uid)
        case (Type1Command.read, 2): return hostFrame + [0x00] + uid
        case (Type1Command.writeErase, 3), (Type1Command.writeNoErase, 3): return hostFrame + uid
        case (Type1Command.readSegment, 2) where hostFrame[1] >> 4 == 0: return hostFrame + [UInt8](repeating: 0, count: 8) + uid
        case (Type1Command.readSegment, 14) where hostFrame[1] >> 4 == 0: return hostFrame
        case (Type1Command.readAll, 7), (Type1Command.read, 7), (Type1Command.writeErase, 7), (Type1Command.writeNoErase, 7):
            return hostFrame
        default: return nil
        }
    }

    /// Whether `command` writes (the firmware waits longer for its answer).
    public static func isWrite(_ command: UInt8) -> Bool {
        command == Type1Command.writeErase || command == Type1Command.writeNoErase
    }

    /// The data the firmware hands the host for the tag's answer `data` to `command`: a byte
    /// command's `ADD DATA` as DATA alone, anything else whole.
    public static func hostData(_ data: [UInt8], command: UInt8) -> [UInt8] {
        if command == Type1Command.read || isWrite(command), data.count == 2 { return [data[1]] }
        return data
    }
}
