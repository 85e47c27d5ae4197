import NFCTags

/// The process's libnfc context: the one door to libnfc.
///
/// libnfc contexts are not thread-safe, so one actor owns the process's only context and every
/// call into libnfc that needs it runs on this actor. The context is created (`nfc_init`) on
/// first use, never before, and lives as long as the process. Opening a device for polling and
/// exchanging frames will hand out one actor per open device, each created here.
///
/// libnfc's calls block (a USB or serial round trip, a bus scan); they run on this actor's
/// own thread, never on the cooperative pool (two threads on a 2-core machine), as each
/// device's do.
public actor LibNFCContext {
    /// The process's one context.
    public static let shared = LibNFCContext()

    /// The thread every context call runs on; it lives as long as the process.
    private let executor = DeviceThreadExecutor(name: "libnfc context")
    /// Runs the actor on ``executor``.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// The most devices ``listDevices()`` reports, as libnfc's own `nfc-list` does.
    public static let maximumDeviceCount = 16

    /// libnfc's version, e.g. `1.8.0` (`nfc_version`). Needs no context; loads libnfc (it is
    /// not linked: `dlopen` on first use). When libnfc cannot be loaded: `unavailable (…)`,
    /// with the loader's reason.
    public static var version: String {
        switch loadedVersion {
        case .success(let version): version
        case .failure(let error): "unavailable (\(error.reason))"
        }
    }

    /// libnfc's version when it loads, else why it cannot be loaded (the reason names the
    /// Debian package to install).
    public static var loadedVersion: Result<String, LibNFCError> {
        do throws(LibNFCError) {
            return .success(try libnfcVersion())
        } catch {
            return .failure(error)
        }
    }

    /// The context, once `nfc_init` has run.
    private var context: ContextHandle?
    /// How much of libnfc's log the caller lets through.
    private var logging: LibNFCLogging = .silent
    /// `LIBNFC_LOG_LEVEL` as the user set it before libnfc rewrote it (libnfc stores its
    /// effective level back into the variable), or `nil` when the user did not set it.
    private let userLogLevel: String?

    private init() {
        userLogLevel = systemGetEnvironment(LibNFCLogging.environmentVariable)
    }

    /// Chooses how much of libnfc's own log reaches standard error, from now on.
    ///
    /// A `LIBNFC_LOG_LEVEL` the user set in the environment wins: then this changes nothing.
    /// The level is process-wide, as libnfc's is.
    public func setLogging(_ logging: LibNFCLogging) {
        self.logging = logging
        applyLogging()
    }

    /// The readers libnfc finds: those configured (`/etc/nfc`, `LIBNFC_DEFAULT_DEVICE`), then those its
    /// drivers' scans find, at most ``maximumDeviceCount``. Each one is opened briefly to ask
    /// its name; one that cannot be opened is listed without a name.
    ///
    /// No reader is not an error: the list is empty.
    /// - Throws: ``LibNFCError`` with ``LibNFCError/Code/software`` when libnfc cannot create
    ///   its context.
    public func listDevices() throws(LibNFCError) -> [DeviceDescription] {
        let context = try initializedContext()
        return libnfcListDevices(context, maximumCount: Self.maximumDeviceCount).map { connectionString in
            DeviceDescription(name: deviceName(context, connectionString), connectionString: connectionString)
        }
    }

    /// Opens a device for a ``LibNFCReader``: the one at `connectionString`, or libnfc's default
    /// device when `nil`.
    /// - Throws: ``LibNFCError`` `noSuchDevice` when libnfc cannot open it.
    func openDevice(_ connectionString: String?) throws(LibNFCError) -> DeviceHandle {
        let context = try initializedContext()
        let device = connectionString.map { libnfcOpen(context, connectionString: $0) } ?? libnfcOpenDefault(context)
        guard let device else {
            throw LibNFCError(.noSuchDevice, connectionString.map { "libnfc cannot open '\($0)'" }
                ?? "libnfc found no reader to open (set LIBNFC_DEFAULT_DEVICE or give a connection string)")
        }
        return device
    }

    /// Opens the device just long enough to read its name.
    private func deviceName(_ context: ContextHandle, _ connectionString: String) -> String? {
        guard let device = libnfcOpen(context, connectionString: connectionString) else { return nil }
        defer { libnfcClose(device) }
        return libnfcDeviceGetName(device)
    }

    /// The context, created by `nfc_init` on first use with the chosen log level in place.
    /// - Throws: ``LibNFCError`` with ``LibNFCError/Code/software`` when libnfc cannot be
    ///   loaded or `nfc_init` fails.
    func initializedContext() throws(LibNFCError) -> ContextHandle {
        if let context { return context }
        applyLogging()
        guard let created = try libnfcInit() else {
            throw LibNFCError(.software, "libnfc could not create its context (nfc_init failed)")
        }
        context = created
        return created
    }

    /// Puts the chosen level in `LIBNFC_LOG_LEVEL`, unless the user set it.
    private func applyLogging() {
        guard userLogLevel == nil else { return }
        systemSetEnvironment(LibNFCLogging.environmentVariable, logging.environmentValue)
    }
}
