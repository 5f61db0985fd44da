// nearby-hello: a program on the box using Nearcast's Nearby-style API (the NearcastNearby
// library) on the simulated board's devices. It publishes the direct token "hello" on audio and
// BLE, subscribes on both, and drives the devices itself: each 20 ms period the manager's
// scheduler says what to play and advertise, the speaker plays it (into a WAV file, paced like a
// sound card), the microphone that hears the speaker feeds the decoder, and the simulated
// scanner hears the advertiser. Found and lost tokens are printed as they happen.
//
//     swift run nearby-hello [DIRECTORY] [SECONDS]     (default: the working directory, 5 s)
import Glibc
import NearcastCore
import NearcastDrivers
import NearcastNearby

let arguments = CommandLine.arguments
let directory = arguments.count > 1 ? arguments[1] : "."
guard let seconds = arguments.count > 2 ? Double(arguments[2]) : 5, seconds > 0, seconds <= 600 else {
    print("nearby-hello: SECONDS must be a number of seconds from 0 to 600")
    exit(2)
}

do {
    let rate = 48_000, period = 960
    let clock = StreamClock()
    let faults = SimulatedFaults()
    let speaker = try SimulatedAudioOutput(path: directory + "/nearby-hello.wav", sampleRate: rate, periodFrames: period,
                                           faults: faults)
    let controller = try SimulatedBLEController(log: try SimulatedLogFile(path: directory + "/nearby-hello-ble.log"),
                                                setCount: 1, clock: clock, faults: faults)
    let encoder = try BurstEncoder(sampleRate: rate)
    let decoder = try BurstDecoder(sampleRate: rate)

    // The manager: a scheduler clocked in samples, EIDs through OpenSSL's AES (unused here).
    let configuration = SchedulerConfiguration(ticksPerSecond: rate, audioBurstLength: Int64(encoder.rate.burstSamples))
    let manager = MessageManager(configuration: configuration, clock: BeaconClock(startingAt: 0), cipher: OpenSSLAES128(),
                                 seed: 2026, lostAfterSeconds: 3)
    manager.onBluetoothPowerError = { off in print(off ? "bluetooth is off" : "bluetooth is back") }
    let hello = try Token(kind: .direct, hex: "68656c6c6f")
    let publication = try manager.publish(.direct(hello), strategy: Strategy(mediums: .both, mode: .broadcast))
    let subscription = try manager.subscribe(strategy: Strategy(mediums: .both, mode: .scan),
                                             onFound: { print("found \($0)") }, onLost: { print("lost \($0.token)") })
    print("publishing \(publication.message) on audio and BLE; listening on both for \(Int(seconds)) s")

    var position = 0
    speaker.microphone.start()
    controller.onReport = { event in try? manager.heard(report: Array(event), at: Int64(position)) }
    try controller.setScanning(true)
    var buffer = [Float](repeating: 0, count: period)
    var heard = [Float](repeating: 0, count: period)
    while position < Int(seconds * Double(rate)) {
        try buffer.withMutableBuffer { (span) throws(BluetoothError) in
            span.update(repeating: 0)
            encoder.render(into: span)                              // a burst begun in an earlier period
            var failure: BluetoothError?
            manager.tick(at: Int64(position), count: period) { action in
                clock.seconds = Double(position) / Double(rate)
                do throws(BluetoothError) {
                    switch action {
                    case .audioBurst(_, let token, let at):
                        encoder.start(token)
                        encoder.render(into: UnsafeMutableBufferPointer(rebasing: span[(Int(at) - position)...]))
                    case .advertise(let set, _, let token, let address, _):
                        try controller.advertise(set: set, data: EddystoneFrame.advertisingData(for: token, txPower: -12),
                                                 address: address)
                    case .stopAdvertising(let set, _):
                        try controller.stop(set: set)
                    case .tokenNeeded, .tokenChanged:
                        break
                    }
                } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
        }
        try buffer.withBuffer { (samples) throws(AudioDeviceError) in try speaker.write(samples) }
        let got = heard.withUnsafeMutableBufferPointer { speaker.microphone.read(into: $0) }
        heard.withUnsafeBufferPointer { samples in
            decoder.push(UnsafeBufferPointer(rebasing: samples[0..<got])) { burst in
                manager.heard(burst.token, on: .audio, at: Int64(position))
            }
        }
        try controller.maintain(now: Double(position) / Double(rate))
        position += period
    }
    try speaker.drain()
    print("heard now: " + subscription.present.map { $0.hex }.joined(separator: ", "))
    publication.unpublish()
    subscription.cancel()
} catch {
    print("nearby-hello: \(error)")
    exit(1)
}
