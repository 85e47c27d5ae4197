import NFCCore

/// The most nfctool reads of each kind of input, from a file or standard input: more is a data
/// error (exit 65, `input larger than …`), never memory without end (`ndef decode </dev/zero`).
/// docs/cli.md ("Input limits") lists them; each is far above what the input can usefully hold.
enum InputLimits {
    /// An NDEF message, raw or as hex text (`ndef decode`, `write --ndef`, `verify --ndef`,
    /// `emulate --ndef`): the largest tag holds 64 KiB; hex text with separators is three times that.
    static let ndefMessage = 1 << 20
    /// A JSON NDEF message (`--json-file`).
    static let jsonMessage = 4 << 20
    /// A record's payload from a file (`--mime-file` and the like).
    static let dataFile = 1 << 20
    /// A password, key or Wi-Fi key file, and an NTAG 424 keys file.
    static let keyFile = 64 << 10
    /// A batch manifest (`batch --manifest`, `ledger load`).
    static let manifest = 64 << 20
}
