/// How much of libnfc's own log (the lines it prints to standard error, such as
/// `error  libnfc.buses.usbbus  Unable to find USB busses`) a caller lets through.
///
/// libnfc reads its log level from the `LIBNFC_LOG_LEVEL` environment variable. When the user
/// has set that variable, it wins over either choice here.
public enum LibNFCLogging: Sendable, Hashable, CaseIterable {
    /// Nothing from libnfc reaches standard error (`LIBNFC_LOG_LEVEL=0`). The default.
    case silent
    /// Everything libnfc logs, down to debug messages (`LIBNFC_LOG_LEVEL=3`).
    case debug

    /// The variable libnfc reads its log level from.
    static let environmentVariable = "LIBNFC_LOG_LEVEL"

    /// The value of `LIBNFC_LOG_LEVEL` that selects this level.
    var environmentValue: String {
        switch self {
        case .silent: "0"
        case .debug: "3"
        }
    }
}
