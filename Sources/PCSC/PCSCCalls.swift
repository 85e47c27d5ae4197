import CPCSCLite
import NFCCore

// One thin wrapper per SCard* call: C types in, Swift types and PCSCError out. Nothing here
// keeps state; PCSCContext and PCSCReader own the handles. Every call blocks (a round trip to
// pcscd), so callers run them on a thread of their own.
//
// pcsc-lite is not linked: nfctool would map it on every start, also for the many commands that
// never open a reader. ``pcscEstablishContext()`` loads it with `dlopen("libpcsclite.so.1")` on
// first use and throws a ``PCSCError`` when it cannot be loaded; every function is resolved from
// that handle (``PCSCLiteLibrary``), typed by the shim's `cpcsc_fn_NAME` pointer types.
// `CPCSCLite` declares the types and constants itself (no pcsc-lite header, no -I flag, links
// nothing). Every other function takes a context or card, which exists only once pcsc-lite is
// loaded.

/// An `SCARDCONTEXT`.
struct ContextHandle: @unchecked Sendable {
    let raw: SCARDCONTEXT
}

/// An `SCARDHANDLE` and the protocol negotiated for it.
struct CardHandle: @unchecked Sendable {
    let raw: SCARDHANDLE
    let protocolT1: Bool
}

private func check(_ result: LONG, _ call: String) throws(PCSCError) {
    let code = UInt32(truncatingIfNeeded: result)
    if code != 0 { throw PCSCError(code: code, call: call) }
}

/// `SCardEstablishContext(SCARD_SCOPE_SYSTEM)`.
func pcscEstablishContext() throws(PCSCError) -> ContextHandle {
    let lib = try PCSCLiteLibrary.load()
    var context: SCARDCONTEXT = 0
    try check(lib.SCardEstablishContext(DWORD(SCARD_SCOPE_SYSTEM), nil, nil, &context), "SCardEstablishContext")
    return ContextHandle(raw: context)
}

/// `SCardReleaseContext`.
func pcscReleaseContext(_ context: ContextHandle) {
    _ = PCSCLiteLibrary.loaded?.SCardReleaseContext(context.raw)
}

/// `SCardIsValidContext`.
func pcscIsValidContext(_ context: ContextHandle) -> Bool {
    PCSCLiteLibrary.loaded?.SCardIsValidContext(context.raw) == 0
}

/// `SCardListReaders`: the reader names, in pcscd's order; empty when there are none.
func pcscListReaders(_ context: ContextHandle) throws(PCSCError) -> [String] {
    let lib = try PCSCLiteLibrary.load()
    var length: DWORD = 0
    let first = lib.SCardListReaders(context.raw, nil, nil, &length)
    if UInt32(truncatingIfNeeded: first) == PCSCError.noReadersAvailable { return [] }
    try check(first, "SCardListReaders")
    var buffer = [CChar](repeating: 0, count: Int(length))
    let second = buffer.withUnsafeMutableBufferPointer { lib.SCardListReaders(context.raw, nil, $0.baseAddress, &length) }
    if UInt32(truncatingIfNeeded: second) == PCSCError.noReadersAvailable { return [] }
    try check(second, "SCardListReaders")
    // A multi-string: names ended by NUL, the list by an empty name.
    return buffer.prefix(Int(length)).split(separator: 0).map { String(decoding: $0.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
}

/// `SCardConnect` in shared mode, T=0 or T=1.
func pcscConnect(_ context: ContextHandle, reader: String) throws(PCSCError) -> CardHandle {
    let lib = try PCSCLiteLibrary.load()
    var card: SCARDHANDLE = 0
    var active: DWORD = 0
    try check(
        lib.SCardConnect(context.raw, reader, DWORD(SCARD_SHARE_SHARED), DWORD(SCARD_PROTOCOL_T0 | SCARD_PROTOCOL_T1), &card, &active),
        "SCardConnect")
    return CardHandle(raw: card, protocolT1: active == DWORD(SCARD_PROTOCOL_T1))
}

/// `SCardDisconnect`, leaving the card as it is (`SCARD_LEAVE_CARD`) or resetting it.
func pcscDisconnect(_ card: CardHandle, reset: Bool = false) {
    _ = PCSCLiteLibrary.loaded?.SCardDisconnect(card.raw, DWORD(reset ? SCARD_RESET_CARD : SCARD_LEAVE_CARD))
}

/// `SCardStatus`: the card's ATR and state bits.
func pcscStatus(_ card: CardHandle) throws(PCSCError) -> (atr: [UInt8], state: DWORD) {
    let lib = try PCSCLiteLibrary.load()
    var atr = [UInt8](repeating: 0, count: Int(MAX_ATR_SIZE))
    var atrLength = DWORD(atr.count)
    var state: DWORD = 0
    var proto: DWORD = 0
    var nameLength: DWORD = 0
    try check(lib.SCardStatus(card.raw, nil, &nameLength, &state, &proto, &atr, &atrLength), "SCardStatus")
    return (Array(atr.prefix(Int(atrLength))), state)
}

/// `SCardTransmit`: an APDU to the card (or, for class FF, to the reader), its response with
/// SW1 SW2.
func pcscTransmit(_ card: CardHandle, _ apdu: [UInt8]) throws(PCSCError) -> [UInt8] {
    let lib = try PCSCLiteLibrary.load()
    var response = [UInt8](repeating: 0, count: 65_538)
    var length = DWORD(response.count)
    let pci = card.protocolT1 ? lib.g_rgSCardT1Pci : lib.g_rgSCardT0Pci
    try check(lib.SCardTransmit(card.raw, pci, apdu, DWORD(apdu.count), nil, &response, &length), "SCardTransmit")
    return Array(response.prefix(Int(length)))
}

/// `SCardControl`: a reader control code (escape commands), its answer.
func pcscControl(_ card: CardHandle, code: DWORD, _ command: [UInt8]) throws(PCSCError) -> [UInt8] {
    let lib = try PCSCLiteLibrary.load()
    var response = [UInt8](repeating: 0, count: 1024)
    var length: DWORD = 0
    try check(
        lib.SCardControl(card.raw, code, command, DWORD(command.count), &response, DWORD(response.count), &length), "SCardControl")
    return Array(response.prefix(Int(length)))
}

/// `SCardGetStatusChange` on one reader: waits up to `milliseconds` for its state to differ
/// from `current` and returns the new state (`SCARD_STATE_*` bits); `current` back on timeout.
func pcscGetStatusChange(_ context: ContextHandle, reader: String, current: DWORD, milliseconds: DWORD) throws(PCSCError) -> DWORD {
    let lib = try PCSCLiteLibrary.load()
    var state = SCARD_READERSTATE()
    var answer: LONG = 0
    reader.withCString { name in
        state.szReader = name
        state.dwCurrentState = current
        answer = lib.SCardGetStatusChange(context.raw, milliseconds, &state, 1)
    }
    if UInt32(truncatingIfNeeded: answer) == PCSCError.timeout { return current }
    try check(answer, "SCardGetStatusChange")
    return state.dwEventState & ~DWORD(SCARD_STATE_CHANGED)
}

/// `SCardCancel`: ends a `SCardGetStatusChange` blocked on `context` in another thread (with
/// `SCARD_E_CANCELLED`); does nothing when none is waiting. Safe from any thread.
func pcscCancel(_ context: ContextHandle) {
    _ = PCSCLiteLibrary.loaded?.SCardCancel(context.raw)
}

/// `SCARD_STATE_PRESENT`.
let pcscStatePresent = DWORD(SCARD_STATE_PRESENT)
/// `SCARD_STATE_EMPTY`.
let pcscStateEmpty = DWORD(SCARD_STATE_EMPTY)
/// `SCARD_STATE_MUTE`.
let pcscStateMute = DWORD(SCARD_STATE_MUTE)
/// `SCARD_STATE_UNAVAILABLE`.
let pcscStateUnavailable = DWORD(SCARD_STATE_UNAVAILABLE)
/// `SCARD_STATE_UNKNOWN`.
let pcscStateUnknown = DWORD(SCARD_STATE_UNKNOWN)

// MARK: - loading

/// pcsc-lite's functions, resolved from a `dlopen` handle: loaded once per process, when a PC/SC
/// reader is first listed or opened, and never closed (contexts and cards outlive any one
/// call). Each field is named after, and typed as, the C function (the shim's `cpcsc_fn_NAME`).
struct PCSCLiteLibrary: @unchecked Sendable {
    /// The library's file name: its soname, `libpcsclite.so.1` for pcsc-lite 1.x and 2.x
    /// (Debian's package: libpcsclite1).
    static let soname = "libpcsclite.so.1"

    /// pcsc-lite, loaded on first use (thread-safe: a `static let`), or why it could not be.
    static let shared: Result<PCSCLiteLibrary, PCSCError> = load(soname)

    /// pcsc-lite, loaded on first use.
    /// - Throws: ``PCSCError`` (`SCARD_E_NO_SERVICE`) saying pcsc-lite cannot be loaded and how
    ///   to install it.
    static func load() throws(PCSCError) -> PCSCLiteLibrary { try shared.get() }

    /// pcsc-lite when it is loaded. Only a context or card leads to a call through here, and one
    /// exists only after ``shared`` loaded.
    static var loaded: PCSCLiteLibrary? { try? shared.get() }

    let SCardEstablishContext: cpcsc_fn_SCardEstablishContext
    let SCardReleaseContext: cpcsc_fn_SCardReleaseContext
    let SCardIsValidContext: cpcsc_fn_SCardIsValidContext
    let SCardListReaders: cpcsc_fn_SCardListReaders
    let SCardConnect: cpcsc_fn_SCardConnect
    let SCardDisconnect: cpcsc_fn_SCardDisconnect
    let SCardStatus: cpcsc_fn_SCardStatus
    let SCardTransmit: cpcsc_fn_SCardTransmit
    let SCardControl: cpcsc_fn_SCardControl
    let SCardGetStatusChange: cpcsc_fn_SCardGetStatusChange
    let SCardCancel: cpcsc_fn_SCardCancel
    /// The protocol control information of T=0 (`SCARD_PCI_T0`), pcsc-lite's constant.
    let g_rgSCardT0Pci: UnsafePointer<SCARD_IO_REQUEST>
    /// The protocol control information of T=1 (`SCARD_PCI_T1`), pcsc-lite's constant.
    let g_rgSCardT1Pci: UnsafePointer<SCARD_IO_REQUEST>

    /// Opens `file` (``DynamicLibrary``) and resolves every function this wrapper calls; the error
    /// names the library and what the loader said (the file is missing, a symbol is absent).
    static func load(_ file: String) -> Result<PCSCLiteLibrary, PCSCError> {
        do throws(DynamicLibraryError) {
            let library = try DynamicLibrary.open(file)
            do throws(DynamicLibraryError) {
                return .success(try PCSCLiteLibrary(library))
            } catch {
                library.close()  // not the pcsc-lite wanted
                throw error
            }
        } catch {
            switch error.kind {
            case .notLoadable(let reason):
                return .failure(PCSCError(
                    code: PCSCError.noService, call: "dlopen",
                    detail: "a PC/SC reader needs pcsc-lite, which cannot be loaded (\(reason)); install it (Debian: apt install libpcsclite1 pcscd)"))
            case .missingSymbol(let symbol):
                return .failure(PCSCError(
                    code: PCSCError.noService, call: "dlsym",
                    detail: "the pcsc-lite loaded from \(file) has no \(symbol); a PC/SC reader needs pcsc-lite 1.8 or later"))
            }
        }
    }

    /// Resolves each function from `library`.
    private init(_ library: DynamicLibrary) throws(DynamicLibraryError) {
        SCardEstablishContext = try library.function("SCardEstablishContext")
        SCardReleaseContext = try library.function("SCardReleaseContext")
        SCardIsValidContext = try library.function("SCardIsValidContext")
        SCardListReaders = try library.function("SCardListReaders")
        SCardConnect = try library.function("SCardConnect")
        SCardDisconnect = try library.function("SCardDisconnect")
        SCardStatus = try library.function("SCardStatus")
        SCardTransmit = try library.function("SCardTransmit")
        SCardControl = try library.function("SCardControl")
        SCardGetStatusChange = try library.function("SCardGetStatusChange")
        SCardCancel = try library.function("SCardCancel")
        g_rgSCardT0Pci = try library.data("g_rgSCardT0Pci", as: SCARD_IO_REQUEST.self)
        g_rgSCardT1Pci = try library.data("g_rgSCardT1Pci", as: SCARD_IO_REQUEST.self)
    }
}
