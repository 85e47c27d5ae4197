import CPCSCLite
import NFCCore
import NFCTags

/// Listing and opening, run on a PC/SC thread (the calls block).
actor PCSCListing {
    private let executor: DeviceThreadExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    init(executor: DeviceThreadExecutor) { self.executor = executor }

    func names() throws(NFCReaderDeviceError) -> [String] {
        let context: ContextHandle
        do { context = try pcscEstablishContext() } catch { throw PCSCReader.readerError(error) }
        defer { pcscReleaseContext(context) }
        do { return try pcscListReaders(context) } catch { throw PCSCReader.readerError(error) }
    }

    func open(_ selector: PCSCReader.Selector, _ connectionString: String) throws(NFCReaderDeviceError) -> (ContextHandle, String) {
        let context: ContextHandle
        do {
            context = try pcscEstablishContext()
        } catch {
            throw NFCReaderDeviceError(.deviceNotFound, "cannot open \(connectionString): \(error.code == PCSCError.noService && error.detail == nil ? "pcscd is not running (SCARD_E_NO_SERVICE)" : error.description)")
        }
        let names: [String]
        do {
            names = try pcscListReaders(context)
        } catch {
            pcscReleaseContext(context)
            throw PCSCReader.readerError(error)
        }
        guard let name = selector.pick(from: names) else {
            pcscReleaseContext(context)
            let known = names.isEmpty ? "pcscd sees no reader" : "pcscd sees: " + names.enumerated().map { "#\($0.offset) \($0.element)" }.joined(separator: ", ")
            throw NFCReaderDeviceError(.deviceNotFound, "no PC/SC reader matches \(connectionString) (\(known))")
        }
        return (context, name)
    }
}
