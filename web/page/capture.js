// What the listener (listen.html) and the field check (check.html) share: the microphone into
// the box's decoder (the checks that tell a user why a page cannot listen, the microphone with
// the browser's processing off, an AudioContext at a rate the decoder uses, and the AudioWorklet
// and SharedArrayBuffer ring feeding the decoder's Worker, listener-worker.js), and where the hub is.

const ringSeconds = 4;            // at least; the ring's length is the next power of two

/** Why a page cannot listen, in the user's words (its message is shown as it is). */
export class CaptureProblem extends Error {}

/** Why the microphone could not be opened, in the user's words. */
function microphoneProblem(error) {
  switch (error.name) {
    case "NotAllowedError":
    case "SecurityError":
      return "Microphone permission was denied. Allow the microphone for this site in the browser's settings, then reload.";
    case "NotFoundError":
    case "OverconstrainedError":
      return "No microphone was found.";
    case "NotReadableError":
      return "The microphone is in use by another app or cannot be read.";
    default:
      return `The microphone could not be opened: ${error.message}`;
  }
}

/** An AudioContext at the microphone's own rate when the decoder can use it (no resampler in
 * the way of 18.5-20 kHz), else at 48 kHz. */
function makeContext(trackRate) {
  const rate = trackRate === 44_100 || trackRate === 48_000 ? trackRate : 48_000;
  try {
    return new AudioContext({ sampleRate: rate, latencyHint: "playback" });
  } catch {
    return new AudioContext({ latencyHint: "playback" });   // a browser that cannot pick the rate
  }
}

/** Checks that this page can listen and opens the microphone with the browser's processing off:
 * {stream, track, context, source}. `asking` is called just before the browser asks the user.
 * Throws a CaptureProblem saying why not (the microphone is released again then). */
export async function openMicrophone(asking = () => {}) {
  if (!window.isSecureContext) {
    // Checked first: an insecure page is never cross-origin isolated either, and the isolation
    // headers are not what is missing.
    throw new CaptureProblem(`This page must be opened over HTTPS: at ${location.protocol}//${location.host} the browser gives it no `
      + "microphone. Open the https:// address of this page (the venue's QR code has it).");
  }
  if (!window.crossOriginIsolated) {
    throw new CaptureProblem("This page is not cross-origin isolated, so it cannot share audio with its decoder: "
      + "the server must send Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp.");
  }
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    throw new CaptureProblem("This browser gives no microphone to this page (it must be opened over HTTPS).");
  }
  if (!window.AudioWorkletNode) {
    throw new CaptureProblem("This browser lacks AudioWorklet, which the listener needs.");
  }
  asking();
  let stream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({
      audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false, channelCount: 1 },
    });
  } catch (error) {
    throw new CaptureProblem(microphoneProblem(error));
  }
  const refuse = (text) => {
    for (const track of stream.getTracks()) track.stop();
    return new CaptureProblem(text);
  };
  const track = stream.getAudioTracks()[0];
  const trackRate = (track.getSettings && track.getSettings().sampleRate) || 0;
  if (trackRate && trackRate < 44_100) {
    throw refuse(`This microphone gives audio at ${trackRate} Hz, which cannot carry 18.5–20 kHz `
      + "(the listener needs 44.1 or 48 kHz; a Bluetooth headset's microphone is often 16 kHz: use the phone's own).");
  }
  const context = makeContext(trackRate);
  if (context.sampleRate !== 48_000 && context.sampleRate !== 44_100) {
    throw refuse(`This browser gives audio at ${context.sampleRate} Hz; the listener needs 44.1 or 48 kHz.`);
  }
  let source;
  try {
    source = context.createMediaStreamSource(stream);
  } catch (error) {
    throw refuse(`The browser cannot feed this microphone (${trackRate || "unknown"} Hz) to a ${context.sampleRate} Hz `
      + `audio graph: ${error.message}`);
  }
  return { stream, track, context, source };
}

/** The browser's own processing still on although openMicrophone asked for it off, as the track's
 * settings report it: e.g. ["echo cancellation", "noise suppression"]. Either of those two hears
 * neither of the box's bands (measured); a browser that reports nothing counts as off. */
export function processingStillOn(track) {
  const settings = (track.getSettings && track.getSettings()) || {};
  return [["echoCancellation", "echo cancellation"], ["noiseSuppression", "noise suppression"], ["autoGainControl", "automatic gain control"]]
    .filter(([setting]) => settings[setting] === true)
    .map(([, name]) => name);
}

/** Starts the decoder's Worker on `source` through the worklet's ring. The Worker's messages go
 * to `onMessage`; a Worker that cannot start, to `onError` with the user's words. `check`: the
 * Worker measures the field check's sweep too. Resolves once the worklet runs. */
export function startWorker(context, source, { onMessage, onError, check = false }) {
  const samples = new SharedArrayBuffer(4 * 2 ** Math.ceil(Math.log2(ringSeconds * context.sampleRate)));
  const control = new SharedArrayBuffer(8);
  const worker = new Worker(new URL("listener-worker.js", import.meta.url), { type: "module" });
  worker.onmessage = (event) => onMessage(event.data);
  worker.onerror = (event) => onError(`The decoder could not start: ${event.message || "a script failed to load"}`);
  worker.postMessage({ type: "start", sampleRate: context.sampleRate, samples, control, check });
  return context.audioWorklet.addModule(new URL("listener-worklet.js", import.meta.url)).then(() => {
    const writer = new AudioWorkletNode(context, "nearcast-ring-writer", {
      numberOfInputs: 1, numberOfOutputs: 1, outputChannelCount: [1],
      // The first channel as it is, like `nearcast decode`: not a mix of two microphones.
      channelCount: 1, channelCountMode: "explicit", channelInterpretation: "discrete",
      processorOptions: { samples, control },
    });
    source.connect(writer);
    writer.connect(context.destination);   // pulls the node; its output is silence
  });
}

/** The hub to ask: `given` (the page's `hub=` parameter), else this page's own origin when a
 * hub served it (a hub answers listener-hub.json beside its pages; a static copy does not), else
 * "" (no hub). */
export async function hubAddress(given) {
  if (given) return given;
  if (!location.protocol.startsWith("http")) return "";
  try {
    const response = await fetch(new URL("listener-hub.json", location.href), { cache: "no-store" });
    return response.ok && (await response.json()).servedByHub === true ? location.origin : "";
  } catch {
    return "";
  }
}
