import Glibc
import NearcastCore
import XCTest
@testable import NearcastDrivers

/// The simulated board's twins: they run on the injected stream clock, the controller hears its
/// own sets, the microphone hears the speaker, and each fault fails the way the real driver does.
final class SimulatedDeviceTests: XCTestCase {
    private func frame(_ hex: String) throws -> AdvertisingData {
        EddystoneFrame.advertisingData(for: try Token(kind: .direct, hex: hex), txPower: -12)
    }

    func testTheControllerRecordsOnTheStreamClockAndHearsItsOwnSets() throws {
        let directory = TemporaryDirectory()
        let clock = StreamClock()
        let log = try SimulatedLogFile(path: directory.file("ble.log"))
        let controller = try SimulatedBLEController(log: log, setCount: 2, clock: clock, faults: SimulatedFaults())
        var reports: [[UInt8]] = []
        controller.onReport = { reports.append(Array($0)) }
        clock.seconds = 1.5
        try controller.advertise(set: 1, data: try frame("c0ffee"), address: BLEAddress(value: 0x0000_4605_0403_0201)!)
        try controller.maintain(now: 1.5)
        XCTAssertEqual(reports.count, 0, "not scanning yet")
        try controller.setScanning(true)
        try controller.maintain(now: 1.6)
        try controller.maintain(now: 1.65)                   // within 100 ms: no second report
        XCTAssertEqual(reports.count, 1)
        let parsed = try LEAdvertisingReports.parse(event: reports[0])
        XCTAssertEqual(parsed.first.flatMap { $0.data }.flatMap { EddystoneFrame.token(in: $0) }?.token.hex, "c0ffee")
        clock.seconds = 2
        try controller.stop(set: 1)
        XCTAssertEqual(try FileSystem.readText(directory.file("ble.log")),
                       "1.500 set 1 advertise address 46:05:04:03:02:01 data \(try frame("c0ffee"))\n2.000 set 1 stop\n")
    }

    func testAControllerFaultFailsLikeTheRealSocketAndTheRecoveringRadioRestoresTheSets() throws {
        let directory = TemporaryDirectory()
        let clock = StreamClock()
        let faults = SimulatedFaults()
        let log = try SimulatedLogFile(path: directory.file("ble.log"))
        var lines: [String] = []
        let radio = RecoveringAdvertiser(intervalMilliseconds: 100, log: { lines.append($0) }) { () throws(BluetoothError) -> any BLEDevice in
            try SimulatedBLEController(log: log, setCount: 1, clock: clock, faults: faults)
        }
        try radio.advertise(set: 0, data: try frame("0102"), address: BLEAddress(value: 0x0000_4605_0403_0201)!)
        faults.set(.bluetoothPower, on: true)
        radio.maintain(now: 0.02)
        XCTAssertEqual(radio.health, .poweredOff)
        XCTAssertTrue(radio.problem?.hasPrefix("bluetooth powered off: read(HCI socket)") ?? false, radio.problem ?? "nil")
        XCTAssertTrue(radio.problem?.contains("(errno \(ERFKILL))") ?? false, radio.problem ?? "nil")
        radio.maintain(now: 1.5)                             // retried while the fault holds: still off
        XCTAssertEqual(radio.health, .poweredOff)
        faults.set(.bluetoothPower, on: false)
        faults.set(.bluetoothPermission, on: true)
        radio.maintain(now: 10)
        XCTAssertEqual(radio.health, .permissionDenied, "EPERM is a permission problem")
        faults.set(.bluetoothPermission, on: false)
        radio.maintain(now: 100)
        XCTAssertEqual(radio.health, .ok)
        XCTAssertNil(radio.problem)
        let text = try FileSystem.readText(directory.file("ble.log"))
        XCTAssertEqual(text.split(separator: "\n").filter { $0.contains("advertise") }.count, 2, "the set is put back on the air\n\(text)")
        XCTAssertTrue(text.contains("controller lost (simulated fault bluetooth-power)"), text)
        XCTAssertTrue(lines.contains { $0.hasPrefix("bluetooth: controller back after: bluetooth permission denied") }, "\(lines)")
    }

    func testTheMicrophoneHearsTheSpeakerAndTheAudioFaultsAreReportedLikeALSAs() throws {
        let directory = TemporaryDirectory()
        let faults = SimulatedFaults()
        let speaker = try SimulatedAudioOutput(path: directory.file("audio.wav"), sampleRate: 48_000, periodFrames: 480,
                                               bufferPeriods: 1_000, faults: faults)
        let tone = (0..<480).map { Float(sin(Double($0) * 0.1)) * 0.5 }
        var heard = [Float](repeating: 0, count: 4_096)
        func play() throws { try tone.withBuffer { (samples) throws(AudioDeviceError) in try speaker.write(samples) } }
        func take() -> [Float] {
            let count = heard.withUnsafeMutableBufferPointer { speaker.microphone.read(into: $0) }
            return Array(heard.prefix(count))
        }

        try play()
        XCTAssertEqual(take(), [], "not listening yet")
        speaker.microphone.start()
        try play()
        XCTAssertTrue(take() == tone, "the microphone hears exactly what was played")

        faults.set(.audioMissing, on: true)
        XCTAssertEqual(speaker.status.health, .missing)
        try play()
        XCTAssertTrue(take() == [Float](repeating: 0, count: 480), "a missing card plays silence")
        faults.set(.audioMissing, on: false)
        faults.set(.microphonePermission, on: true)
        XCTAssertEqual(speaker.microphone.status.health, .permissionDenied)
        XCTAssertEqual(speaker.microphone.status.problem, .permissionDenied(device: "simulated microphone"))
        try play()
        XCTAssertEqual(take(), [], "a refused microphone hears nothing")
        faults.set(.microphonePermission, on: false)
        faults.set(.audioUnderruns, on: true)
        for _ in 0..<50 { try play() }                      // 0.5 s
        XCTAssertEqual(speaker.status.xruns, 1)
        XCTAssertEqual(speaker.status.health, .ok, "underruns are counted, not a device state")
        try speaker.drain()
        XCTAssertEqual(try WAVFileReader(path: directory.file("audio.wav")).layout.frames, 54 * 480)
    }
}
