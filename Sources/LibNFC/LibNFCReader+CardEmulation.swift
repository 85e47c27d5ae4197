public import NFCCore
public import NFCTags

/// Target mode: the reader acts as an ISO/IEC 14443-4 card (libnfc's `nfc_target_*`), on the
/// device's own thread like every other libnfc call.
extension LibNFCReader: NFCCardEmulator {
    public func waitForExternalReader(as identity: EmulatedCardIdentity, timeout: Duration) async throws(NFCReaderDeviceError) -> Bool {
        let device = try openDevice()
        do {
            try libnfcTargetInit(device, uid: identity.uid.array, atqa: identity.atqa.array, sak: identity.sak,
                                 timeoutMilliseconds: Self.milliseconds(timeout))
            return true
        } catch where error.code == .timeout || error.code == .operationAborted {
            return false
        } catch where error.code == .notSupportedByDevice || error.code == .notImplemented {
            throw NFCReaderDeviceError(.notSupported, "\(connectionString) has no target mode (card emulation needs a PN53x reader): \(error.reason)")
        } catch {
            throw Self.readerError(error)
        }
    }

    public func receiveCommand(timeout: Duration) async throws(NFCReaderDeviceError) -> Bytes {
        let device = try openDevice()
        do {
            return Bytes(try libnfcTargetReceive(device, timeoutMilliseconds: Self.milliseconds(timeout)))
        } catch {
            throw Self.readerError(error)
        }
    }

    public func sendResponse(_ response: Bytes, timeout: Duration) async throws(NFCReaderDeviceError) {
        let device = try openDevice()
        do {
            try libnfcTargetSend(device, response.array, timeoutMilliseconds: Self.milliseconds(timeout))
        } catch {
            throw Self.readerError(error)
        }
    }

    /// Whether libnfc says the chip has ISO 14443-A target mode (PN53x chips do).
    public var supportsTargetMode: Bool {
        guard let device = try? openDevice() else { return false }
        return libnfcSupportedModulationTypes(device, asTarget: true).contains(.iso14443A)
    }

    public func endEmulation() async {
        guard let device = try? openDevice() else { return }
        try? libnfcIdle(device)
    }

    /// A libnfc timeout: whole milliseconds, at least 1 (0 would mean for ever).
    static func milliseconds(_ duration: Duration) -> Int32 {
        let parts = duration.components
        return Int32(clamping: max(1, parts.seconds * 1000 + parts.attoseconds / 1_000_000_000_000_000))
    }
}
