import NFCCore

/// Which blocks of a Type 5 tag need a password to be written, as the chip reports it: the
/// page protection of an ICODE SLIX-S, SLIX2 or NTAG 5 (``ISO15693Tag/icodeProtectionState()``),
/// the area protection of an ST25DV (ENDA1–3, RFA1SS–RFA4SS) or of an ST25TV02K (area
/// attributes). ``Type5Tag`` asks it before the first write of a message or a format, so that
/// a message reaching a guarded block is refused with nothing written.
public struct Type5WriteProtection: Sendable, Hashable {
    /// One span of password-protected blocks and what guards it.
    public struct Span: Sendable, Hashable {
        /// The blocks.
        public var blocks: Range<Int>
        /// What guards them, in words (`the write password (ICODE page protection)`,
        /// `area 2's password 2 (ST25TV area attribute)`).
        public var guardedBy: String

        /// Creates a span.
        public init(blocks: Range<Int>, guardedBy: String) {
            self.blocks = blocks
            self.guardedBy = guardedBy
        }
    }

    /// The protected spans, in block order.
    public var spans: [Span]

    /// Creates it.
    public init(spans: [Span]) { self.spans = spans }

    /// The span holding `block`, if it is protected.
    public func span(holding block: Int) -> Span? { spans.first { $0.blocks.contains(block) } }
}

extension Type5Tag {
    /// The blocks whose writes need a password, read from the chip (``Type5WriteProtection``);
    /// nil when the chip has no password protection NFCKit knows of, or when its state cannot
    /// be read (the reader cannot send the custom command, e.g. a PC/SC reader's generic
    /// profile, or the chip refuses it): a write then goes on, and a block the chip refuses is
    /// reported as ``writeNDEF(_:verify:)`` says. Reads only.
    ///
    /// On an ICODE SLIX2 or SLIX-S only `blocks` are asked (GET MULTIPLE BLOCK PROTECTION STATUS,
    /// 32 blocks a command; nil: every block), so a write costs one command more.
    /// - Throws: ``NFCTagError`` `connectionLost` only (the tag left the field: nothing written).
    public func writeProtection(blocks: ClosedRange<Int>? = nil) async throws(NFCTagError) -> Type5WriteProtection? {
        // A reader that cannot carry the custom command (a PC/SC reader's generic profile) is
        // asked first, so that nothing is sent that it would refuse.
        let probe: (code: UInt8, parameters: [UInt8], maker: UInt8)
        if let variant = tag.icodeVariant, variant.hasPageProtection {
            probe = variant.isNTAG5
                ? (NTAG5Command.getNXPSystemInformation, [], ISO15693Command.nxpManufacturerCode)
                : (ICodeCommand.getMultipleBlockProtectionStatus, [0, 0], ISO15693Command.nxpManufacturerCode)
        } else if tag.hasST25DVPasswords || tag.hasST25TVConfiguration {
            probe = (ST25Command.readConfiguration, [0], ST25Command.manufacturerCode)
        } else {
            return nil
        }
        do {
            try await tag.reader.checkCanSend(Bytes(tag.frame(probe.code, probe.parameters, manufacturerCode: probe.maker)), mode: .standard)
        } catch {
            return nil
        }
        do throws(NFCTagError) {
            if let variant = tag.icodeVariant, variant.hasPageProtection {
                let guardedBy = "the write password (ICODE page protection)"
                guard !variant.isNTAG5, let blocks else {
                    let state = try await tag.icodeProtectionState()
                    return Type5WriteProtection(spans: Self.spans(state.blocks(with: ICodeBlockProtection.writeProtected), guardedBy))
                }
                var guarded: [Int] = []
                var first = blocks.lowerBound
                while first <= blocks.upperBound {
                    let chunk = first..<min(blocks.upperBound + 1, first + 32)
                    let statuses = try await tag.icodeBlockProtectionStatus(chunk)
                    guarded += statuses.indices.filter { statuses[$0] & ICodeBlockProtection.writeProtected != 0 }.map { first + $0 }
                    first = chunk.upperBound
                }
                return Type5WriteProtection(spans: Self.spans(guarded, guardedBy))
            }
            if tag.hasST25DVPasswords { return try await st25dvWriteProtection() }
            if tag.hasST25TVConfiguration { return try await st25tvWriteProtection() }
            return nil
        } catch where error.code == .connectionLost {
            throw error
        } catch {
            return nil
        }
    }

    /// Consecutive blocks of `blocks` as spans.
    private static func spans(_ blocks: [Int], _ guardedBy: String) -> [Type5WriteProtection.Span] {
        var spans: [Type5WriteProtection.Span] = []
        for block in blocks {
            if let last = spans.last, last.blocks.upperBound == block {
                spans[spans.count - 1].blocks = last.blocks.lowerBound..<(block + 1)
            } else {
                spans.append(.init(blocks: block..<(block + 1), guardedBy: guardedBy))
            }
        }
        return spans
    }

    /// ST25DV: the areas bounded by ENDA1–3 (area x ends at byte 32 × ENDAx + 31) whose RFAxSS
    /// protects writes.
    private func st25dvWriteProtection() async throws(NFCTagError) -> Type5WriteProtection {
        let blockSize = 4
        let ends = [
            try await tag.st25ReadConfiguration(ST25DVRegister.enda1), try await tag.st25ReadConfiguration(ST25DVRegister.enda2),
            try await tag.st25ReadConfiguration(ST25DVRegister.enda3),
        ].map { (Int($0) + 1) * ST25DVRegister.endUnit / blockSize }
        let blockCount = tag.identity.blockCount ?? Int.max
        var spans: [Type5WriteProtection.Span] = []
        var first = 0
        for area in 1...4 {
            let end = area == 4 ? blockCount : min(ends[area - 1], blockCount)
            defer { first = max(first, end) }
            guard end > first else { continue }
            let security = try await tag.st25AreaSecurity(area)
            guard security.protectsWrites else { continue }
            let what = security.protection == ST25AreaSecurity.readProtectedWriteForbidden
                ? "area \(area), never writable (ST25DV RFA\(area)SS)" : "area \(area)'s password \(security.password) (ST25DV RFA\(area)SS)"
            spans.append(.init(blocks: first..<end, guardedBy: what))
        }
        return Type5WriteProtection(spans: spans)
    }

    /// ST25TV02K: one area (MEM_ORG) guarded by password 1, or area 1 (blocks 0–31) and area 2
    /// (from block 32); where area 2 begins on an ST25TV512 is not public, so a protected area 2
    /// there is left out (the chip's refusal reports it).
    private func st25tvWriteProtection() async throws(NFCTagError) -> Type5WriteProtection {
        let state = try await tag.st25tvAreaState()
        let blockCount = tag.identity.blockCount ?? Int.max
        func what(_ area: Int) -> String {
            state.security(area).refusesWrites ? "area \(area), never writable (ST25TV area attribute)" : "area \(area)'s password \(area) (ST25TV area attribute)"
        }
        if state.singleArea {
            return Type5WriteProtection(spans: state.security(1).protectsWrites ? [.init(blocks: 0..<blockCount, guardedBy: what(1))] : [])
        }
        let boundary = ST25TVRegister.firstBlock(ofArea: 2, blockCount: tag.identity.blockCount)
        var spans: [Type5WriteProtection.Span] = []
        if state.security(1).protectsWrites {
            // Without a known boundary, area 1 is taken to cover the whole memory: a refusal
            // before the first write is better than a message cut half-way.
            spans.append(.init(blocks: 0..<(boundary ?? blockCount), guardedBy: what(1)))
        }
        if let boundary, state.security(2).protectsWrites {
            spans.append(.init(blocks: boundary..<blockCount, guardedBy: what(2)))
        }
        return Type5WriteProtection(spans: spans)
    }

    /// Throws `passwordRequired` naming the first of `blocks` (ascending) that the chip's
    /// protection (``writeProtection(blocks:)``) guards; nothing was written yet. Skipped when
    /// ``passwordSessionOpen``. `locking`: the blocks are to be locked (LOCK BLOCK), not written.
    func refuseProtected(_ blocks: [Int], blockSize: Int, locking: Bool = false) async throws(NFCTagError) {
        guard !passwordSessionOpen, let low = blocks.first, let high = blocks.last,
              let protection = try await writeProtection(blocks: low...high) else { return }
        for block in blocks {
            guard let span = protection.span(holding: block) else { continue }
            let range = span.blocks.count == 1 ? "block \(span.blocks.lowerBound) is" : "blocks \(span.blocks.lowerBound)–\(span.blocks.upperBound - 1) are"
            let below = span.blocks.lowerBound > 0 && !locking ? ", or write a message that ends before block \(span.blocks.lowerBound)" : ""
            throw NFCTagError(
                .passwordRequired, at: block * blockSize,
                "block \(block) needs a password to be \(locking ? "locked" : "written"): \(range) guarded by \(span.guardedBy); nothing was written "
                    + "(remove the protection with 'nfctool unprotect' first\(below))")
        }
    }

    /// Whether a write refused by the chip with ISO 15693 error `code` on a block not locked
    /// with Lock Block means the block needs a password: `12` (the ICODE and ST25 chips answer
    /// it for a block guarded by a password as for a locked one; the virtual chips do too) or
    /// `0F` (unknown error; the ICODE chips answer password failures with it), on a chip with
    /// password protection.
    func isPasswordRefusal(_ code: UInt8?) -> Bool {
        guard hasPasswordProtection, let code else { return false }
        return code == ISO15693Error.lockedBlockCannotBeChanged || code == ISO15693Error.unknown
    }

    /// Whether a read refused with ISO 15693 error `code` means the block needs a password:
    /// `0F` on an ICODE chip with page protection (its answer to a read-protected block), `15`
    /// on an ST25 chip (``ST25Command/blockReadProtected``).
    func isReadPasswordRefusal(_ code: UInt8?) -> Bool {
        guard let code else { return false }
        if tag.icodeVariant?.hasPageProtection == true { return code == ISO15693Error.unknown }
        if tag.hasST25DVPasswords || tag.hasST25TVConfiguration { return code == ST25Command.blockReadProtected }
        return false
    }

    /// Whether the chip has passwords guarding its memory (ICODE page protection, ST25DV or
    /// ST25TV02K areas).
    var hasPasswordProtection: Bool {
        tag.icodeVariant?.hasPageProtection == true || tag.hasST25DVPasswords || tag.hasST25TVConfiguration
    }
}
