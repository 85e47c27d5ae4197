import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags
@testable import PCSC
@testable import PCSCReaderEmulator

/// The ACR122U's Bi-color LED and Buzzer Control: the command NFCKit builds per signal, its
/// parser (the emulator's), the profiles that have it, and the emulated reader's answers.
@Suite("ACR122U LED and buzzer control (FF 00 40)", .tags(.pcsc), .timeLimit(.minutes(1)))
struct ACR122ULEDBuzzerControlTests {
    /// The ACR122L/ACR122U manuals' own example: both LEDs blinking 500 ms on / 500 ms off three
    /// times, the buzzer during T1.
    static let manualExample: [UInt8] = [0xFF, 0x00, 0x40, 0xD0, 0x04, 0x05, 0x05, 0x03, 0x01]

    @Test("the manual's example parses to its fields and encodes back to its bytes")
    func manualExampleRoundTrip() throws {
        let command = try #require(ACR122ULEDBuzzerControl(apdu: Self.manualExample))
        #expect(command == ACR122ULEDBuzzerControl(ledStateControl: 0xD0, t1: 5, t2: 5, repetitions: 3, buzzerLink: 1))
        #expect(command.apdu == Self.manualExample)
        #expect(command.buzzerMilliseconds == 1500)
        #expect(command.milliseconds == 3000)
    }

    @Test("done: green blinks once for 100 ms with the buzzer (a short beep); failed: red for 500 ms with it (a long one); no final state changed")
    func signals() {
        #expect(ACR122ULEDBuzzerControl.command(for: .done).apdu == hex("FF 00 40 A0 04 01 01 01 01"))
        #expect(ACR122ULEDBuzzerControl.command(for: .failed).apdu == hex("FF 00 40 50 04 05 01 01 01"))
        #expect(ACR122ULEDBuzzerControl.command(for: .done).blinkingLEDs == "green")
        #expect(ACR122ULEDBuzzerControl.command(for: .failed).blinkingLEDs == "red")
        #expect(ACR122ULEDBuzzerControl.command(for: .done).buzzerMilliseconds < ACR122ULEDBuzzerControl.command(for: .failed).buzzerMilliseconds)
        for signal in ReaderSignal.allCases {
            let p2 = ACR122ULEDBuzzerControl.command(for: signal).ledStateControl
            #expect(p2 & (ACR122ULEDBuzzerControl.Bit.redStateMask | ACR122ULEDBuzzerControl.Bit.greenStateMask) == 0)
        }
    }

    @Test("every truncated prefix, a longer APDU, another header or another Lc is refused")
    func refusesMalformed() {
        for length in 0..<Self.manualExample.count {
            #expect(ACR122ULEDBuzzerControl(apdu: Self.manualExample.prefix(length)) == nil, "prefix of \(length)")
        }
        #expect(ACR122ULEDBuzzerControl(apdu: Self.manualExample + [0x00]) == nil)
        var other = Self.manualExample
        other[2] = 0x41
        #expect(ACR122ULEDBuzzerControl(apdu: other) == nil)
        other = Self.manualExample
        other[4] = 0x03
        #expect(ACR122ULEDBuzzerControl(apdu: other) == nil)
    }

    @Test("a success is 90 and the LED state byte, nothing else")
    func answers() {
        #expect(ACR122ULEDBuzzerControl.accepts([0x90, 0x00]))
        #expect(ACR122ULEDBuzzerControl.accepts([0x90, 0x02]))
        #expect(!ACR122ULEDBuzzerControl.accepts([0x63, 0x00]))
        #expect(!ACR122ULEDBuzzerControl.accepts([0x01, 0x90, 0x00]))
        #expect(!ACR122ULEDBuzzerControl.accepts([0x90]))
    }

    @Test("the ACR122U and ACR1252U profiles have the LED and buzzer command; the generic, ACR1552U and uTrust profiles have none")
    func profiles() {
        #expect(PCSCReaderProfile.acr122u.feedback == .acr122uLEDBuzzer)
        #expect(PCSCReaderProfile.acr1252u.feedback == .acr122uLEDBuzzer)
        #expect(PCSCReaderProfile.generic.feedback == nil)
        #expect(PCSCReaderProfile.acr1552u.feedback == nil)
        #expect(PCSCReaderProfile.utrust3700F.feedback == nil)
        #expect(PCSCReaderFeedback.acr122uLEDBuzzer.command(for: .done) == ACR122ULEDBuzzerControl.command(for: .done).apdu)
    }

    @Test("the emulated ACR122U carries the command out (90 and the LED state, final states by the masks), refuses a malformed one with 63 00; the generic profile does not know it")
    func emulator() throws {
        let reader = GenericPart3Reader(field: try SimulatorConfiguration(parsing: "sim:ntag215").makeField(), profile: .acr122u)
        var carried: [ACR122ULEDBuzzerControl] = []
        reader.onFeedback = { carried.append($0) }
        #expect(reader.respond(to: ACR122ULEDBuzzerControl.command(for: .done).apdu) == [0x90, 0x00])
        // Final green on (bit 1) with its mask (bit 3): the state byte says green.
        #expect(reader.respond(to: hex("FF 00 40 0A 04 00 00 00 00")) == [0x90, 0x02])
        #expect(reader.respond(to: Array(Self.manualExample.prefix(8))) == [0x63, 0x00])
        #expect(carried.count == 2)
        reader.feedbackAnswer = .fail
        #expect(reader.respond(to: ACR122ULEDBuzzerControl.command(for: .failed).apdu) == [0x63, 0x00])
        #expect(carried.count == 2)
        let generic = GenericPart3Reader(field: try SimulatorConfiguration(parsing: "sim:ntag215").makeField())
        #expect(generic.respond(to: Self.manualExample) == [0x6A, 0x81])
    }
}
