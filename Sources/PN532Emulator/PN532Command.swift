/// PN532 command codes, the first byte of a host frame's packet data (UM0701-02 §7, table
/// "Command set"). The response code is the command code plus one.
public enum PN532Command: UInt8, Sendable, Hashable, CaseIterable {
    /// Diagnose, 0x00: self tests, e.g. the communication line echo (UM0701 §7.2.1).
    case diagnose = 0x00
    /// GetFirmwareVersion, 0x02: IC, Ver, Rev, Support (UM0701 §7.2.2).
    case getFirmwareVersion = 0x02
    /// GetGeneralStatus, 0x04: last error, field, targets, SAM status (UM0701 §7.2.3).
    case getGeneralStatus = 0x04
    /// ReadRegister, 0x06: reads SFR and XRAM registers by 16-bit address (UM0701 §7.2.4).
    case readRegister = 0x06
    /// WriteRegister, 0x08: writes registers by address/value triples (UM0701 §7.2.5).
    case writeRegister = 0x08
    /// ReadGPIO, 0x0C (UM0701 §7.2.6).
    case readGPIO = 0x0C
    /// WriteGPIO, 0x0E (UM0701 §7.2.7).
    case writeGPIO = 0x0E
    /// SetSerialBaudRate, 0x10 (UM0701 §7.2.8).
    case setSerialBaudRate = 0x10
    /// SetParameters, 0x12: NAD, DID, automatic ATR_RES and RATS… (UM0701 §7.2.9).
    case setParameters = 0x12
    /// SAMConfiguration, 0x14: normal, virtual card, wired card, dual card (UM0701 §7.2.10).
    case samConfiguration = 0x14
    /// PowerDown, 0x16: enters power down, with wake-up sources (UM0701 §7.2.11).
    case powerDown = 0x16
    /// RFConfiguration, 0x32: field, timings, retries, analog settings (UM0701 §7.3.1).
    case rfConfiguration = 0x32
    /// RFRegulationTest, 0x58 (UM0701 §7.3.2).
    case rfRegulationTest = 0x58
    /// InJumpForDEP, 0x56 (UM0701 §7.3.3).
    case inJumpForDEP = 0x56
    /// InJumpForPSL, 0x46 (UM0701 §7.3.4).
    case inJumpForPSL = 0x46
    /// InListPassiveTarget, 0x4A: detects and activates passive targets (UM0701 §7.3.5).
    case inListPassiveTarget = 0x4A
    /// InATR, 0x50 (UM0701 §7.3.6).
    case inATR = 0x50
    /// InPSL, 0x4E (UM0701 §7.3.7).
    case inPSL = 0x4E
    /// InDataExchange, 0x40: exchanges data with a target, protocol handled by the firmware
    /// (UM0701 §7.3.8).
    case inDataExchange = 0x40
    /// InCommunicateThru, 0x42: sends raw bytes, framing per the CIU registers (UM0701 §7.3.9).
    case inCommunicateThru = 0x42
    /// InDeselect, 0x44: deselects a target, keeping its information (UM0701 §7.3.10).
    case inDeselect = 0x44
    /// InRelease, 0x52: releases a target (UM0701 §7.3.11).
    case inRelease = 0x52
    /// InSelect, 0x54: selects a target again (UM0701 §7.3.12).
    case inSelect = 0x54
    /// InAutoPoll, 0x60: polls for targets of several types (UM0701 §7.3.13).
    case inAutoPoll = 0x60
    /// TgInitAsTarget, 0x8C (UM0701 §7.3.14).
    case tgInitAsTarget = 0x8C
    /// TgSetGeneralBytes, 0x92 (UM0701 §7.3.15).
    case tgSetGeneralBytes = 0x92
    /// TgGetData, 0x86 (UM0701 §7.3.16).
    case tgGetData = 0x86
    /// TgSetData, 0x8E (UM0701 §7.3.17).
    case tgSetData = 0x8E
    /// TgSetMetaData, 0x94 (UM0701 §7.3.18).
    case tgSetMetaData = 0x94
    /// TgGetInitiatorCommand, 0x88 (UM0701 §7.3.19).
    case tgGetInitiatorCommand = 0x88
    /// TgResponseToInitiator, 0x90 (UM0701 §7.3.20).
    case tgResponseToInitiator = 0x90
    /// TgGetTargetStatus, 0x8A (UM0701 §7.3.21).
    case tgGetTargetStatus = 0x8A

    /// The response code: the command code plus one (UM0701 §6.2.1.1).
    public var responseCode: UInt8 { rawValue &+ 1 }
}

/// The status byte of InDataExchange, InCommunicateThru, InSelect… (UM0701-02 §7.1 "Error
/// handling", table 4). Bits 0–5 carry the error; 0x40 is MI (more information), 0x80 NAD.
public enum PN532Status: UInt8, Sendable, Hashable, CaseIterable {
    /// 0x00: success.
    case success = 0x00
    /// 0x01: time out, the target has not answered.
    case timeout = 0x01
    /// 0x02: a CRC error was detected by the CIU.
    case crcError = 0x02
    /// 0x03: a parity error was detected by the CIU.
    case parityError = 0x03
    /// 0x04: an erroneous bit count during anticollision/select.
    case erroneousBitCount = 0x04
    /// 0x05: framing error during a MIFARE operation.
    case mifareFramingError = 0x05
    /// 0x06: an abnormal bit collision during bitwise anticollision.
    case abnormalBitCollision = 0x06
    /// 0x07: communication buffer size insufficient.
    case bufferTooSmall = 0x07
    /// 0x09: RF buffer overflow (CIU_Error BufferOvfl).
    case rfBufferOverflow = 0x09
    /// 0x0A: in active mode, the counterpart did not switch the field on in time.
    case rfFieldTimeout = 0x0A
    /// 0x0B: RF protocol error.
    case rfProtocolError = 0x0B
    /// 0x0D: overheating, the antenna drivers were switched off.
    case overheating = 0x0D
    /// 0x0E: internal buffer overflow.
    case internalBufferOverflow = 0x0E
    /// 0x10: invalid parameter (range, format…).
    case invalidParameter = 0x10
    /// 0x12: DEP protocol: unsupported command from the initiator.
    case depUnknownCommand = 0x12
    /// 0x13: DEP, MIFARE or ISO 14443-4: the data format does not match the specification.
    case invalidReceivedFrame = 0x13
    /// 0x14: MIFARE: authentication error.
    case mifareAuthenticationError = 0x14
    /// 0x23: ISO 14443-3: UID check byte (BCC) is wrong.
    case wrongUIDCheckByte = 0x23
    /// 0x25: DEP: invalid device state.
    case depInvalidDeviceState = 0x25
    /// 0x26: operation not allowed in this configuration.
    case operationNotAllowed = 0x26
    /// 0x27: command not acceptable in the current context.
    case commandNotAcceptable = 0x27
    /// 0x29: the target has been released by the initiator.
    case targetReleased = 0x29
    /// 0x2A: ISO 14443-B: the card ID does not match.
    case cardIDMismatch = 0x2A
    /// 0x2B: ISO 14443-B: the card previously activated has disappeared.
    case cardDisappeared = 0x2B
    /// 0x2C: NFCID3 mismatch between initiator and target.
    case nfcid3Mismatch = 0x2C
    /// 0x2D: over current.
    case overCurrent = 0x2D
    /// 0x2E: NAD missing in a DEP frame.
    case nadMissing = 0x2E
}

/// Bit rate and modulation type `BrTy` of InListPassiveTarget (UM0701-02 §7.3.5).
public enum PN532PassiveModulation: UInt8, Sendable, Hashable, CaseIterable {
    /// 0x00: 106 kbps type A (ISO/IEC 14443 Type A).
    case iso14443A106 = 0x00
    /// 0x01: 212 kbps FeliCa polling.
    case felica212 = 0x01
    /// 0x02: 424 kbps FeliCa polling.
    case felica424 = 0x02
    /// 0x03: 106 kbps type B (ISO/IEC 14443-3B).
    case iso14443B106 = 0x03
    /// 0x04: 106 kbps Innovision Jewel tag.
    case jewel106 = 0x04
}
