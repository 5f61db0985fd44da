// The listener's AudioWorklet: copies the microphone's first channel into a SharedArrayBuffer
// ring that the decoder's Worker drains. It does nothing else, so a render quantum (128 frames,
// 2.7 ms at 48 kHz) never waits for the decoder, whose block that completes a burst takes longer.
//
// The ring: `samples` (a Float32Array over a SharedArrayBuffer, a power-of-two length) and
// `control` (an Int32Array): control[0] is the count of samples written so far. It wraps at
// 2^31, which is harmless: the reader only subtracts, and indexes with the ring's mask.

class RingWriter extends AudioWorkletProcessor {
  constructor(options) {
    super();
    const { samples, control } = options.processorOptions;
    this.samples = new Float32Array(samples);
    this.control = new Int32Array(control);
    this.mask = this.samples.length - 1;
  }

  process(inputs) {
    const channel = inputs[0] && inputs[0][0];
    if (!channel) return true;   // no input connected (yet)
    let written = Atomics.load(this.control, 0);
    for (let i = 0; i < channel.length; i++) this.samples[(written + i) & this.mask] = channel[i];
    written = (written + channel.length) | 0;
    Atomics.store(this.control, 0, written);   // after the samples: the reader sees them complete
    return true;
  }
}

registerProcessor("nearcast-ring-writer", RingWriter);
