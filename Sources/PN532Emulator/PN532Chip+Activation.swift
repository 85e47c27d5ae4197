import NFCTags
import VirtualTags

/// Activation: InListPassiveTarget, InAutoPoll, InSelect, InDeselect, InRelease and the
/// field model behind them (UM0701 §7.3.5–7.3.11).
extension PN532Chip {
    // MARK: - Activation

    func isInField(_ target: ActiveTarget) -> Bool {
        target.generation == field.generation && field.field.contains(target.tag)
    }

    /// InListPassiveTarget (UM0701 §7.3.5): MaxTg (1 or 2), BrTy, InitiatorData → NbTg, then
    /// Tg and TargetData for each target. Type A tags in the field answer together and
    /// anticollision takes them one by one: up to MaxTg are activated, Tg 1 and 2, and Tg 1 is
    /// the selected one. Other modulations list one target.
    func inListPassiveTarget(_ p: [UInt8]) -> [UInt8]? {
        guard p.count >= 2, (1...2).contains(p[0]),
              let modulation = PN532PassiveModulation(rawValue: p[1]) else { return nil }
        switchField(on: true)
        target = nil
        let listed = activateAll(
            modulation, initiatorData: Array(p.dropFirst(2)), automaticRATS: parameters & Self.automaticRATS != 0,
            limit: modulation == .iso14443A106 ? Int(p[0]) : 1)
        if !listed.isEmpty {
            var out = [UInt8(listed.count)]
            for (index, data) in listed.enumerated() { out += [UInt8(index + 1)] + data }
            return out
        }
        if passiveActivationRetries == Self.retryForever {
            pending = .poll([PN532Command.inListPassiveTarget.rawValue] + p, giveUpAfter: nil)
            return nil
        }
        return [0x00]
    }

    /// Activates up to `limit` tags of the field on `modulation` and lists them (Tg 1 selected);
    /// returns each one's TargetData, or nothing when no tag answers.
    ///
    /// The firmware's REQA wakes only tags that are not halted, so a tag deselected by InDeselect
    /// is passed over while another tag answers: libnfc's `nfc_initiator_list_passive_targets`
    /// (select, InDeselect, select again until a tag comes twice) relies on it. When only halted
    /// tags are in the field they are woken (WUPA), so a tag deselected and left on the reader
    /// is found again.
    func activateAll(_ modulation: PN532PassiveModulation, initiatorData: [UInt8], automaticRATS: Bool, limit: Int) -> [[UInt8]] {
        let inField = field.field.tagsInField
        let awake = inField.filter { !haltedTags.contains(ObjectIdentifier($0)) }
        var listed: [(data: [UInt8], target: ActiveTarget)] = []
        for candidates in [awake, inField] {
            for tag in candidates where listed.count < limit {
                guard !listed.contains(where: { $0.target.tag === tag }),
                      let data = activate(modulation, initiatorData: initiatorData, automaticRATS: automaticRATS, tag: tag),
                      let target
                else { continue }
                listed.append((data, target))
            }
            if !listed.isEmpty { break }
        }
        guard let first = listed.first else { return [] }
        listedTargets = listed.map(\.target)
        currentTargetIndex = 0
        field.field.focus(on: first.target.tag)
        return listed.map(\.data)
    }

    /// Activates the first tag of the field (idle ones first) on `modulation`; returns TargetData
    /// after Tg (UM0701 §7.3.5), or nil when no tag answers.
    func activate(_ modulation: PN532PassiveModulation, initiatorData: [UInt8], automaticRATS: Bool) -> [UInt8]? {
        activateAll(modulation, initiatorData: initiatorData, automaticRATS: automaticRATS, limit: 1).first
    }

    /// Activates `tag` on `modulation` and makes it the selected target; returns TargetData
    /// after Tg, or nil when it does not answer.
    func activate(_ modulation: PN532PassiveModulation, initiatorData: [UInt8], automaticRATS: Bool, tag: any VirtualTag) -> [UInt8]? {
        guard field.field.focus(on: tag) else { return nil }
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
        exchangedSinceActivation = false
        blockAdapter.reset()
        outgoingChain = []
        incomingChain = []
        registers[PN532Register.status2] &= ~MIFAREExchange.crypto1On
        setFraming(for: modulation)
        haltedTags.remove(ObjectIdentifier(tag))
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
                guard field.field.tagsInField.contains(where: { tag in
                    if case .iso14443A(let a) = tag.targetInfo { return a.supportsISODEP }
                    return false
                }) else { continue }
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

    /// Makes listed target `tg` (1 or 2) the selected one, the tag exchanges go to; false when
    /// no such target is listed or it was released.
    func useTarget(_ tg: UInt8) -> Bool {
        let index = Int(tg & 0x3F) - 1
        guard listedTargets.indices.contains(index), !listedTargets[index].released else { return false }
        if index != currentTargetIndex {
            currentTargetIndex = index
            if isInField(listedTargets[index]) {
                // The firmware selects the other target again (WUPA and SELECT by its UID).
                field.field.focus(on: listedTargets[index].tag)
                select(listedTargets[index].tag)
                haltedTags.remove(ObjectIdentifier(listedTargets[index].tag))
                tagHalted = listedTargets[index].deselected
            }
        }
        return true
    }

    /// InSelect (UM0701 §7.3.12): Tg → Status. Selects listed target 1 or 2.
    func inSelect(_ p: [UInt8]) -> [UInt8]? {
        guard let tg = p.first else { return nil }
        guard useTarget(tg), var target else { return status(.commandNotAcceptable) }
        guard isInField(target) else { return status(.timeout) }
        field.field.focus(on: target.tag)
        select(target.tag)
        haltedTags.remove(ObjectIdentifier(target.tag))
        target.deselected = false
        tagHalted = false
        self.target = target
        return status(.success)
    }

    /// InDeselect (UM0701 §7.3.10): Tg (0 = all) → Status. The tag is halted (HLTA/DESELECT).
    func inDeselect(_ p: [UInt8]) -> [UInt8]? {
        guard let tg = p.first else { return nil }
        let indices: [Int]
        switch Int(tg & 0x3F) {
        case 0: indices = Array(listedTargets.indices)
        case let number where listedTargets.indices.contains(number - 1): indices = [number - 1]
        default: return status(.commandNotAcceptable)
        }
        for index in indices {
            if isInField(listedTargets[index]) {
                listedTargets[index].tag.halt()
                haltedTags.insert(ObjectIdentifier(listedTargets[index].tag))
            }
            listedTargets[index].deselected = true
            if index == currentTargetIndex { tagHalted = true }
        }
        // An operator takes the sticker away once the reader has worked on it; the next of the
        // stack comes.
        if let target, indices.contains(currentTargetIndex), field.handsOutOnDeselect, exchangedSinceActivation, isInField(target) {
            field.next()
        }
        return status(.success)
    }

    /// InRelease (UM0701 §7.3.11): Tg (0 = all) → Status. The target's information is dropped;
    /// in target mode it ends the emulation (libnfc's `pn53x_idle` uses it so).
    func inRelease(_ p: [UInt8]) -> [UInt8]? {
        guard let tg = p.first else { return nil }
        if isActivatedAsTarget {
            externalReader?.interrupt()
            isActivatedAsTarget = false
        }
        switch Int(tg & 0x3F) {
        case 0:
            for listed in listedTargets where isInField(listed) { listed.tag.halt() }
            target = nil
        case let number where listedTargets.indices.contains(number - 1):
            if isInField(listedTargets[number - 1]) { listedTargets[number - 1].tag.halt() }
            listedTargets[number - 1].released = true
        default:
            return status(.commandNotAcceptable)
        }
        return status(.success)
    }
}
