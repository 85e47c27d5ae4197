// swift-tools-version: 6.0
// NFCKit: read, write, provision and lock NFC tags on Linux through libnfc or PC/SC (pcscd).
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "NFCKit",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "NFCCore", targets: ["NFCCore"]),
        .library(name: "CommandLineKit", targets: ["CommandLineKit"]),
        .library(name: "NDEF", targets: ["NDEF"]),
        .library(name: "NFCTags", targets: ["NFCTags"]),
        .library(name: "LibNFC", targets: ["LibNFC"]),
        .library(name: "VirtualTags", targets: ["VirtualTags"]),
        .library(name: "PN532Emulator", targets: ["PN532Emulator"]),
        .library(name: "PCSC", targets: ["PCSC"]),
        .library(name: "NFCKit", targets: ["NFCKit"]),
        .library(name: "Provisioning", targets: ["Provisioning"]),
        .library(name: "NFCCrypto", targets: ["NFCCrypto"]),
        .library(name: "Originality", targets: ["Originality"]),
        .executable(name: "nfctool", targets: ["nfctool"]),
        .executable(name: "pn532-emulator", targets: ["pn532-emulator"]),
        .executable(name: "pcsc-reader-emulator", targets: ["pcsc-reader-emulator"]),
    ],
    targets: [
        // libnfc's header, for its types and constants; Debian: libnfc-dev. Not linked and not through
        // pkg-config (whose Libs would link it and libusb): LibNFC loads libnfc.so.6 with dlopen when a
        // libnfc reader is first listed or opened, so nfctool starts without it.
        .systemLibrary(name: "CLibNFC", providers: [.apt(["libnfc-dev"])]),
        // pcsc-lite's PC/SC API, for PC/SC readers through pcscd, declared by the module itself (its shim
        // holds the types, constants and function pointer types PCSC uses, from pcsc-lite's headers): no
        // header search path, so no unsafe flag. Not linked: PCSC loads libpcsclite.so.1 with dlopen when
        // a PC/SC reader is first listed or opened, so nfctool starts without it (Debian: libpcsclite1).
        .systemLibrary(name: "CPCSCLite"),
        // SQLite's header, for the provisioning ledger; Debian: libsqlite3-dev. Not linked and not through
        // pkg-config (whose Libs would link it): Provisioning loads libsqlite3.so.0 with dlopen when a
        // SQLite ledger is opened, so nfctool starts without it.
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        // libpq's header, for the provisioning ledger on a PostgreSQL server (several stations); Debian:
        // libpq-dev. Not linked and not through pkg-config (whose Libs would link it): Provisioning loads
        // libpq.so.5 with dlopen when a PostgreSQL ledger is opened, so nfctool starts without it.
        .systemLibrary(name: "CLibPQ", providers: [.apt(["libpq-dev"])]),
        // OpenSSL 3's libcrypto's header, for originality signatures, AES/CMAC, SHA-256; Debian: libssl-dev.
        // Not linked and not through pkg-config (whose Libs would link it): NFCCrypto loads libcrypto.so.3
        // with dlopen on the first cryptographic call, so nfctool starts without it.
        .systemLibrary(name: "CCrypto", providers: [.apt(["libssl-dev"])]),
        // Bytes, hex, cursors: no dependencies.
        .target(name: "NFCCore", swiftSettings: strict),
        // Commands, options, typed values, help and usage text, exit statuses: the command-line
        // framework of nfctool and both emulators.
        .target(name: "CommandLineKit", dependencies: ["NFCCore"], swiftSettings: strict),
        // NDEF messages and records (NFC Forum NDEF 1.0 and RTDs).
        .target(name: "NDEF", dependencies: ["NFCCore"], swiftSettings: strict),
        // The one place that imports libcrypto: ECDSA verification without hashing.
        .target(name: "NFCCrypto", dependencies: ["NFCCore", "CCrypto"], swiftSettings: strict),
        // The reader seam (poll, transceive, presence) and what a target is; NTAG 424 DNA SDM (AES through NFCCrypto).
        .target(name: "NFCTags", dependencies: ["NFCCore", "NDEF", "NFCCrypto"], swiftSettings: strict),
        // The one place that imports libnfc.
        .target(name: "LibNFC", dependencies: ["NFCCore", "NFCTags", "CLibNFC"], swiftSettings: strict),
        // The one place that imports pcsc-lite: PC/SC readers (generic Part 3 profile).
        .target(name: "PCSC", dependencies: ["NFCCore", "NFCTags", "CPCSCLite"], swiftSettings: strict),
        // Chip models from the datasheets, tag files, fault injection, the in-process simulator.
        .target(name: "VirtualTags", dependencies: ["NFCCore", "NFCTags", "NFCCrypto"], swiftSettings: strict),
        // The PN532 host protocol over a pseudo-terminal, hosting virtual tags.
        .target(name: "PN532Emulator", dependencies: ["NFCCore", "NFCTags", "VirtualTags", "CommandLineKit"], swiftSettings: strict),
        .executableTarget(name: "pn532-emulator", dependencies: ["PN532Emulator", "VirtualTags", "CommandLineKit"], swiftSettings: strict),
        // A contactless PC/SC reader (generic Part 3 profile) behind vpcd, hosting virtual tags.
        .target(name: "PCSCReaderEmulator", dependencies: ["NFCCore", "NFCTags", "VirtualTags"], swiftSettings: strict),
        .executableTarget(name: "pcsc-reader-emulator", dependencies: ["PCSCReaderEmulator", "VirtualTags", "NFCTags", "NFCCore", "CommandLineKit"], swiftSettings: strict),
        // Opens readers from connection strings (libnfc's, `pcsc:` or `sim:`); CoreNFC-shaped sessions.
        .target(name: "NFCKit", dependencies: ["NFCCore", "NDEF", "NFCTags", "LibNFC", "PCSC", "VirtualTags"], swiftSettings: strict),
        // NXP originality signatures: the public keys with their sources, reading and verifying.
        .target(name: "Originality", dependencies: ["NFCCore", "NFCTags", "NFCCrypto"], swiftSettings: strict),
        // Batch provisioning: the ledger (SQLite, or PostgreSQL for several stations), URL templates, manifests.
        .target(name: "Provisioning", dependencies: ["NFCCore", "NDEF", "NFCTags", "NFCCrypto", "CSQLite", "CLibPQ"], swiftSettings: strict),
        // The CLI's commands, parser, help and output, testable in-process.
        .target(name: "NFCToolCore", dependencies: ["CommandLineKit", "NFCCore", "NDEF", "NFCTags", "NFCKit", "Provisioning", "Originality"], swiftSettings: strict),
        .executableTarget(name: "nfctool", dependencies: ["NFCToolCore"], swiftSettings: strict),
        // Benchmarks (Scripts/bench-ndef), never part of the tests.
        .executableTarget(name: "ndef-bench", dependencies: ["NDEF", "NFCCore"], path: "Benchmarks/ndef-bench", swiftSettings: strict),
        .executableTarget(name: "transport-bench", dependencies: ["NFCKit", "NFCTags", "NFCCore"], path: "Benchmarks/transport-bench", swiftSettings: strict),
        .executableTarget(
            name: "batch-bench", dependencies: ["NDEF", "NFCCore", "NFCKit", "NFCTags", "Provisioning"], path: "Benchmarks/batch-bench",
            swiftSettings: strict),
        .executableTarget(
            name: "tag-commands-bench", dependencies: ["TagCommandCounts"], path: "Benchmarks/tag-commands",
            swiftSettings: strict),
        // The commands-per-operation measurement, shared by tag-commands-bench and the tests
        // that hold docs/benchmarks.md to it.
        .target(name: "TagCommandCounts", dependencies: ["NDEF", "NFCCore", "NFCTags", "VirtualTags"], path: "Benchmarks/TagCommandCounts", swiftSettings: strict),

        // Test helpers shared by the test targets: the scripted fake reader, hex literals, waiting
        // with a deadline, built executables, the emulator as a child, the external-tool policy.
        .target(name: "NFCTestSupport", dependencies: ["NFCCore", "NFCTags"], swiftSettings: strict),
        // Test support in C: fixes this test process's pcsc-lite socket path before any test runs.
        .target(
            name: "CPCSCTestSocket", path: "Tests/Support/CPCSCTestSocket",
            linkerSettings: [.linkedLibrary("pcsclite")]),

        .testTarget(name: "NFCCoreTests", dependencies: ["NFCCore"], swiftSettings: strict),
        .testTarget(name: "CommandLineKitTests", dependencies: ["CommandLineKit", "NFCTestSupport"], swiftSettings: strict),
        .testTarget(name: "ProvisioningTests", dependencies: ["Provisioning", "NFCTestSupport", "VirtualTags", "NFCTags", "NDEF"], swiftSettings: strict),
        .testTarget(name: "NDEFTests", dependencies: ["NDEF", "NFCCore", "NFCTestSupport"], swiftSettings: strict),
        .testTarget(name: "LibNFCTests", dependencies: ["LibNFC"], swiftSettings: strict),
        .testTarget(name: "NFCToolCoreTests", dependencies: ["NFCToolCore", "NDEF", "NFCKit", "LibNFC", "NFCTestSupport"], swiftSettings: strict),
        .testTarget(name: "NFCCryptoTests", dependencies: ["NFCCrypto", "NFCCore", "NFCTestSupport"], swiftSettings: strict),
        .testTarget(name: "OriginalityTests", dependencies: ["Originality", "NFCCrypto", "NFCTags", "NFCCore", "VirtualTags", "NFCTestSupport"], swiftSettings: strict),
        // The tag platforms against the in-process simulator (VirtualTags) and the scripted reader.
        .testTarget(name: "NFCTagsTests", dependencies: ["NFCTags", "NFCCore", "NDEF", "NFCCrypto", "VirtualTags", "NFCTestSupport"], swiftSettings: strict),
        // NFCKit on the simulator: sessions, the tag watcher, the emulated Type 4 tag, connections.
        .testTarget(name: "NFCKitTests", dependencies: ["NFCKit", "NFCTags", "NFCCore", "NDEF", "VirtualTags", "NFCTestSupport"], swiftSettings: strict),
        .testTarget(name: "VirtualTagsTests", dependencies: ["VirtualTags", "NFCTags", "NFCCore", "NFCTestSupport"], swiftSettings: strict),
        .testTarget(name: "PN532EmulatorTests", dependencies: ["PN532Emulator", "VirtualTags", "NFCTags", "NFCCore", "NFCTestSupport"], swiftSettings: strict),
        // Public captures of real chips and readers (Tests/Fixtures/captures) against the chip models,
        // the emulators and the identification, parsing and originality code.
        .testTarget(
            name: "CaptureTests",
            dependencies: ["NFCTags", "NFCCore", "VirtualTags", "PCSCReaderEmulator", "PN532Emulator", "Originality", "NFCTestSupport"],
            swiftSettings: strict),
        .testTarget(name: "PCSCTests", dependencies: ["PCSC", "CPCSCTestSocket", "PCSCReaderEmulator", "NFCKit", "VirtualTags", "NFCTags", "NFCCore", "NFCTestSupport"], swiftSettings: strict),
        // The seeds' CoreNFC examples ported (docs/porting-from-corenfc.md), on `sim:` and through libnfc.
        .testTarget(name: "PortingExamplesTests", dependencies: ["NFCKit", "NDEF", "NFCTags", "NFCCore", "NFCTestSupport"], swiftSettings: strict),
        // End to end: real libnfc against the emulator on a pty, the built executables, libnfc's tools.
        .testTarget(name: "EndToEndTests", dependencies: ["LibNFC", "NFCKit", "PN532Emulator", "VirtualTags", "NFCTags", "NFCToolCore", "NFCTestSupport", "Provisioning", "NDEF", "NFCCore", "NFCCrypto", "Originality"], swiftSettings: strict),
        .testTarget(name: "RepositoryTests", dependencies: ["NFCTestSupport", "TagCommandCounts"], swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
