import Foundation
import NFCKit
import NFCTags
import Testing

@Suite("doctor's checks", .timeLimit(.minutes(1)))
struct DoctorReportTests {
    /// The fixture of a set-up machine (Tests/Fixtures/doctor/healthy).
    static var healthy: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/doctor/healthy").path
    }

    @Test("libnfc that cannot be loaded is a problem with the package to install, not an ok line saying 'unavailable … loaded'")
    func libnfcMissingIsAProblem() {
        let reason = "a libnfc reader needs libnfc, which cannot be loaded (libnfc.so.6: cannot open shared object file); install it (Debian: apt install libnfc6)"
        let report = DoctorReport.make(
            system: DoctorSystem(root: Self.healthy), environment: [:],
            libnfc: .failure(NFCReaderDeviceError(.notSupported, reason)), readers: .success([]))
        let item = report.checks.first { $0.name == "libnfc" }
        #expect(item?.status == .problem)
        #expect(item?.detail.contains("cannot be loaded") == true)
        #expect(item?.fix.contains("libnfc6") == true)
        #expect(report.problems >= 1)
    }

    @Test("libnfc that loads is ok with its version")
    func libnfcLoadedIsOk() {
        let report = DoctorReport.make(
            system: DoctorSystem(root: Self.healthy), environment: [:], libnfc: .success("1.8.0"), readers: .success([]))
        let item = report.checks.first { $0.name == "libnfc" }
        #expect(item?.status == .ok)
        #expect(item?.detail == "libnfc 1.8.0 loaded")
    }
}
