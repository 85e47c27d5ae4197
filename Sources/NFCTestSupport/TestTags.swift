import Foundation
public import Testing

extension Tag {
    /// Starts a built executable (nfctool, the emulators) in a subprocess.
    @Tag public static var endToEnd: Self
    /// Drives real libnfc against the PN532 emulator on a pty.
    @Tag public static var emulator: Self
    /// Needs a private pcscd and the virtual PC/SC reader.
    @Tag public static var pcsc: Self
    /// Starts a PostgreSQL server of its own.
    @Tag public static var postgres: Self
}

/// Which part of the suite this test process runs.
public enum TestSelection {
    /// `Scripts/test --fast` (`NFCKIT_TEST_FAST=1`): the in-process set only, so tests that
    /// would start a PostgreSQL server leave that case out (the targets of the other tags are
    /// skipped whole by the script).
    public static let isFast = ProcessInfo.processInfo.environment["NFCKIT_TEST_FAST"] == "1"
}
