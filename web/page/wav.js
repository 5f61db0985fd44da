// Reads the WAV files `nearcast decode` reads: 16-bit PCM or 32-bit float (plain or
// WAVE_FORMAT_EXTENSIBLE), any channel count (the first channel is taken).

export class WAVError extends Error {}

/** `{sampleRate, samples: Float32Array}` from a WAV file's bytes (an ArrayBuffer). */
export function readWAV(buffer, name = "the file") {
  const view = new DataView(buffer);
  const text = (offset) => String.fromCharCode(...new Uint8Array(buffer, offset, 4));
  if (buffer.byteLength < 12 || text(0) !== "RIFF" || text(8) !== "WAVE") {
    throw new WAVError(`${name}: not a WAV file (no RIFF/WAVE header)`);
  }
  let format = null;
  let offset = 12;
  while (offset + 8 <= buffer.byteLength) {
    const id = text(offset);
    const size = view.getUint32(offset + 4, true);
    const body = offset + 8;
    if (id === "fmt ") {
      if (size < 16) throw new WAVError(`${name}: the fmt chunk is ${size} bytes, too short`);
      let tag = view.getUint16(body, true);
      if (tag === 0xFFFE && size >= 40) tag = view.getUint16(body + 24, true);   // the sub-format's first two bytes
      format = {
        tag,
        channels: view.getUint16(body + 2, true),
        sampleRate: view.getUint32(body + 4, true),
        bits: view.getUint16(body + 14, true),
      };
    } else if (id === "data") {
      if (!format) throw new WAVError(`${name}: the data chunk comes before the fmt chunk`);
      const { tag, channels, sampleRate, bits } = format;
      const pcm16 = tag === 1 && bits === 16;
      const float32 = tag === 3 && bits === 32;
      if (!pcm16 && !float32) {
        throw new WAVError(`${name}: ${bits}-bit samples of format ${tag}; only 16-bit PCM and 32-bit float are read`);
      }
      if (channels < 1) throw new WAVError(`${name}: no channels`);
      const frameBytes = channels * bits / 8;
      const available = Math.min(size, buffer.byteLength - body);
      const frames = Math.floor(available / frameBytes);
      const samples = new Float32Array(frames);
      for (let i = 0; i < frames; i++) {
        const at = body + i * frameBytes;
        samples[i] = pcm16 ? view.getInt16(at, true) / 32768 : view.getFloat32(at, true);
      }
      return { sampleRate, samples };
    }
    offset = body + size + (size & 1);
  }
  throw new WAVError(`${name}: no ${format ? "data" : "fmt"} chunk`);
}
