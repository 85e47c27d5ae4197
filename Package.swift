// swift-tools-version: 6.0
// NFCKit: read, write, provision and lock NFC tags on Linux through libnfc.
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
        .library(name: "NDEF", targets: ["NDEF"]),
        .library(name: "LibNFC", targets: ["LibNFC"]),
        .executable(name: "nfctool", targets: ["nfctool"]),
    ],
    targets: [
        // The C library, found through pkg-config; Debian: libnfc-dev.
        .systemLibrary(
            name: "CLibNFC",
            pkgConfig: "libnfc",
            providers: [.apt(["libnfc-dev", "libusb-1.0-0-dev"])]
        ),
        // Bytes, hex, cursors: no dependencies.
        .target(name: "NFCCore", swiftSettings: strict),
        // NDEF messages and records (NFC Forum NDEF 1.0 and RTDs).
        .target(name: "NDEF", dependencies: ["NFCCore"], swiftSettings: strict),
        // The one place that imports libnfc.
        .target(name: "LibNFC", dependencies: ["NFCCore", "CLibNFC"], swiftSettings: strict),
        // The CLI's commands, parser, help and output, testable in-process.
        .target(name: "NFCToolCore", dependencies: ["NFCCore", "NDEF", "LibNFC"], swiftSettings: strict),
        .executableTarget(name: "nfctool", dependencies: ["NFCToolCore"], swiftSettings: strict),
        // Benchmarks (Scripts/bench-ndef), never part of the tests.
        .executableTarget(name: "ndef-bench", dependencies: ["NDEF", "NFCCore"], path: "Benchmarks/ndef-bench", swiftSettings: strict),

        .testTarget(name: "NFCCoreTests", dependencies: ["NFCCore"], swiftSettings: strict),
        .testTarget(name: "NDEFTests", dependencies: ["NDEF", "NFCCore"], swiftSettings: strict),
        .testTarget(name: "LibNFCTests", dependencies: ["LibNFC"], swiftSettings: strict),
        .testTarget(name: "NFCToolCoreTests", dependencies: ["NFCToolCore", "NDEF"], swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
