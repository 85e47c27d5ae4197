import Testing
import NFCTestSupport

/// Every suite that runs the real pcscd, the virtual reader and nfctool processes, nested here
/// so that they run one after another: their waits block a thread of the test pool each, and
/// side by side they starved the rest of the run on a 2-core machine.
@Suite(
    "PC/SC end to end through the real pcscd", .tags(.pcsc), .serialized, .timeLimit(.minutes(20)),
    .enabled(if: PrivatePCSCDaemon.available || isContinuousIntegration, "needs root (a private mount namespace for pcscd's socket), pcscd and vsmartcard-vpcd"))
enum PCSCEndToEnd {}
