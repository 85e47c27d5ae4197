// Every C call the LibNFC target makes, each wrapped exactly once (after swift-system's
// `Internals/Syscalls.swift`). Nothing above this file sees a libnfc type, a C pointer to a
// libnfc structure, or a raw `Int32` result: wrappers hand back Swift values or typed errors.
internal import CLibNFC
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// An initialized libnfc context (`nfc_context *`). Owned by ``LibNFCContext``.
struct ContextHandle {
    fileprivate let pointer: OpaquePointer
}

/// An open libnfc device (`nfc_device *`). Owned by whoever opened it, closed exactly once.
struct DeviceHandle {
    fileprivate let pointer: OpaquePointer
}

// MARK: - libnfc

/// `nfc_version`: libnfc's version string, e.g. `1.8.0`.
func libnfcVersion() -> String {
    String(cString: nfc_version())
}

/// `nfc_init`: a new context, having read `/etc/nfc/libnfc.conf` and the `LIBNFC_*`
/// environment variables. `nil` when libnfc could not allocate it.
func libnfcInit() -> ContextHandle? {
    var context: OpaquePointer?
    nfc_init(&context)
    return context.map(ContextHandle.init(pointer:))
}

/// `nfc_list_devices`: the connection strings of at most `maximumCount` devices, those the
/// user configured first, then those the drivers' scans found.
func libnfcListDevices(_ context: ContextHandle, maximumCount: Int) -> [String] {
    guard maximumCount > 0 else { return [] }
    let stride = MemoryLayout<nfc_connstring>.stride
    let connectionStrings = UnsafeMutablePointer<nfc_connstring>.allocate(capacity: maximumCount)
    defer { connectionStrings.deallocate() }
    let characters = UnsafeMutableRawPointer(connectionStrings)
        .initializeMemory(as: CChar.self, repeating: 0, count: maximumCount * stride)
    let found = min(nfc_list_devices(context.pointer, connectionStrings, maximumCount), maximumCount)
    return (0..<found).map { index in
        let bytes = UnsafeBufferPointer(start: characters + index * stride, count: stride)
        let text = bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: text, as: UTF8.self)
    }
}

/// `nfc_open`: the device at `connectionString`, or `nil` when libnfc cannot open it (absent,
/// busy, no permission, or a connection string no driver accepts).
func libnfcOpen(_ context: ContextHandle, connectionString: String) -> DeviceHandle? {
    nfc_open(context.pointer, connectionString).map(DeviceHandle.init(pointer:))
}

/// `nfc_device_get_name`: the device's name as its driver reports it, e.g.
/// `ACS / ACR122U PICC Interface`.
func libnfcDeviceGetName(_ device: DeviceHandle) -> String? {
    nfc_device_get_name(device.pointer).map { String(cString: $0) }
}

/// `nfc_close`: closes the device; the handle must not be used afterwards.
func libnfcClose(_ device: DeviceHandle) {
    nfc_close(device.pointer)
}

// MARK: - libnfc error codes

extension LibNFCError.Code {
    /// The code for a negative libnfc return value; `.unrecognized` for one libnfc 1.8.0 does
    /// not define.
    init(libnfcReturnValue value: Int32) {
        switch value {
        case NFC_EIO: self = .inputOutput
        case NFC_EINVARG: self = .invalidArgument
        case NFC_EDEVNOTSUPP: self = .notSupportedByDevice
        case NFC_ENOTSUCHDEV: self = .noSuchDevice
        case NFC_EOVFLOW: self = .bufferOverflow
        case NFC_ETIMEOUT: self = .timeout
        case NFC_EOPABORTED: self = .operationAborted
        case NFC_ENOTIMPL: self = .notImplemented
        case NFC_ETGRELEASED: self = .targetReleased
        case NFC_ERFTRANS: self = .radioFrequencyTransmission
        case NFC_EMFCAUTHFAIL: self = .mifareClassicAuthenticationFailed
        case NFC_ESOFT: self = .software
        case NFC_ECHIP: self = .chip
        default: self = .unrecognized
        }
    }
}

// MARK: - C library: the environment libnfc reads its log level from

/// `getenv`: the variable's value, or `nil` when it is not set.
func systemGetEnvironment(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
}

/// `setenv` with overwrite: sets the variable for this process (and libnfc, which reads it).
func systemSetEnvironment(_ name: String, _ value: String) {
    _ = setenv(name, value, 1)
}
