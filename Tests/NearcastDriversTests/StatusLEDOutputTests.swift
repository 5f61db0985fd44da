import Glibc
import NearcastCore
import XCTest
@testable import NearcastDrivers

final class StatusLEDOutputTests: XCTestCase {
    func testTheSimulatedLEDsRecordEachChangeAndTurnOffOnRelease() throws {
        let directory = TemporaryDirectory()
        let clock = StreamClock()
        let leds = try SimulatedStatusLEDs(path: directory.file("leds.log"), clock: clock)
        clock.seconds = 1.25
        try leds.set(.status, lit: true)
        try leds.set(.consent, lit: true)
        clock.seconds = 2
        try leds.set(.status, lit: false)
        leds.release()
        let log = try FileSystem.readText(directory.file("leds.log"))
        XCTAssertEqual(log, "1.250 led status on\n1.250 led consent on\n2.000 led status off\n2.000 led consent off\n")
    }

    /// The real libgpiod driver's errors name the chip (this machine has no GPIO chips; the
    /// virtual board in qemu has one, see tools/vm/vm-board).
    func testAMissingChipIsATypedErrorNamingIt() {
        let lines = [GPIOStatusLEDs.Line(led: .status, offset: 0, activeLow: false)]
        XCTAssertThrowsError(try GPIOStatusLEDs(chip: "no-such-chip-label", lines: lines)) { error in
            let failure = error as? SystemError
            XCTAssertEqual(failure?.code, ENOENT)
            XCTAssertEqual("\(error)", "open GPIO chip no-such-chip-label: No such file or directory (errno 2)")
        }
        XCTAssertThrowsError(try GPIOStatusLEDs(chip: "/dev/null", lines: lines)) { error in
            XCTAssertEqual((error as? SystemError)?.code, ENOTTY, "\(error): a device that is not a GPIO chip (libgpiod 1 and 2 alike)")
        }
    }
}
