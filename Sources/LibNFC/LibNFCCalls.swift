// Every C call the LibNFC target makes, each wrapped exactly once (after swift-system's
// `Internals/Syscalls.swift`). Nothing above this file sees a libnfc type, a C pointer to a
// libnfc structure, or a raw `Int32` result: wrappers hand back Swift values or typed errors.
//
// libnfc is not linked: nfctool would map it and libusb on every start, also for the many
// commands that never open a reader. ``libnfcInit()`` and ``libnfcVersion()`` load it with
// `dlopen("libnfc.so.6")` on first use and throw a ``LibNFCError`` when it cannot be loaded;
// every function is resolved from that handle (``LibNFCLibrary``), typed by the shim's
// `clibnfc_fn_NAME` pointer types. `CLibNFC` gives the types and constants only (its module map
// links nothing). Every other function takes a context or device, which exists only once libnfc
// is loaded.
internal import CLibNFC
internal import NFCCore
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
///
/// Sendable because ownership moves once, from the context actor that opens it to the device
/// actor that uses and closes it; it is never used from two places.
struct DeviceHandle: @unchecked Sendable {
    fileprivate let pointer: OpaquePointer
}

/// A selected target as libnfc describes it (`nfc_target`), kept for presence checks.
struct TargetHandle: @unchecked Sendable {
    fileprivate var target: nfc_target
}

// MARK: - libnfc

/// `nfc_version`: libnfc's version string, e.g. `1.8.0`. Loads libnfc on first use.
/// - Throws: ``LibNFCError`` `software` when libnfc cannot be loaded.
func libnfcVersion() throws(LibNFCError) -> String {
    try LibNFCLibrary.load().nfc_version().map { String(cString: $0) } ?? "unknown"
}

/// `nfc_init`: a new context, having read `/etc/nfc/libnfc.conf` and the `LIBNFC_*`
/// environment variables. `nil` when libnfc could not allocate it. Loads libnfc on first use.
/// - Throws: ``LibNFCError`` `software` when libnfc cannot be loaded.
func libnfcInit() throws(LibNFCError) -> ContextHandle? {
    let lib = try LibNFCLibrary.load()
    var context: OpaquePointer?
    lib.nfc_init(&context)
    return context.map(ContextHandle.init(pointer:))
}

/// `nfc_list_devices`: the connection strings of at most `maximumCount` devices, those the
/// user configured first, then those the drivers' scans found.
func libnfcListDevices(_ context: ContextHandle, maximumCount: Int) -> [String] {
    guard maximumCount > 0, let lib = LibNFCLibrary.loaded else { return [] }
    let stride = MemoryLayout<nfc_connstring>.stride
    let connectionStrings = UnsafeMutablePointer<nfc_connstring>.allocate(capacity: maximumCount)
    defer { connectionStrings.deallocate() }
    let characters = UnsafeMutableRawPointer(connectionStrings)
        .initializeMemory(as: CChar.self, repeating: 0, count: maximumCount * stride)
    let found = min(lib.nfc_list_devices(context.pointer, connectionStrings, maximumCount), maximumCount)
    return (0..<found).map { index in
        let bytes = UnsafeBufferPointer(start: characters + index * stride, count: stride)
        let text = bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: text, as: UTF8.self)
    }
}

/// `nfc_open`: the device at `connectionString`, or `nil` when libnfc cannot open it (absent,
/// busy, no permission, or a connection string no driver accepts).
func libnfcOpen(_ context: ContextHandle, connectionString: String) -> DeviceHandle? {
    LibNFCLibrary.loaded?.nfc_open(context.pointer, connectionString).map(DeviceHandle.init(pointer:))
}

/// `nfc_device_get_name`: the device's name as its driver reports it, e.g.
/// `ACS / ACR122U PICC Interface`.
func libnfcDeviceGetName(_ device: DeviceHandle) -> String? {
    LibNFCLibrary.loaded?.nfc_device_get_name(device.pointer).map { String(cString: $0) }
}

/// `nfc_device_get_information_about`: the driver's description of the device (`chip: PN532
/// v1.6`, its modulations and baud rates), freed with `nfc_free`. The PN53x driver asks the chip
/// for its firmware version (GetFirmwareVersion) to say it. `nil` when the driver fails
/// (a negative libnfc error, e.g. `NFC_EIO`) or gives no text.
func libnfcDeviceGetInformationAbout(_ device: DeviceHandle) -> String? {
    guard let library = LibNFCLibrary.loaded else { return nil }
    var buffer: UnsafeMutablePointer<CChar>?
    let result = library.nfc_device_get_information_about(device.pointer, &buffer)
    guard let buffer else { return nil }
    defer { library.nfc_free(buffer) }
    return result >= 0 ? String(cString: buffer) : nil
}

/// `nfc_close`: closes the device; the handle must not be used afterwards.
func libnfcClose(_ device: DeviceHandle) {
    LibNFCLibrary.loaded?.nfc_close(device.pointer)
}

/// `nfc_open` with no connection string: libnfc's default device (`LIBNFC_DEFAULT_DEVICE`,
/// `/etc/nfc/libnfc.conf`, else the first device its scan finds).
func libnfcOpenDefault(_ context: ContextHandle) -> DeviceHandle? {
    LibNFCLibrary.loaded?.nfc_open(context.pointer, nil).map(DeviceHandle.init(pointer:))
}

/// `nfc_initiator_init`: puts the device in initiator (reader) mode, field on.
func libnfcInitiatorInit(_ device: DeviceHandle) throws(LibNFCError) {
    try check(try LibNFCLibrary.load().nfc_initiator_init(device.pointer), device, "initializing the reader as initiator")
}

/// The libnfc properties NFCKit sets.
enum DeviceProperty {
    /// `NP_INFINITE_SELECT`: whether selecting waits forever for a tag.
    case infiniteSelect
    /// `NP_EASY_FRAMING`: whether the chip frames exchanges (InDataExchange) or passes raw
    /// frames (InCommunicateThru).
    case easyFraming
    /// `NP_AUTO_ISO14443_4`: whether ISO-DEP tags are activated (RATS) on select.
    case autoISO14443_4
    /// `NP_HANDLE_CRC`: whether the chip adds and checks CRCs.
    case handleCRC
    /// `NP_ACTIVATE_FIELD`: whether the RF field is on; off then on resets every tag in it.
    case activateField

    fileprivate var cValue: nfc_property {
        switch self {
        case .infiniteSelect: NP_INFINITE_SELECT
        case .easyFraming: NP_EASY_FRAMING
        case .autoISO14443_4: NP_AUTO_ISO14443_4
        case .handleCRC: NP_HANDLE_CRC
        case .activateField: NP_ACTIVATE_FIELD
        }
    }
}

/// `nfc_device_set_property_bool`.
func libnfcSetProperty(_ device: DeviceHandle, _ property: DeviceProperty, _ enabled: Bool) throws(LibNFCError) {
    try check(try LibNFCLibrary.load().nfc_device_set_property_bool(device.pointer, property.cValue, enabled), device,
              "setting a reader property")
}

/// `nfc_device_get_supported_modulation` in initiator mode (or target mode), as modulation types libnfc names.
func libnfcSupportedModulationTypes(_ device: DeviceHandle, asTarget: Bool = false) -> [LibNFCModulationType] {
    var types: UnsafePointer<nfc_modulation_type>?
    guard let lib = LibNFCLibrary.loaded, lib.nfc_device_get_supported_modulation(device.pointer, asTarget ? N_TARGET : N_INITIATOR, &types) >= 0, let types else { return [] }
    var out: [LibNFCModulationType] = []
    var i = 0
    while types[i].rawValue != 0 && i < 32 {
        if let known = LibNFCModulationType(cValue: types[i]) { out.append(known) }
        i += 1
    }
    return out
}

/// The libnfc modulation types NFCKit polls with.
enum LibNFCModulationType: Sendable, Hashable {
    case iso14443A, jewel, iso14443B, felica, dep, other

    init?(cValue: nfc_modulation_type) {
        switch cValue {
        case NMT_ISO14443A: self = .iso14443A
        case NMT_JEWEL: self = .jewel
        case NMT_ISO14443B: self = .iso14443B
        case NMT_FELICA: self = .felica
        case NMT_DEP: self = .dep
        default: self = .other
        }
    }
}

/// libnfc's description of a passive modulation at `bitRate` kbit/s (106 unless 212 or 424).
private func passiveModulation(_ type: LibNFCModulationType, bitRate: Int) throws(LibNFCError) -> nfc_modulation {
    var modulation = nfc_modulation()
    switch type {
    case .iso14443A: modulation.nmt = NMT_ISO14443A
    case .jewel: modulation.nmt = NMT_JEWEL
    case .iso14443B: modulation.nmt = NMT_ISO14443B
    case .felica: modulation.nmt = NMT_FELICA
    case .dep, .other: throw LibNFCError(.invalidArgument, "modulation not used for passive selection")
    }
    modulation.nbr = bitRate == 424 ? NBR_424 : bitRate == 212 ? NBR_212 : NBR_106
    return modulation
}

/// `nfc_initiator_select_passive_target`: selects a tag of one modulation if one answers.
/// - Returns: the target, or `nil` when none answered.
func libnfcSelectPassiveTarget(
    _ device: DeviceHandle, _ type: LibNFCModulationType, bitRate: Int, initData: [UInt8]
) throws(LibNFCError) -> TargetHandle? {
    let lib = try LibNFCLibrary.load()
    let modulation = try passiveModulation(type, bitRate: bitRate)
    var target = nfc_target()
    let result = initData.withUnsafeBufferPointer { data in
        lib.nfc_initiator_select_passive_target(device.pointer, modulation, data.baseAddress, data.count, &target)
    }
    if result == 0 { return nil }
    try check(result, device, "selecting a tag")
    return TargetHandle(target: target)
}

/// `nfc_initiator_list_passive_targets`: every ISO 14443-A (or other `type`) target in the
/// field, up to `limit`. libnfc selects, deselects and selects again until a target comes
/// twice, so which one is left selected is not defined: select the wanted one afterwards.
func libnfcListPassiveTargets(
    _ device: DeviceHandle, _ type: LibNFCModulationType, bitRate: Int, limit: Int
) throws(LibNFCError) -> [TargetHandle] {
    let lib = try LibNFCLibrary.load()
    let modulation = try passiveModulation(type, bitRate: bitRate)
    var targets = [nfc_target](repeating: nfc_target(), count: max(limit, 1))
    let result = targets.withUnsafeMutableBufferPointer { buffer in
        lib.nfc_initiator_list_passive_targets(device.pointer, modulation, buffer.baseAddress, buffer.count)
    }
    try check(result, device, "listing the tags in the field")
    return targets.prefix(Int(result)).map { TargetHandle(target: $0) }
}

/// `nfc_initiator_transceive_bytes`: sends a frame to the selected target and returns its
/// answer (at most 264 bytes), waiting at most `timeoutMilliseconds` (0: libnfc's default).
func libnfcTransceive(_ device: DeviceHandle, _ frame: [UInt8], timeoutMilliseconds: Int32) throws(LibNFCError) -> [UInt8] {
    let lib = try LibNFCLibrary.load()
    var answer = [UInt8](repeating: 0, count: 264)
    let count = frame.withUnsafeBufferPointer { tx in
        answer.withUnsafeMutableBufferPointer { rx in
            lib.nfc_initiator_transceive_bytes(device.pointer, tx.baseAddress, tx.count, rx.baseAddress, rx.count, Int32(timeoutMilliseconds))
        }
    }
    try check(count, device, "exchanging a frame with the tag")
    return Array(answer.prefix(Int(count)))
}

/// `nfc_initiator_target_is_present`: whether the selected target still answers.
func libnfcTargetIsPresent(_ device: DeviceHandle, _ target: TargetHandle) -> Bool {
    guard let lib = LibNFCLibrary.loaded else { return false }
    var copy = target.target
    return lib.nfc_initiator_target_is_present(device.pointer, &copy) == 0
}

/// `nfc_initiator_deselect_target`.
func libnfcDeselect(_ device: DeviceHandle) throws(LibNFCError) {
    try check(try LibNFCLibrary.load().nfc_initiator_deselect_target(device.pointer), device, "deselecting the tag")
}

// MARK: - Target mode (card emulation)

/// `nfc_target_init` with an ISO/IEC 14443-4 type A target: the chip waits (at most
/// `timeoutMilliseconds`, 0 for ever) for an external reader to select it and send RATS,
/// which a PN532 answers itself. `uid` is 4 bytes, the first `08` (the PN53x hard-wires it);
/// `atqa` is SENS_RES in over-the-air order; SAK should have bit 6 (`20`, ISO/IEC 14443-4).
/// - Throws: ``LibNFCError`` `timeout` when no reader came; `notSupportedByDevice` from
///   drivers without target mode (only the PN53x family has one); `invalidArgument` for a UID
///   the chip cannot announce.
func libnfcTargetInit(
    _ device: DeviceHandle, uid: [UInt8], atqa: [UInt8], sak: UInt8, timeoutMilliseconds: Int32
) throws(LibNFCError) {
    guard uid.count == 4, atqa.count == 2 else { throw LibNFCError(.invalidArgument, "a target needs a 4-byte UID and a 2-byte ATQA") }
    let lib = try LibNFCLibrary.load()
    var target = nfc_target()
    target.nm.nmt = NMT_ISO14443A
    target.nm.nbr = NBR_UNDEFINED
    // libnfc keeps SENS_RES most significant byte first, the reverse of the air order.
    withUnsafeMutableBytes(of: &target.nti.nai.abtAtqa) { $0[0] = atqa[1]; $0[1] = atqa[0] }
    withUnsafeMutableBytes(of: &target.nti.nai.abtUid) { bytes in
        for (index, byte) in uid.enumerated() { bytes[index] = byte }
    }
    target.nti.nai.szUidLen = 4
    target.nti.nai.btSak = sak
    target.nti.nai.szAtsLen = 0
    var received = [UInt8](repeating: 0, count: 264)
    let result = received.withUnsafeMutableBufferPointer { rx in
        lib.nfc_target_init(device.pointer, &target, rx.baseAddress, rx.count, timeoutMilliseconds)
    }
    try check(result, device, "waiting for an external reader in target mode")
}

/// `nfc_target_receive_bytes`: the next command the external reader sent (an APDU, with ISO
/// 14443-4 handled by the chip), waiting at most `timeoutMilliseconds` (0 for ever).
/// - Throws: ``LibNFCError`` `targetReleased` when the reader released the target or left the
///   field, `timeout` when it sent nothing in time.
func libnfcTargetReceive(_ device: DeviceHandle, timeoutMilliseconds: Int32) throws(LibNFCError) -> [UInt8] {
    let lib = try LibNFCLibrary.load()
    var received = [UInt8](repeating: 0, count: 264)
    let count = received.withUnsafeMutableBufferPointer { rx in
        lib.nfc_target_receive_bytes(device.pointer, rx.baseAddress, rx.count, timeoutMilliseconds)
    }
    try check(count, device, "receiving from the external reader")
    return Array(received.prefix(Int(count)))
}

/// `nfc_target_send_bytes`: answers the external reader's last command.
/// - Throws: ``LibNFCError`` `targetReleased` when the reader is gone.
func libnfcTargetSend(_ device: DeviceHandle, _ bytes: [UInt8], timeoutMilliseconds: Int32) throws(LibNFCError) {
    let lib = try LibNFCLibrary.load()
    let result = bytes.withUnsafeBufferPointer { tx in
        lib.nfc_target_send_bytes(device.pointer, tx.baseAddress, tx.count, timeoutMilliseconds)
    }
    try check(result, device, "answering the external reader")
}

/// `nfc_idle`: ends target mode (the PN532 releases and powers down until the next command).
func libnfcIdle(_ device: DeviceHandle) throws(LibNFCError) {
    try check(try LibNFCLibrary.load().nfc_idle(device.pointer), device, "ending target mode")
}

/// Throws the typed error for a negative libnfc result (`nfc_strerror` gives the words).
private func check(_ result: Int32, _ device: DeviceHandle, _ doing: String) throws(LibNFCError) {
    guard result < 0 else { return }
    let words = LibNFCLibrary.loaded?.nfc_strerror(device.pointer).map { String(cString: $0) } ?? "error \(result)"
    throw LibNFCError(LibNFCError.Code(libnfcReturnValue: result), "\(doing): \(words)")
}

// MARK: - Reading nfc_target

/// What an `nfc_target` holds, as Swift values.
enum DecodedTarget {
    case iso14443A(atqa: [UInt8], sak: UInt8, uid: [UInt8], atsWithoutTL: [UInt8])
    case felica(idm: [UInt8], pmm: [UInt8], systemCode: [UInt8], bitRate: Int)
    case iso14443B(pupi: [UInt8], applicationData: [UInt8], protocolInfo: [UInt8])
    case jewel(sensRes: [UInt8], id: [UInt8])
    case other
}

/// Copies the fields of a selected target out of libnfc's union.
func libnfcDecodeTarget(_ handle: TargetHandle) -> DecodedTarget {
    let t = handle.target
    func bytes<T>(_ tuple: T, _ count: Int) -> [UInt8] {
        withUnsafeBytes(of: tuple) { Array($0.prefix(max(0, min(count, $0.count)))) }
    }
    switch t.nm.nmt {
    case NMT_ISO14443A:
        let a = t.nti.nai
        return .iso14443A(atqa: bytes(a.abtAtqa, 2), sak: a.btSak, uid: bytes(a.abtUid, a.szUidLen),
                          atsWithoutTL: bytes(a.abtAts, a.szAtsLen))
    case NMT_FELICA:
        let f = t.nti.nfi
        return .felica(idm: bytes(f.abtId, 8), pmm: bytes(f.abtPad, 8), systemCode: bytes(f.abtSysCode, 2),
                       bitRate: t.nm.nbr == NBR_424 ? 424 : 212)
    case NMT_ISO14443B:
        let b = t.nti.nbi
        return .iso14443B(pupi: bytes(b.abtPupi, 4), applicationData: bytes(b.abtApplicationData, 4),
                          protocolInfo: bytes(b.abtProtocolInfo, 3))
    case NMT_JEWEL:
        let j = t.nti.nji
        return .jewel(sensRes: bytes(j.btSensRes, 2), id: bytes(j.btId, 4))
    default:
        return .other
    }
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

// MARK: - loading

/// libnfc's functions, resolved from a `dlopen` handle: loaded once per process, when a libnfc
/// reader is first listed or opened, and never closed (a context and its devices live as long
/// as the process). Each field is named after, and typed as, the C function (the shim's
/// `clibnfc_fn_NAME`).
struct LibNFCLibrary: Sendable {
    /// The library's file name: its soname, `libnfc.so.6` for libnfc 1.7 and 1.8 (Debian's
    /// package: libnfc6).
    static let soname = "libnfc.so.6"

    /// libnfc, loaded on first use (thread-safe: a `static let`), or why it could not be.
    static let shared: Result<LibNFCLibrary, LibNFCError> = load(soname)

    /// libnfc, loaded on first use.
    /// - Throws: ``LibNFCError`` `software` saying libnfc cannot be loaded and how to install it.
    static func load() throws(LibNFCError) -> LibNFCLibrary { try shared.get() }

    /// libnfc when it is loaded. Only a context or device leads to a call through here, and one
    /// exists only after ``shared`` loaded.
    static var loaded: LibNFCLibrary? { try? shared.get() }

    let nfc_version: clibnfc_fn_nfc_version
    let nfc_init: clibnfc_fn_nfc_init
    let nfc_list_devices: clibnfc_fn_nfc_list_devices
    let nfc_open: clibnfc_fn_nfc_open
    let nfc_close: clibnfc_fn_nfc_close
    let nfc_device_get_name: clibnfc_fn_nfc_device_get_name
    let nfc_initiator_init: clibnfc_fn_nfc_initiator_init
    let nfc_device_set_property_bool: clibnfc_fn_nfc_device_set_property_bool
    let nfc_device_get_supported_modulation: clibnfc_fn_nfc_device_get_supported_modulation
    let nfc_initiator_select_passive_target: clibnfc_fn_nfc_initiator_select_passive_target
    let nfc_initiator_list_passive_targets: clibnfc_fn_nfc_initiator_list_passive_targets
    let nfc_initiator_transceive_bytes: clibnfc_fn_nfc_initiator_transceive_bytes
    let nfc_initiator_target_is_present: clibnfc_fn_nfc_initiator_target_is_present
    let nfc_initiator_deselect_target: clibnfc_fn_nfc_initiator_deselect_target
    let nfc_target_init: clibnfc_fn_nfc_target_init
    let nfc_target_receive_bytes: clibnfc_fn_nfc_target_receive_bytes
    let nfc_target_send_bytes: clibnfc_fn_nfc_target_send_bytes
    let nfc_idle: clibnfc_fn_nfc_idle
    let nfc_strerror: clibnfc_fn_nfc_strerror
    let nfc_device_get_information_about: clibnfc_fn_nfc_device_get_information_about
    let nfc_free: clibnfc_fn_nfc_free

    /// Opens `file` (``DynamicLibrary``) and resolves every function this wrapper calls; the error
    /// names the library and what the loader said (the file is missing, a symbol is absent).
    static func load(_ file: String) -> Result<LibNFCLibrary, LibNFCError> {
        do throws(DynamicLibraryError) {
            let library = try DynamicLibrary.open(file)
            do throws(DynamicLibraryError) {
                return .success(try LibNFCLibrary(library))
            } catch {
                library.close()  // not the libnfc wanted
                throw error
            }
        } catch {
            switch error.kind {
            case .notLoadable(let reason):
                return .failure(LibNFCError(
                    .software, "a libnfc reader needs libnfc, which cannot be loaded (\(reason)); install it (Debian: apt install libnfc6)"))
            case .missingSymbol(let symbol):
                return .failure(LibNFCError(
                    .software, "the libnfc loaded from \(file) has no \(symbol); a libnfc reader needs libnfc 1.7 or later"))
            }
        }
    }

    /// Resolves each function from `library`.
    private init(_ library: DynamicLibrary) throws(DynamicLibraryError) {
        nfc_version = try library.function("nfc_version")
        nfc_init = try library.function("nfc_init")
        nfc_list_devices = try library.function("nfc_list_devices")
        nfc_open = try library.function("nfc_open")
        nfc_close = try library.function("nfc_close")
        nfc_device_get_name = try library.function("nfc_device_get_name")
        nfc_initiator_init = try library.function("nfc_initiator_init")
        nfc_device_set_property_bool = try library.function("nfc_device_set_property_bool")
        nfc_device_get_supported_modulation = try library.function("nfc_device_get_supported_modulation")
        nfc_initiator_select_passive_target = try library.function("nfc_initiator_select_passive_target")
        nfc_initiator_list_passive_targets = try library.function("nfc_initiator_list_passive_targets")
        nfc_initiator_transceive_bytes = try library.function("nfc_initiator_transceive_bytes")
        nfc_initiator_target_is_present = try library.function("nfc_initiator_target_is_present")
        nfc_initiator_deselect_target = try library.function("nfc_initiator_deselect_target")
        nfc_target_init = try library.function("nfc_target_init")
        nfc_target_receive_bytes = try library.function("nfc_target_receive_bytes")
        nfc_target_send_bytes = try library.function("nfc_target_send_bytes")
        nfc_idle = try library.function("nfc_idle")
        nfc_strerror = try library.function("nfc_strerror")
        nfc_device_get_information_about = try library.function("nfc_device_get_information_about")
        nfc_free = try library.function("nfc_free")
    }
}
