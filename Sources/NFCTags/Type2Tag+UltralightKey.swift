import NFCCore

/// What the MIFARE Ultralight C and Ultralight AES share on the reader's side: the mutual
/// authentication's exchange, writing a key's four pages, and selecting the tag again.
extension Type2Tag {
    /// Runs the mutual authentication with `key` under `keyNumber`
    /// (``UltralightMutualAuthentication``), RndA from the system's secure random source.
    /// `refusal` is the error a NAK to the first step becomes.
    /// Returns RndA and RndB, from which an Ultralight AES session key is derived.
    /// - Throws: ``NFCTagError``: `refusal`; `authenticationFailed` when the chip refuses the
    ///   second step (a wrong key) or its answer does not prove the key; `connectionLost`.
    @discardableResult
    func authenticateMutually<Scheme>(
        key: UltralightSecretKey<Scheme>, keyNumber: UInt8, refusal: (code: NFCTagError.Code, message: String)
    ) async throws(NFCTagError) -> (rndA: [UInt8], rndB: [UInt8]) {
        ultralightAESSession.start(nil)
        let first: Bytes
        do {
            first = try await reader.transceive(Bytes([UltralightCCommand.authenticate, keyNumber]), mode: .standard, timeout: commandTimeout)
        } catch where error.code == .nak {
            throw NFCTagError(refusal.code, refusal.message, readerError: error)
        } catch {
            throw NFCTagError(error, during: "AUTHENTICATE")
        }
        let rndA = UltralightMutualAuthentication<Scheme>.systemRandom()
        let (command, finalIV) = try UltralightMutualAuthentication<Scheme>.secondStep(key: key, answer: first, rndA: rndA)
        let last: Bytes
        do {
            last = try await reader.transceive(Bytes(command), mode: .standard, timeout: commandTimeout)
        } catch where error.code == .nak || error.code == .authenticationFailed {
            throw NFCTagError(.authenticationFailed, "the tag refused the key (\(Scheme.cipherName) authentication failed)", readerError: error)
        } catch {
            throw NFCTagError(error, during: "AUTHENTICATE (second step)")
        }
        try UltralightMutualAuthentication<Scheme>.checkFinalAnswer(key: key, answer: last, rndA: rndA, finalIV: finalIV)
        let rndB = try Scheme.decrypt(key: key.bytes, iv: [UInt8](repeating: 0, count: Scheme.blockSize), Array(first.array.dropFirst()))
        return (rndA, rndB)
    }

    /// Writes a key's 16-byte page image into its four pages, in order.
    func writeKeyPages(_ image: [UInt8], _ pages: Range<Int>) async throws(NFCTagError) {
        for (index, page) in pages.enumerated() {
            try await write(page: page, Array(image[(index * 4)..<(index * 4 + 4)]))
        }
    }

    /// Selects the tag again (HLTA, then a poll): a new Ultralight C or AES key counts from the next
    /// activation. Checks the same UID answers when it is known.
    /// - Throws: ``NFCTagError/Code/connectionLost`` when no tag, or another one, answers.
    func reselect() async throws(NFCTagError) {
        ultralightAESSession.start(nil)
        try? await reader.deselect()
        let info: TargetInfo?
        do {
            info = try await reader.poll(for: [.iso14443A], timeout: commandTimeout)
        } catch {
            throw NFCTagError(error, during: "selecting the tag again")
        }
        guard case .iso14443A(let again)? = info, uid == nil || again.uid.array == uid else {
            throw NFCTagError(.connectionLost, "the tag did not answer again after its key was written")
        }
    }
}
