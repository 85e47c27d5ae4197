public import NFCTags
import LibNFC
import PCSC

/// Opens readers from connection strings: libnfc's (`pn532_uart:/dev/ttyUSB0`, `pn53x_usb:`,
/// `acr122_usb:`, …), `default` for libnfc's default device (`LIBNFC_DEFAULT_DEVICE`,
/// `/etc/nfc/libnfc.conf`, else the first reader found), PC/SC readers through pcscd (`pcsc` the
/// first, `pcsc:NAME` the first whose name starts with NAME, `pcsc:#N` the N-th from 0, as
/// `pcsc_scan` lists them), the in-process simulator's (`sim:…`, see docs/simulator.md), or a trace played back
/// (`replay:FILE`, see docs/traces.md).
public enum ReaderConnection {
    /// Opens the reader a connection string names; `nil` opens libnfc's default device.
    /// - Throws: `NFCReaderDeviceError` `deviceNotFound` when nothing can be opened there, or
    ///   `invalidArgument` for a malformed `sim:` string.
    public static func open(_ connectionString: String?) async throws(NFCReaderDeviceError) -> any NFCReader {
        let parsed = ReaderConnectionString(connectionString)
        switch parsed.kind {
        case .simulator: return try await openSimulator(parsed.text)
        case .replay: return try openReplay(parsed)
        case .pcsc: return try await PCSCReader.open(parsed.text)
        case .libnfc, .libnfcDefault: return try await LibNFCReader.open(parsed.libnfcString)
        }
    }

    /// Opens the reader a connection string names for card emulation (target mode).
    /// - Throws: `NFCReaderDeviceError` `notSupported` for the simulator (`sim:`), which has no target
    ///   mode; `deviceNotFound` when nothing can be opened there.
    public static func openCardEmulator(_ connectionString: String?) async throws(NFCReaderDeviceError) -> any NFCCardEmulator {
        let parsed = ReaderConnectionString(connectionString)
        switch parsed.kind {
        case .simulator:
            throw NFCReaderDeviceError(.notSupported, "the simulator '\(parsed.text)' has no target mode: card emulation needs a PN53x reader through libnfc")
        case .replay:
            throw NFCReaderDeviceError(.notSupported, "a replay ('\(parsed.text)') has no target mode: card emulation needs a PN53x reader through libnfc")
        case .pcsc:
            throw NFCReaderDeviceError(.notSupported, "the PC/SC reader '\(parsed.text)' has no target mode in NFCKit: card emulation needs a PN53x reader through libnfc")
        case .libnfc, .libnfcDefault:
            return try await LibNFCReader.open(parsed.libnfcString)
        }
    }
}
