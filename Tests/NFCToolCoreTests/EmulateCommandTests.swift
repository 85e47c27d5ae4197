import Testing
@testable import NFCToolCore

/// `nfctool emulate` in-process: its help, usage errors, and the simulator's lack of target
/// mode. Through real libnfc it is tested in IntegrationTests/EmulateThroughLibNFCTests.
@Suite("nfctool emulate", .timeLimit(.minutes(5)))
struct EmulateCommandTests {
    static let help = """
        OVERVIEW: Act as an NFC Forum Type 4 tag for a phone or another reader.

        The reader goes into target mode (card emulation) and answers as an NFC Forum
        Type 4 tag holding the message, built from the record options of 'nfctool ndef
        encode' or read with --ndef. When an external reader has come and left, what it
        did is printed: whether it wrote, and the message it wrote (--save keeps it in
        a file). --read-only refuses writes. Waiting for a reader ends after --timeout
        (exit 2).

        Only PN53x readers (PN532, PN533) driven by libnfc have target mode; other
        readers and the simulator (sim:) fail with exit 10.

        Examples:
          nfctool emulate --url https://example.com --device pn532_uart:/dev/ttyUSB0
          nfctool emulate --text Hello --read-only --timeout 30
          nfctool emulate --ndef message.ndef --save written.ndef --json

        USAGE: nfctool emulate <options>

        OPTIONS:
          -d, --device <conn>     The reader that becomes the tag: a libnfc connection
                                  string such as pn532_uart:/dev/ttyUSB0 (a PN53x: only
                                  they have target mode), or 'default' (default:
                                  $NFCTOOL_DEVICE, else libnfc's default device).
          -t, --timeout <s>       How long to wait for an external reader, in seconds
                                  (default 60).
          --json                  Print JSON on standard output.
          --url <uri>             Add a URI record (a scheme is required: https://,
                                  tel:, mailto:, …).
          --text <text>           Add a Text record (language from --lang, default en).
          --mime <type>           Add a MIME record of this media type; its data from
                                  --data, --data-hex or --data-file.
          --external <domain:type>
                                  Add an NFC Forum external type record; data as for
                                  --mime.
          --absolute-uri <uri>    Add a record whose type is this absolute URI; data as
                                  for --mime.
          --aar <package>         Add an Android Application Record (e.g.
                                  com.example.app).
          --wifi-ssid <ssid>      Add a Wi-Fi credential record for this network (see
                                  --wifi-*).
          --smart-poster <uri>    Add a Smart Poster for this URI (see --title,
                                  --action).
          --bluetooth <address>   Add a Bluetooth OOB pairing record for
                                  AA:BB:CC:DD:EE:FF (see --bt-*).
          --json-file <file>      Add the records of a JSON message file
                                  (docs/ndef.md); '-' reads standard input.
          --lang <tag>            Language of the preceding --text or --title (default
                                  en).
          --utf16                 Store the preceding --text or --title as UTF-16.
          --data <text>           Data (UTF-8 text) of the preceding --mime, --external
                                  or --absolute-uri.
          --data-hex <hex>        Data, as hex, of the preceding --mime, --external or
                                  --absolute-uri.
          --data-file <file>      Data, read from a file, of the preceding --mime,
                                  --external or --absolute-uri.
          --id <id>               Record ID of the preceding record.
          --wifi-auth <auth>      open, wpa-personal, wpa2-personal (default),
                                  wpa-wpa2-personal, shared, wpa-enterprise,
                                  wpa2-enterprise.
          --wifi-encryption <enc> none, wep, tkip, aes (default; none for an open
                                  network), aes-tkip.
          --wifi-key-file <file>  Read the network key from a file (or set
                                  NFCTOOL_WIFI_KEY); keys never go in arguments.
          --wifi-mac <mac>        The access point's MAC address (default
                                  FF:FF:FF:FF:FF:FF, any).
          --title <text>          Add a title to the preceding --smart-poster (language
                                  from a following --lang).
          --action <action>       Recommended action of the preceding --smart-poster:
                                  do, save or edit.
          --bt-name <name>        Local name of the preceding --bluetooth device.
          --bt-class <hex>        24-bit class of device of the preceding --bluetooth
                                  device, e.g. 0x240404.
          --ndef <file>           The message the tag holds: raw bytes or hex text ('-'
                                  for standard input).
          --read-only             Refuse writes: the tag announces itself read-only and
                                  answers UPDATE BINARY with 6982.
          --save <file>           Save the message an external reader wrote (raw NDEF
                                  bytes) to this file.
          -h, --help              Show help information.


        """

    @Test("the emulate help, whole")
    func helpText() async {
        let run = await runNFCTool(["emulate", "--help"])
        #expect(run.status == .success)
        #expect(run.standardOutput == Self.help)
    }

    @Test("the simulator has no target mode: exit 10 with a clear reason")
    func simulatorIsRefused() async {
        let run = await runNFCTool(["emulate", "--url", "https://example.com", "--device", "sim:ntag215", "--timeout", "1"])
        #expect(run.status == .unsupported)
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError == "Error: cannot emulate a tag on 'sim:ntag215': the simulator 'sim:ntag215' has no target mode: card emulation needs a PN53x reader through libnfc\n")
    }

    @Test("usage errors: no message, both --ndef and records, --save with --read-only",
          arguments: [["emulate"], ["emulate", "--ndef", "m.ndef", "--url", "https://example.com"],
                      ["emulate", "--url", "https://example.com", "--read-only", "--save", "out.ndef"],
                      ["emulate", "--url", "https://example.com", "--timeout", "0"]])
    func usageErrors(arguments: [String]) async {
        let run = await runNFCTool(arguments + ["--device", "sim:ntag215"])
        #expect(run.status == .usage)
        #expect(run.standardError.hasPrefix("Error: "))
    }

    @Test("a message too big for the emulated NDEF file: exit 6, no reader opened")
    func messageTooBig() async {
        let run = await runNFCTool(["emulate", "--text", String(repeating: "x", count: 2100), "--device", "sim:ntag215"])
        #expect(run.status == .capacityExceeded)
    }
}
