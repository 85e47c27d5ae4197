import CPCSCLite
import NFCCore

// One thin wrapper per SCard* call: C types in, Swift types and PCSCError out. Nothing here
// keeps state; PCSCContext and PCSCReader own the handles. Every call blocks (a round trip to
// pcscd), so callers run them on a thread of their own.

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
    var context: SCARDCONTEXT = 0
    try check(SCardEstablishContext(DWORD(SCARD_SCOPE_SYSTEM), nil, nil, &context), "SCardEstablishContext")
    return ContextHandle(raw: context)
}

/// `SCardReleaseContext`.
func pcscReleaseContext(_ context: ContextHandle) {
    _ = SCardReleaseContext(context.raw)
}

/// `SCardIsValidContext`.
func pcscIsValidContext(_ context: ContextHandle) -> Bool {
    SCardIsValidContext(context.raw) == 0
}

/// `SCardListReaders`: the reader names, in pcscd's order; empty when there are none.
func pcscListReaders(_ context: ContextHandle) throws(PCSCError) -> [String] {
    var length: DWORD = 0
    let first = SCardListReaders(context.raw, nil, nil, &length)
    if UInt32(truncatingIfNeeded: first) == PCSCError.noReadersAvailable { return [] }
    try check(first, "SCardListReaders")
    var buffer = [CChar](repeating: 0, count: Int(length))
    let second = buffer.withUnsafeMutableBufferPointer { SCardListReaders(context.raw, nil, $0.baseAddress, &length) }
    if UInt32(truncatingIfNeeded: second) == PCSCError.noReadersAvailable { return [] }
    try check(second, "SCardListReaders")
    // A multi-string: names ended by NUL, the list by an empty name.
    return buffer.prefix(Int(length)).split(separator: 0).map { String(decoding: $0.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
}

/// `SCardConnect` in shared mode, T=0 or T=1.
func pcscConnect(_ context: ContextHandle, reader: String) throws(PCSCError) -> CardHandle {
    var card: SCARDHANDLE = 0
    var active: DWORD = 0
    try check(
        SCardConnect(context.raw, reader, DWORD(SCARD_SHARE_SHARED), DWORD(SCARD_PROTOCOL_T0 | SCARD_PROTOCOL_T1), &card, &active),
        "SCardConnect")
    return CardHandle(raw: card, protocolT1: active == DWORD(SCARD_PROTOCOL_T1))
}

/// `SCardDisconnect`, leaving the card as it is (`SCARD_LEAVE_CARD`) or resetting it.
func pcscDisconnect(_ card: CardHandle, reset: Bool = false) {
    _ = SCardDisconnect(card.raw, DWORD(reset ? SCARD_RESET_CARD : SCARD_LEAVE_CARD))
}

/// `SCardStatus`: the card's ATR and state bits.
func pcscStatus(_ card: CardHandle) throws(PCSCError) -> (atr: [UInt8], state: DWORD) {
    var atr = [UInt8](repeating: 0, count: Int(MAX_ATR_SIZE))
    var atrLength = DWORD(atr.count)
    var state: DWORD = 0
    var proto: DWORD = 0
    var nameLength: DWORD = 0
    try check(SCardStatus(card.raw, nil, &nameLength, &state, &proto, &atr, &atrLength), "SCardStatus")
    return (Array(atr.prefix(Int(atrLength))), state)
}

/// `SCardTransmit`: an APDU to the card (or, for class FF, to the reader), its response with
/// SW1 SW2.
func pcscTransmit(_ card: CardHandle, _ apdu: [UInt8]) throws(PCSCError) -> [UInt8] {
    var response = [UInt8](repeating: 0, count: 65_538)
    var length = DWORD(response.count)
    let pci = card.protocolT1 ? nfckit_pcsc_pci_t1() : nfckit_pcsc_pci_t0()
    try check(SCardTransmit(card.raw, pci, apdu, DWORD(apdu.count), nil, &response, &length), "SCardTransmit")
    return Array(response.prefix(Int(length)))
}

/// `SCardControl`: a reader control code (escape commands), its answer.
func pcscControl(_ card: CardHandle, code: DWORD, _ command: [UInt8]) throws(PCSCError) -> [UInt8] {
    var response = [UInt8](repeating: 0, count: 1024)
    var length: DWORD = 0
    try check(
        SCardControl(card.raw, code, command, DWORD(command.count), &response, DWORD(response.count), &length), "SCardControl")
    return Array(response.prefix(Int(length)))
}

/// `SCardGetStatusChange` on one reader: waits up to `milliseconds` for its state to differ
/// from `current` and returns the new state (`SCARD_STATE_*` bits); `current` back on timeout.
func pcscGetStatusChange(_ context: ContextHandle, reader: String, current: DWORD, milliseconds: DWORD) throws(PCSCError) -> DWORD {
    var state = SCARD_READERSTATE()
    var answer: LONG = 0
    reader.withCString { name in
        state.szReader = name
        state.dwCurrentState = current
        answer = SCardGetStatusChange(context.raw, milliseconds, &state, 1)
    }
    if UInt32(truncatingIfNeeded: answer) == PCSCError.timeout { return current }
    try check(answer, "SCardGetStatusChange")
    return state.dwEventState & ~DWORD(SCARD_STATE_CHANGED)
}

/// `SCardCancel`: ends a `SCardGetStatusChange` blocked on `context` in another thread (with
/// `SCARD_E_CANCELLED`); does nothing when none is waiting. Safe from any thread.
func pcscCancel(_ context: ContextHandle) {
    _ = SCardCancel(context.raw)
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
