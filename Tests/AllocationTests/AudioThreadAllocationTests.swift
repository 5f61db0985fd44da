import Glibc
import NearcastCore
import NearcastDrivers
import XCTest

/// The ALSA playback and capture threads allocate nothing once running, through the real
/// libasound (the `file` plugin over a `null` slave stands in for the sound card).
final class AudioThreadAllocationTests: XCTestCase {
    private let rate = 48_000
    private let period = 1024
    private var directory = ""

    override func setUpWithError() throws {
        var template = Array("/tmp/nearcast-alloc-XXXXXX".utf8CString)
        directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        let config = """
            pcm.nearcast_speaker { type file slave { pcm { type null } } file "\(directory)/played.wav" format "wav" }
            pcm.nearcast_mic { type file slave { pcm { type null } } file "/dev/null" infile "/dev/zero" format "raw" }

            """
        try FileSystem.writeAtomically("\(directory)/asound.conf", Array(config.utf8))
        setenv("ALSA_CONFIG_PATH", "\(directory)/asound.conf", 1)
    }

    override func tearDown() {
        unlink("\(directory)/played.wav")
        unlink("\(directory)/asound.conf")
        rmdir(directory)
    }

    /// The thread filter really sees another thread's allocations (so a zero below means zero).
    func testTheCounterSeesAnotherThreadsAllocations() {
        // Two POSIX semaphores (they allocate nothing): [0] "the counting has begun", posted by
        // the counting side; [1] "allocated", posted by the thread.
        let signals = UnsafeMutablePointer<sem_t>.allocate(capacity: 2)
        defer { sem_destroy(signals); sem_destroy(signals + 1); signals.deallocate() }
        sem_init(signals, 0, 0)
        sem_init(signals + 1, 0, 0)
        var thread = pthread_t()
        pthread_create(&thread, nil, { raw in
            let signals = raw!.assumingMemoryBound(to: sem_t.self)
            while sem_wait(signals) != 0 {}           // allocate only once the counting has begun
            let numbers = [Int](repeating: 7, count: 1_000)
            sem_post(signals + 1)
            return UnsafeMutableRawPointer(bitPattern: numbers.count)
        }, signals)
        var allocated = false
        let seen = AllocationCounter.allocations(onThread: thread) {
            sem_post(signals)
            var deadline = timespec()
            clock_gettime(CLOCK_REALTIME, &deadline)
            deadline.tv_sec += 10
            var result: Int32
            repeat { result = sem_timedwait(signals + 1, &deadline) } while result != 0 && errno == EINTR
            allocated = result == 0
        }
        pthread_join(thread, nil)
        XCTAssertTrue(allocated, "the thread did not allocate within 10 s of the counting's start")
        XCTAssertGreaterThan(seen, 0)
    }

    func testPlaybackThreadAllocatesNothingWhilePlaying() throws {
        XCTAssertTrue(AllocationCounter.isActive, "malloc-interposer must replace malloc in the test process")
        let output = try ALSAPlayback(device: "nearcast_speaker", sampleRate: rate, periodFrames: period)
        let encoder = try BurstEncoder(sampleRate: rate)
        let periodBuffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: period)
        defer { periodBuffer.deallocate() }
        var written = 0
        var failure: AudioDeviceError?
        /// Plays `seconds` of bursts, one every second, with gaps where the ring runs dry (silence).
        func play(seconds: Double) {
            let end = written + Int(seconds * Double(rate))
            while written < end {
                if written % rate < period { encoder.start(Token(kind: .direct, packed: UInt64(written), count: 8)!) }
                for i in 0..<period { periodBuffer[i] = 0 }
                encoder.render(into: periodBuffer)
                do { try output.write(UnsafeBufferPointer(periodBuffer)) } catch { failure = error }
                written += period
                // A deliberate stall, part of the stimulus (not a wait for anything): the ring runs
                // dry and the thread plays silence, a path that must not allocate either.
                if written % (rate * 2) < period { usleep(150_000) }
            }
        }
        play(seconds: 0.5)                            // warm-up: the device opened, first periods played
        let thread = try XCTUnwrap(output.threadHandle)
        let allocations = AllocationCounter.allocations(onThread: thread) { play(seconds: 4) }
        try output.drain()
        XCTAssertNil(failure)
        XCTAssertEqual(output.status.health, .ok)
        XCTAssertEqual(allocations, 0, "the playback thread allocated while playing")
    }

    func testCaptureThreadAllocatesNothingWhileCapturing() throws {
        XCTAssertTrue(AllocationCounter.isActive, "malloc-interposer must replace malloc in the test process")
        let capture = try ALSACapture(device: "nearcast_mic", sampleRate: rate, periodFrames: period)
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: period)
        defer { buffer.deallocate() }
        var total = 0
        func take(seconds: Double) {
            let end = MonotonicClock.seconds() + seconds
            while MonotonicClock.seconds() < end {
                total += capture.read(into: buffer)
                usleep(10_000)                        // the reader's pace over a fixed capture time (the stimulus)
            }
        }
        take(seconds: 0.5)
        let thread = try XCTUnwrap(capture.threadHandle)
        let allocations = AllocationCounter.allocations(onThread: thread) { take(seconds: 3) }
        capture.stop()
        XCTAssertEqual(capture.status.health, .ok)
        XCTAssertGreaterThan(total, 3 * rate, "the capture thread kept delivering")
        XCTAssertEqual(allocations, 0, "the capture thread allocated while capturing")
    }
}
