/// A fixed-capacity ring of audio samples: the hand-over point between the modem and the audio
/// drivers (the encoder renders into one that the playback driver drains; a capture driver
/// fills one that the decoder drains).
///
/// Storage is allocated once, in `init`; nothing after allocates. Writers and readers work in
/// place through contiguous regions (`withWritableRegion`, `withReadableRegion`), so a driver
/// can hand a region straight to `snd_pcm_writei`/`readi` without a copy; a region never wraps
/// past the end of the storage, so when the capacity is a whole number of periods and both
/// sides move whole periods, every region is one whole period.
///
/// One producer and one consumer, on the same thread or handed over under the caller's own
/// synchronisation (the core has no atomics).
///
/// ```swift
/// let ring = SampleRing(capacity: 4 * 960)
/// encoder.render(into: ring)
/// try output.write(from: ring, frames: 960)
/// ```
public final class SampleRing {
    /// Samples the ring holds at most.
    public let capacity: Int
    private let storage: UnsafeMutableBufferPointer<Float>
    private var readCount = 0      // samples ever read
    private var writeCount = 0     // samples ever written

    /// A ring for `capacity` samples (allocated now, zeroed).
    public init(capacity: Int) {
        precondition(capacity > 0, "a ring needs room for at least one sample")
        self.capacity = capacity
        storage = .allocate(capacity: capacity)
        storage.initialize(repeating: 0)
    }

    deinit { storage.deallocate() }

    /// Samples written and not yet read.
    public var count: Int { writeCount - readCount }
    /// Room left for writing.
    public var freeSpace: Int { capacity - count }
    /// True when nothing is waiting to be read.
    public var isEmpty: Bool { count == 0 }

    /// Calls `body` with the next contiguous free region (at most `maximum` samples, possibly
    /// empty); `body` returns how many samples it wrote from the region's start. Returns that.
    @discardableResult
    public func withWritableRegion(maximum: Int = .max,
                                   _ body: (UnsafeMutableBufferPointer<Float>) -> Int) -> Int {
        let start = writeCount % capacity
        let length = min(maximum, freeSpace, capacity - start)
        let written = body(UnsafeMutableBufferPointer(rebasing: storage[start..<(start + length)]))
        precondition(written >= 0 && written <= length, "wrote outside the region")
        writeCount += written
        return written
    }

    /// Calls `body` with the next contiguous readable region (at most `maximum` samples,
    /// possibly empty); `body` returns how many samples it consumed. Returns that.
    @discardableResult
    public func withReadableRegion<E: Error>(maximum: Int = .max,
                                             _ body: (UnsafeBufferPointer<Float>) throws(E) -> Int) throws(E) -> Int {
        let start = readCount % capacity
        let length = min(maximum, count, capacity - start)
        let consumed = try body(UnsafeBufferPointer(rebasing: storage[start..<(start + length)]))
        precondition(consumed >= 0 && consumed <= length, "consumed outside the region")
        readCount += consumed
        return consumed
    }

    /// Forgets everything waiting to be read.
    public func discardAll() { readCount = writeCount }

    /// Copies as many of `samples` as fit; returns how many.
    @discardableResult
    public func write(_ samples: UnsafeBufferPointer<Float>) -> Int {
        fillRegions(samples.count) { region, offset in
            for i in region.indices { region[i] = samples[offset + i] }
        }
    }

    /// Writes up to `count` zeros (as many as fit); returns how many.
    @discardableResult
    public func writeSilence(_ count: Int) -> Int {
        fillRegions(count) { region, _ in region.update(repeating: 0) }
    }

    /// Fills up to `total` samples region by region; `fill` gets each region and how many
    /// samples came before it.
    private func fillRegions(_ total: Int, _ fill: (UnsafeMutableBufferPointer<Float>, Int) -> Void) -> Int {
        var done = 0
        while done < total {
            let step = withWritableRegion(maximum: total - done) { region in
                fill(region, done)
                return region.count
            }
            if step == 0 { break }
            done += step
        }
        return done
    }

    /// Copies up to `output.count` samples out; returns how many.
    @discardableResult
    public func read(into output: UnsafeMutableBufferPointer<Float>) -> Int {
        var done = 0
        while done < output.count {
            let step = withReadableRegion(maximum: output.count - done) { region in
                for i in region.indices { output[done + i] = region[i] }
                return region.count
            }
            if step == 0 { break }
            done += step
        }
        return done
    }
}

extension BurstEncoder {
    /// Renders the next samples of the armed burst into `ring`, at most `maximum`; returns how
    /// many were written (0 when finished or the ring is full).
    @discardableResult
    public func render(into ring: SampleRing, maximum: Int = .max) -> Int {
        var done = 0
        while done < maximum && !isFinished {
            let step = ring.withWritableRegion(maximum: maximum - done) { render(into: $0) }
            if step == 0 { break }
            done += step
        }
        return done
    }
}

extension BurstDecoder {
    /// Decodes every sample waiting in `ring`, leaving it empty.
    public func push(from ring: SampleRing, _ onBurst: (DecodedBurst) -> Void) {
        while !ring.isEmpty {
            ring.withReadableRegion { region in
                push(region, onBurst)
                return region.count
            }
        }
    }
}
