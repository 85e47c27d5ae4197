import NFCTags
import VirtualTags

/// Activation: InListPassiveTarget, InAutoPoll, InSelect, InDeselect, InRelease and the
/// field model behind them (UM0701 §7.3.5–7.3.11).
extension PN532Chip {
    // MARK: - Activation

    func isInField(_ target: ActiveTarget) -> Bool {
        target.generation == field.generation && field.tagInField === target.tag
    }

    /// InListPassiveTarget (UM0701 §7.3.5): MaxTg, BrTy, InitiatorData → NbTg, TargetData.
    func inListPassiveTarget(_ p: [UInt8]) -> [UInt8]? {
        guard p.count >= 2, (1...2).contains(p[0]),
              let modulation = PN532PassiveModulation(rawValue: p[1]) else { return nil }
        switchField(on: true)
        target = nil
        if let data = activate(modulation, initiatorData: Array(p.dropFirst(2)), automaticRATS: parameters & Self.automaticRATS != 0) {
            return [0x01, 0x01] + data
        }
        if passiveActivationRetries == Self.retryForever {
            pending = .poll([PN532Command.inListPassiveTarget.rawValue] + p, giveUpAfter: nil)
            return nil
        }
        return [0x00]
    }

    /// Activates the tag in the field on `modulation`; returns TargetData after Tg
    /// (UM0701 §7.3.5), or nil when no tag answers.
    func activate(_ modulation: PN532PassiveModulation, initiatorData: [UInt8], automaticRATS: Bool) -> [UInt8]? {
        guard let tag = field.tagInField else { return nil }
        let data: [UInt8]
        let kind: ActiveTarget.Kind
        switch (modulation, tag.targetInfo) {
        case (.iso14443A106, .iso14443A(let a)):
            let uid = a.uid.array
            if !initiatorData.isEmpty && initiatorData != uid && Self.removingCascadeTags(initiatorData) != uid {
                return nil
            }
            select(tag)
            let atqa = a.atqa.array
            let sensRes: [UInt8] = atqa.count == 2 ? [atqa[1], atqa[0]] : [0x00, 0x00]
            var out = sensRes + [a.sak, UInt8(uid.count)] + uid
            var isoDEP = false
            if automaticRATS, a.supportsISODEP, let dep = tag as? any ISODEPVirtualTag {
                out += dep.ats.isEmpty ? a.ats.array : dep.ats
                isoDEP = true
            }
            data = out
            kind = .typeA(isoDEP: isoDEP)
            responseDelay = delayModel == .datasheet ? .milliseconds(isoDEP ? 5 : 3) : .zero
        case (.felica212, .felica(let f)), (.felica424, .felica(let f)):
            let rate = modulation == .felica212 ? 212 : 424
            guard f.bitRate == rate, initiatorData.count == 5, initiatorData[0] == FeliCaPolling.command else { return nil }
            select(tag)
            let answer: [UInt8]
            // The tag answers the Polling command itself (system code matching is its business);
            // a model that does not model Polling gets an answer from its target information.
            switch tag.respond(to: initiatorData) {
            case .data(let d) where d.first == FeliCaPolling.response && d.count >= 17: answer = d
            case .silence: return nil
            default:
                if let code = f.systemCode {
                    let wanted = (initiatorData[1], initiatorData[2])
                    guard wanted.0 == 0xFF || wanted.0 == UInt8(code >> 8),
                          wanted.1 == 0xFF || wanted.1 == UInt8(code & 0xFF) else { return nil }
                }
                var synthesized = [FeliCaPolling.response] + f.idm.array + f.pmm.array
                if initiatorData[3] == FeliCaPolling.requestSystemCode, let code = f.systemCode {
                    synthesized += [UInt8(code >> 8), UInt8(code & 0xFF)]
                }
                answer = synthesized
            }
            data = [UInt8(answer.count + 1)] + answer
            kind = .felica
        case (.iso14443B106, .iso14443B(let b)):
            // InitiatorData: AFI, and optionally the polling method (UM0701 §7.3.5). AFI 00
            // wakes every card; otherwise the family (high nibble) must match, and the
            // sub-family too unless it is 0 (ISO/IEC 14443-3 §7.9.2).
            guard let afi = initiatorData.first, initiatorData.count <= 2 else { return nil }
            let cardAFI = b.applicationData.first ?? 0
            if afi != 0 {
                guard afi >> 4 == cardAFI >> 4, afi & 0x0F == 0 || afi & 0x0F == cardAFI & 0x0F else { return nil }
            }
            select(tag)
            // TargetData: ATQB (12 bytes), ATTRIB_RES length, ATTRIB_RES (UM0701 §7.3.5; libnfc's
            // pn53x_decode_target_data reads the first ATTRIB_RES byte as the card identifier).
            // ATTRIB_RES byte 1: MBLI 0 (no information) and the CID the card was given, or 0
            // when it does not support CID (ISO/IEC 14443-3 §7.11).
            let cid: UInt8? = b.supportsCID ? Self.typeBCID : nil
            data = [Self.atqbCode] + b.pupi.array + b.applicationData.array + b.protocolInfo.array + [0x01, cid ?? 0x00]
            kind = .typeB(cid: cid)
            responseDelay = delayModel == .datasheet ? .milliseconds(5) : .zero
        case (.jewel106, .jewel(let j)):
            select(tag)
            data = j.sensRes.array + j.id.array
            kind = .jewel
        default:
            return nil
        }
        tagHalted = false
        blockAdapter.reset()
        outgoingChain = []
        incomingChain = []
        registers[PN532Register.status2] &= ~MIFAREExchange.crypto1On
        setFraming(for: modulation)
        target = ActiveTarget(tag: tag, kind: kind, generation: field.generation)
        return data
    }

    /// The firmware sets the CIU's framing and speed for the activated target (TxMode/RxMode
    /// bits 0–1 framing: 00 type A, 10 FeliCa, 11 type B; bits 4–6 speed 106·2^n), keeping
    /// the CRC bits.
    func setFraming(for modulation: PN532PassiveModulation) {
        let bits: UInt8 = switch modulation {
        case .iso14443A106, .jewel106: 0x00
        case .felica212: 0x12
        case .felica424: 0x22
        case .iso14443B106: 0x03
        }
        for address in [PN532Register.txMode, PN532Register.rxMode] {
            registers[address] = (registers[address] & 0x8C) | bits
        }
    }

    /// Selects a tag that is in the field: ``VirtualTags/ActivatableVirtualTag/activate()``
    /// when the model tells re-selection from power-on (it keeps what lasts while powered),
    /// else ``VirtualTags/VirtualTag/powerOn()``.
    /// A tag selected after the field was switched off and on again has lost power in between:
    /// it powers on (the NTAG21x NFC counter counts again).
    func select(_ tag: any VirtualTag) {
        if fieldCycledSinceSelection {
            fieldCycledSinceSelection = false
            tag.powerOn()
        } else if let activatable = tag as? any ActivatableVirtualTag {
            activatable.activate()
        } else {
            tag.powerOn()
        }
    }

    /// The UID without cascade tags `88` (ISO/IEC 14443-3 §6.5.4), as libnfc may send it.
    static func removingCascadeTags(_ uid: [UInt8]) -> [UInt8] {
        switch uid.count {
        case 8 where uid[0] == ISO14443ACommand.cascadeTag: return Array(uid[1...])
        case 12 where uid[0] == ISO14443ACommand.cascadeTag && uid[4] == ISO14443ACommand.cascadeTag: return Array(uid[1..<4] + uid[5...])
        default: return uid
        }
    }

    /// InAutoPoll (UM0701 §7.3.13): PollNr, Period, Type… → NbTg, [Type, Length, TargetData].
    func inAutoPoll(_ p: [UInt8]) -> [UInt8]? {
        guard p.count >= 3 else { return nil }
        switchField(on: true)
        target = nil
        for type in p.dropFirst(2) {
            let attempt: (PN532PassiveModulation, [UInt8], Bool)?
            switch type {
            case 0x00, 0x10: attempt = (.iso14443A106, [], false)
            case 0x20: attempt = (.iso14443A106, [], true)
            case 0x01, 0x11: attempt = (.felica212, FeliCaPolling.anySystem, false)
            case 0x02, 0x12: attempt = (.felica424, FeliCaPolling.anySystem, false)
            case 0x03, 0x23: attempt = (.iso14443B106, [0x00], false)
            case 0x04: attempt = (.jewel106, [], false)
            default: attempt = nil
            }
            guard let (modulation, initiatorData, needsISODEP) = attempt else { continue }
            if needsISODEP {
                guard case .iso14443A(let a)? = field.tagInField?.targetInfo, a.supportsISODEP else { continue }
            }
            if let data = activate(modulation, initiatorData: initiatorData, automaticRATS: needsISODEP) {
                let targetData = [0x01] + data
                return [0x01, type, UInt8(targetData.count)] + targetData
            }
        }
        let limit: Duration? = p[0] == Self.retryForever ? nil : .milliseconds(150 * Int(p[0]) * Int(p[1]) * (p.count - 2))
        if limit != .zero {
            pending = .poll([PN532Command.inAutoPoll.rawValue] + p, giveUpAfter: limit)
            return nil
        }
        return [0x00]
    }

    /// InSelect (UM0701 §7.3.12): Tg → Status.
    func inSelect(_ p: [UInt8]) -> [UInt8]? {
        guard let tg = p.first else { return nil }
        guard tg == 0x01, var target else { return status(.commandNotAcceptable) }
        guard isInField(target) else { return status(.timeout) }
        select(target.tag)
        target.deselected = false
        tagHalted = false
        self.target = target
        return status(.success)
    }

    /// InDeselect (UM0701 §7.3.10): Tg (0 = all) → Status. The tag is halted (HLTA/DESELECT).
    func inDeselect(_ p: [UInt8]) -> [UInt8]? {
        guard let tg = p.first else { return nil }
        guard tg <= 0x01 else { return status(.commandNotAcceptable) }
        if var target {
            if isInField(target) { target.tag.halt() }
            target.deselected = true
            tagHalted = true
            self.target = target
            // An operator takes the sticker away; the next of the stack comes.
            if field.handsOutOnDeselect, isInField(target) { field.next() }
        }
        return status(.success)
    }

    /// InRelease (UM0701 §7.3.11): Tg (0 = all) → Status. The target's information is dropped;
    /// in target mode it ends the emulation (libnfc's `pn53x_idle` uses it so).
    func inRelease(_ p: [UInt8]) -> [UInt8]? {
        guard let tg = p.first else { return nil }
        guard tg <= 0x01 else { return status(.commandNotAcceptable) }
        if isActivatedAsTarget {
            externalReader?.interrupt()
            isActivatedAsTarget = false
        }
        if let target, isInField(target) { target.tag.halt() }
        target = nil
        return status(.success)
    }
}
