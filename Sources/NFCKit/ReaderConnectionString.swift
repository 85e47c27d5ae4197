import PCSC

/// A connection string parsed once into the kind of reader it names, so that no caller tells
/// the kinds apart by prefix again.
///
/// - `nil`, `default`: libnfc's default device (`LIBNFC_DEFAULT_DEVICE`, `/etc/nfc/libnfc.conf`,
///   else the first reader found);
/// - `sim`, `sim:…`: the in-process simulator (docs/simulator.md);
/// - `pcsc`, `pcsc:NAME`, `pcsc:#N`: a PC/SC reader through pcscd;
/// - `replay:FILE`: a ``ReplayReader`` answering from the trace in FILE (docs/traces.md);
/// - anything else: a libnfc connection string (`pn532_uart:/dev/ttyUSB0`, `acr122_usb:`, …).
public struct ReaderConnectionString: Sendable, Hashable, CustomStringConvertible {
    /// Which kind of reader a connection string names.
    public enum Kind: Sendable, Hashable {
        /// libnfc's default device (`default`, or no string at all).
        case libnfcDefault
        /// A device libnfc opens by its connection string.
        case libnfc
        /// A PC/SC reader through pcscd (`pcsc`, `pcsc:NAME`, `pcsc:#N`).
        case pcsc
        /// The in-process simulator (`sim`, `sim:…`).
        case simulator
        /// A trace played back (`replay:FILE`).
        case replay
    }

    /// The string as given; `default` when none was.
    public let text: String
    /// The kind of reader it names.
    public let kind: Kind

    /// Parses `string`; `nil` is libnfc's default device, as `default` is.
    public init(_ string: String?) {
        let text = string ?? "default"
        self.text = text
        if text == "default" {
            kind = .libnfcDefault
        } else if text == "sim" || text.hasPrefix("sim:") {
            kind = .simulator
        } else if text.hasPrefix(Self.replayPrefix) {
            kind = .replay
        } else if PCSCReader.Selector.accepts(text) {
            kind = .pcsc
        } else {
            kind = .libnfc
        }
    }

    /// Whether it names the in-process simulator, which no lease guards and no other process sees.
    public var isSimulator: Bool { kind == .simulator }

    /// Whether it names a reader that lives in this process only (the simulator, a replay),
    /// which no lease guards and no other process sees.
    public var isInProcess: Bool { kind == .simulator || kind == .replay }

    /// `replay:`, before the path of the trace a ``ReplayReader`` plays.
    public static let replayPrefix = "replay:"

    /// The trace file of a `replay:FILE` string; nil for any other kind.
    public var replayPath: String? { kind == .replay ? String(text.dropFirst(Self.replayPrefix.count)) : nil }

    /// What libnfc's `nfc_open` takes: nil for the default device, else the string.
    public var libnfcString: String? { kind == .libnfcDefault ? nil : text }

    /// The string as given (`default` when none was).
    public var description: String { text }
}
