import Testing
@testable import NFCToolCore

/// The whole help of each tag-writing command, as `--help`, `-h` and `help <command>` print it.
@Suite("Help of read, write, lock, format, erase, protect and unprotect", .timeLimit(.minutes(5)))
struct TagWriteCommandsHelpTests {
    static let readHelp = """
        OVERVIEW: Read the NDEF message of a tag and show its records.

        Each record is decoded as 'nfctool ndef decode' shows it; --json prints the
        message in the JSON form of docs/ndef.md with the tag's uid and model. An NDEF
        tag holding no message says so and exits 0; a tag without NDEF exits 4. A
        read-protected NTAG21x needs its password (--password-file or
        NFCTOOL_PASSWORD).

        Examples:
          nfctool read --device sim:ntag215
          nfctool read --device pn532_uart:/dev/ttyUSB0 --json
          nfctool read --raw | nfctool ndef decode

        USAGE: nfctool read [--device <conn>] [--timeout <s>] [--json] [--raw]
                            [--password-file <file>]

        OPTIONS:
          -d, --device <conn>     The reader: a libnfc connection string such as
                                  pn532_uart:/dev/ttyUSB0, 'default' for libnfc's
                                  default device, or sim:MODEL for the simulator
                                  (default: $NFCTOOL_DEVICE, else libnfc's default
                                  device).
          -t, --timeout <s>       How long to wait for a tag, in seconds (default 10).
          --json                  Print JSON on standard output.
          --raw                   Print the message as hex (its encoded bytes) instead
                                  of decoding it.
          --password-file <file>  NTAG21x password PWD[:PACK] in hex (8[+4] digits),
                                  read from this file (or set NFCTOOL_PASSWORD).
          -h, --help              Show help information.


        """

    static let writeHelp = """
        OVERVIEW: Write an NDEF message to a tag.

        The message is built from the record options of 'nfctool ndef encode' (records
        in the order given) or read with --ndef. Nothing is written unless the tag
        holds NDEF, is writable and the message fits (exit 6 says by how many bytes it
        is too big). The message is read back afterwards (--no-verify to skip). --plan
        lists the pages or blocks that would be written, irreversible ones marked, and
        sends no write command.

        A password-protected NTAG21x needs its password: --password-file FILE or
        NFCTOOL_PASSWORD, 8 hex digits (PWD), optionally ':' and 4 more (PACK).

        On an NTAG213/215/216, a --url may hold {mirror:uid}, {mirror:counter} or
        {mirror:uid}x{mirror:counter}: the chip then shows its UID (14 hex digits)
        and/or its tap counter (6) there on every read. The position is checked (inside
        user memory, from page 4) before anything is written; see
        docs/genuine-and-dynamic.md. A write without a placeholder turns a mirror that
        is on off (CFG0), after its checks and before the message is written: --plan
        shows that step.

        Examples:
          nfctool write --url https://example.com/t/42
          nfctool write --text Hello --lang en --url https://example.com
          nfctool write --ndef message.ndef --device pn532_uart:/dev/ttyUSB0
          nfctool write --url https://example.com --lock --yes
          nfctool write --url https://example.com --plan
          nfctool write --url 'https://ex.io/t?u={mirror:uid}x{mirror:counter}'

        USAGE: nfctool write <options>

        OPTIONS:
          -d, --device <conn>     The reader: a libnfc connection string such as
                                  pn532_uart:/dev/ttyUSB0, 'default' for libnfc's
                                  default device, or sim:MODEL for the simulator
                                  (default: $NFCTOOL_DEVICE, else libnfc's default
                                  device).
          -t, --timeout <s>       How long to wait for a tag, in seconds (default 10).
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
          --ndef <file>           Write this NDEF message: raw bytes or hex text ('-'
                                  for standard input).
          --no-verify             Do not read the message back after writing it.
          --lock                  Make the tag read-only for good after a verified
                                  write (asks, or needs --yes).
          -y, --yes               Do the irreversible step without asking (required
                                  when standard input is not a terminal).
          --format                Format a blank tag for NDEF first (a formatted tag is
                                  left as it is).
          --password-file <file>  NTAG21x password PWD[:PACK] in hex (8[+4] digits),
                                  read from this file (or set NFCTOOL_PASSWORD).
          --plan                  Print the pages or blocks that would be written, with
                                  their bytes; write nothing.
          --dry-run               The same as --plan.
          -h, --help              Show help information.


        """

    static let lockHelp = """
        OVERVIEW: Make a tag read-only for good (cannot be undone).

        Uses the platform's own mechanism: Type 2 lock bits, CC write access and
        CFGLCK; MIFARE Classic access conditions; Type 3 and Type 5 lock mechanisms.
        Names the tag and asks first; without a terminal it needs --yes (else exit 64).
        Afterwards the tag is selected again and must report read-only (else exit 8). A
        Type 4 tag has no permanent lock: exit 10. A Type 2 tag whose block-locking
        bits freeze a lock bit the lock needs cannot be locked for good: exit 10 before
        anything is written. --plan lists the writes and sends none.

        Examples:
          nfctool lock --device sim:ntag215
          nfctool lock --device pn532_uart:/dev/ttyUSB0 --yes
          nfctool lock --plan

        USAGE: nfctool lock [--device <conn>] [--timeout <s>] [--json] [--yes]
                            [--password-file <file>] [--plan] [--dry-run]

        OPTIONS:
          -d, --device <conn>     The reader: a libnfc connection string such as
                                  pn532_uart:/dev/ttyUSB0, 'default' for libnfc's
                                  default device, or sim:MODEL for the simulator
                                  (default: $NFCTOOL_DEVICE, else libnfc's default
                                  device).
          -t, --timeout <s>       How long to wait for a tag, in seconds (default 10).
          --json                  Print JSON on standard output.
          -y, --yes               Do the irreversible step without asking (required
                                  when standard input is not a terminal).
          --password-file <file>  NTAG21x password PWD[:PACK] in hex (8[+4] digits),
                                  read from this file (or set NFCTOOL_PASSWORD).
          --plan                  Print the pages or blocks that would be written, with
                                  their bytes; write nothing.
          --dry-run               The same as --plan.
          -h, --help              Show help information.


        """

    static let formatHelp = """
        OVERVIEW: Format a blank tag for NDEF, holding an empty message.

        Writes the platform's NDEF structures (Type 2 capability container and TLV
        area, Type 3 attribute block, Type 5 CC, the MIFARE Classic MAD and NFC
        sectors). A tag that already holds data is left alone (exit 11) unless --force
        is given; then its message is emptied. A Type 2 capability container is
        one-time programmable: one that no write can turn into the NDEF CC the tag
        needs (CC3 F0 refuses reading for good) exits 10, nothing written; otherwise
        format asks first, as lock does, and without a terminal it needs --yes (else
        exit 64). An NTAG213/215/216 mirror is turned off. --plan lists the writes,
        marking the one-time programmable ones, and sends none.

        Examples:
          nfctool format --device sim:ultralight
          nfctool format --force --yes
          nfctool format --plan --json

        USAGE: nfctool format [--device <conn>] [--timeout <s>] [--json] [--force]
                              [--yes] [--password-file <file>] [--plan] [--dry-run]

        OPTIONS:
          -d, --device <conn>     The reader: a libnfc connection string such as
                                  pn532_uart:/dev/ttyUSB0, 'default' for libnfc's
                                  default device, or sim:MODEL for the simulator
                                  (default: $NFCTOOL_DEVICE, else libnfc's default
                                  device).
          -t, --timeout <s>       How long to wait for a tag, in seconds (default 10).
          --json                  Print JSON on standard output.
          --force                 Empty a tag that already holds an NDEF message
                                  instead of refusing.
          -y, --yes               Do the irreversible step without asking (required
                                  when standard input is not a terminal).
          --password-file <file>  NTAG21x password PWD[:PACK] in hex (8[+4] digits),
                                  read from this file (or set NFCTOOL_PASSWORD).
          --plan                  Print the pages or blocks that would be written, with
                                  their bytes; write nothing.
          --dry-run               The same as --plan.
          -h, --help              Show help information.


        """

    static let eraseHelp = """
        OVERVIEW: Empty the NDEF message of a tag (it stays formatted).

        Leaves an NDEF-formatted tag holding an empty message, as a new tag comes: this
        is 'format --force' on a tag that already holds NDEF (Type 2: the NDEF TLV's
        length set to 0, one page write). A tag without NDEF exits 4, a read-only one
        5; nothing else is changed, except that an NTAG213/215/216 mirror is turned
        off. --plan lists the writes and sends none.

        Examples:
          nfctool erase --device sim:ntag215
          nfctool erase --plan

        USAGE: nfctool erase [--device <conn>] [--timeout <s>] [--json]
                             [--password-file <file>] [--plan] [--dry-run]

        OPTIONS:
          -d, --device <conn>     The reader: a libnfc connection string such as
                                  pn532_uart:/dev/ttyUSB0, 'default' for libnfc's
                                  default device, or sim:MODEL for the simulator
                                  (default: $NFCTOOL_DEVICE, else libnfc's default
                                  device).
          -t, --timeout <s>       How long to wait for a tag, in seconds (default 10).
          --json                  Print JSON on standard output.
          --password-file <file>  NTAG21x password PWD[:PACK] in hex (8[+4] digits),
                                  read from this file (or set NFCTOOL_PASSWORD).
          --plan                  Print the pages or blocks that would be written, with
                                  their bytes; write nothing.
          --dry-run               The same as --plan.
          -h, --help              Show help information.


        """

    static let protectHelp = """
        OVERVIEW: Protect an NTAG21x or Ultralight EV1 with a password.

        Writes need the password from then on (reads too with --read-protect).
        Passwords never go in arguments: the new one comes from --password-file or
        NFCTOOL_PASSWORD, the current one from --current-password-file. The capability
        container is not touched, so phones still read an unprotected NDEF area. --plan
        lists the writes (the password pages without their bytes) and sends none.

        Examples:
          NFCTOOL_PASSWORD=12345678:ABCD nfctool protect
          nfctool protect --password-file new.pwd --current-password-file old.pwd
          nfctool protect --password-file pwd.txt --read-protect --from-page 16

        USAGE: nfctool protect [--device <conn>] [--timeout <s>] [--json]
                               [--password-file <file>] [--current-password-file <file>]
                               [--read-protect] [--from-page <n>] [--plan] [--dry-run]

        OPTIONS:
          -d, --device <conn>     The reader: a libnfc connection string such as
                                  pn532_uart:/dev/ttyUSB0, 'default' for libnfc's
                                  default device, or sim:MODEL for the simulator
                                  (default: $NFCTOOL_DEVICE, else libnfc's default
                                  device).
          -t, --timeout <s>       How long to wait for a tag, in seconds (default 10).
          --json                  Print JSON on standard output.
          --password-file <file>  The new password PWD[:PACK] in hex (8[+4] digits),
                                  read from this file (or set NFCTOOL_PASSWORD).
          --current-password-file <file>
                                  The current password, when the tag is protected
                                  already (to change it).
          --read-protect          Reading needs the password too (phones then cannot
                                  read the tag).
          --from-page <n>         The first protected page (AUTH0; default 4, the whole
                                  NDEF area).
          --plan                  Print the pages or blocks that would be written, with
                                  their bytes; write nothing.
          --dry-run               The same as --plan.
          -h, --help              Show help information.


        """

    static let unprotectHelp = """
        OVERVIEW: Remove the password of an NTAG21x or Ultralight EV1.

        Needs the current password (--password-file or NFCTOOL_PASSWORD; never in
        arguments). AUTH0 is cleared first, so the tag is open from the first write on;
        then PROT and AUTHLIM are cleared and the password set back to the factory
        FFFFFFFF. A wrong password exits 9 with nothing written. --plan lists the
        writes and sends none.

        Examples:
          NFCTOOL_PASSWORD=12345678:ABCD nfctool unprotect
          nfctool unprotect --password-file pwd.txt --device pn532_uart:/dev/ttyUSB0

        USAGE: nfctool unprotect [--device <conn>] [--timeout <s>] [--json]
                                 [--password-file <file>] [--plan] [--dry-run]

        OPTIONS:
          -d, --device <conn>     The reader: a libnfc connection string such as
                                  pn532_uart:/dev/ttyUSB0, 'default' for libnfc's
                                  default device, or sim:MODEL for the simulator
                                  (default: $NFCTOOL_DEVICE, else libnfc's default
                                  device).
          -t, --timeout <s>       How long to wait for a tag, in seconds (default 10).
          --json                  Print JSON on standard output.
          --password-file <file>  The current password PWD[:PACK] in hex, read from
                                  this file (or set NFCTOOL_PASSWORD).
          --plan                  Print the pages or blocks that would be written, with
                                  their bytes; write nothing.
          --dry-run               The same as --plan.
          -h, --help              Show help information.


        """

    static let helps: [(String, String)] = [
        ("read", readHelp),
        ("write", writeHelp),
        ("lock", lockHelp),
        ("format", formatHelp),
        ("erase", eraseHelp),
        ("protect", protectHelp),
        ("unprotect", unprotectHelp),
    ]

    @Test("--help prints the whole help, every line within 80 columns", arguments: helps)
    func wholeHelp(command: String, expected: String) async {
        let run = await runNFCTool([command, "--help"])
        #expect(run.status == .success)
        #expect(run.standardOutput == expected)
        #expect(run.standardError == "")
        #expect(expected.split(separator: "\n").allSatisfy { $0.count <= 80 })
    }

    @Test("-h and 'nfctool help <command>' print the same help", arguments: helps)
    func sameHelpEverywhere(command: String, expected: String) async {
        #expect(await runNFCTool([command, "-h"]).standardOutput == expected)
        #expect(await runNFCTool(["help", command]).standardOutput == expected)
    }

    @Test("every tag-writing command takes --device, --timeout, --json and --help", arguments: helps)
    func sharedOptions(command: String, expected: String) {
        for option in ["-d, --device <conn>", "-t, --timeout <s>", "--json", "-h, --help"] {
            #expect(expected.contains("\n  \(option) "))
        }
    }
}
