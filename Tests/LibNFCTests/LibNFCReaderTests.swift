import NFCTags
import Testing
@testable import LibNFC

@Suite("LibNFCReader without hardware", .timeLimit(.minutes(5)))
struct LibNFCReaderTests {
    @Test("a connection string nothing answers on is deviceNotFound, with the string in the reason")
    func missingDevice() async {
        do {
            _ = try await LibNFCReader.open("pn532_uart:/dev/nfckit-no-such-port")
            Issue.record("opened a device that does not exist")
        } catch {
            #expect(error.code == .deviceNotFound)
            #expect(error.reason.contains("/dev/nfckit-no-such-port"))
        }
    }

    @Test("every libnfc error maps to a reader error code", arguments: LibNFCError.Code.allCases)
    func errorMapping(code: LibNFCError.Code) {
        let mapped = LibNFCReader.readerError(LibNFCError(code, "x")).code
        let expected: [LibNFCError.Code: NFCReaderDeviceError.Code] = [
            .timeout: .timeout, .targetReleased: .tagLost, .radioFrequencyTransmission: .rfError,
            .mifareClassicAuthenticationFailed: .authenticationFailed, .notSupportedByDevice: .notSupported,
            .notImplemented: .notSupported, .noSuchDevice: .deviceNotFound, .invalidArgument: .invalidArgument,
            .bufferOverflow: .overflow, .operationAborted: .aborted, .chip: .chip,
        ]
        #expect(mapped == expected[code, default: .io])
    }
}
