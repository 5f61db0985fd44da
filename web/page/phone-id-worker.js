// The work a phone does for its id on the hub (docs/present-api.md, "Phone ids"): find a nonce such
// that SHA-256(challenge + "\n" + nonce) starts with `bits` zero bits. About half a second on a
// mid-range phone at the hub's default (an estimate: docs/measurements.md, "Phone ids"), done in
// this worker while the page already listens, so nobody waits for it; what one machine pays for
// each id it asks for, so it cannot invent thousands of phones.
//
// Message in: {challenge, bits}; out: {nonce, tries, ms}.
//
// Each try is one SHA-256 block, as a minter's is (tools/bench/phone-id-minter.c): the nonce is a
// filler of random hex digits and then an 8-hex-digit counter, laid out so that the counter and
// SHA-256's padding share the text's last 64-byte block. The state after every block before it (the
// challenge's, the same for every try) is computed once; the counter's digits are whole words of
// the last block (its high 4 digits, then its low 4, just before the padding), so the rounds before
// the high word are computed once too, those up to the low word once per 65,536 tries, and each try
// does the rest: the schedule and 52 rounds or so. Each try calls the small functions below rather
// than an inlined loop: a new worker runs them at full speed within milliseconds, where one long
// loop ran at a fraction of it for its first ~100 ms (Chromium 156), much of an id's time.

const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const INITIAL = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
const HEX = new TextEncoder().encode("0123456789abcdef");

/** The message schedule of the block in W[0..15]: W[16..63]. */
function schedule(W) {
  for (let i = 16; i < 64; i++) {
    const a = W[i - 15], b = W[i - 2];
    const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
    const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
    W[i] = (W[i - 16] + s0 + W[i - 7] + s1) | 0;
  }
}

/** SHA-256's rounds `from` to `to` - 1 over the words (scheduled) in W, on `state` (8 words, changed
 * in place; the caller adds the block's starting state after round 63). */
function rounds(state, W, from, to) {
  let a = state[0], b = state[1], c = state[2], d = state[3], e = state[4], f = state[5], g = state[6], h = state[7];
  for (let i = from; i < to; i++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + S1 + ((e & f) ^ (~e & g)) + K[i] + W[i]) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
  }
  state[0] = a; state[1] = b; state[2] = c; state[3] = d; state[4] = e; state[5] = f; state[6] = g; state[7] = h;
}

/** The 16 big-endian words of the 64 bytes at `offset` into W[0..15]. */
function load(W, bytes, offset) {
  for (let i = 0; i < 16; i++) {
    const j = offset + i * 4;
    W[i] = (bytes[j] << 24) | (bytes[j + 1] << 16) | (bytes[j + 2] << 8) | bytes[j + 3];
  }
}

/** The text to hash with its counter at 0, padded: {message, at} where the counter's 8 digits are
 * message[at..at + 8), word-aligned in the last block and ending at most 52 bytes into it (byte 52
 * for the padding's 0x80, 56-63 for the length), and the nonce (all that follows the prefix) is at
 * most 64 characters. */
function layout(prefix) {
  const used = prefix.length % 64;
  // Room in the prefix's last block for the counter before the padding: end it at byte 52. Else
  // the filler closes that block and the counter ends in the next one, no later than the nonce's
  // 64 characters allow (byte 44 at least, as `used` is 45 or more).
  const end = used <= 44 ? 52 : Math.min(52, used & ~3);
  const at = prefix.length - used + (used <= 44 ? 0 : 64) + end - 8;
  const length = at + 8;
  const message = new Uint8Array(Math.ceil((length + 9) / 64) * 64);
  message.set(prefix);
  const random = crypto.getRandomValues(new Uint8Array(at - prefix.length));
  for (let i = prefix.length; i < at; i++) message[i] = HEX[random[i - prefix.length] & 15];
  message.fill(HEX[0], at, length);
  message[length] = 0x80;
  const lengthBits = length * 8;
  message[message.length - 4] = (lengthBits >>> 24) & 255;
  message[message.length - 3] = (lengthBits >>> 16) & 255;
  message[message.length - 2] = (lengthBits >>> 8) & 255;
  message[message.length - 1] = lengthBits & 255;
  return { message, at };
}

// Two hex digits of a byte, as a 16-bit word of their ASCII.
const PAIRS = new Int32Array(256).map((_, value) => (HEX[value >>> 4] << 8) | HEX[value & 15]);

/** Four hex digits of a 16-bit value, as one big-endian word of their ASCII. */
function hexWord(value) {
  return (PAIRS[value >>> 8] << 16) | PAIRS[value & 255];
}

function solve(challenge, bits) {
  const started = performance.now();
  const prefix = new TextEncoder().encode(challenge + "\n");
  const { message, at } = layout(prefix);
  const last = message.length - 64;
  const W = new Int32Array(64);
  // The state after the blocks every try shares.
  const mid = Int32Array.from(INITIAL);
  for (let offset = 0; offset < last; offset += 64) {
    load(W, message, offset);
    schedule(W);
    const state = mid.slice();
    rounds(state, W, 0, 64);
    for (let i = 0; i < 8; i++) mid[i] = (mid[i] + state[i]) | 0;
  }
  load(W, message, last);
  const high = (at - last) / 4, low = high + 1;   // the counter's words in the last block
  const fixed = mid.slice();
  rounds(fixed, W, 0, high);
  const m0 = mid[0], m1 = mid[1];
  const state = new Int32Array(8), digest = new Int32Array(8);
  // A random start (and the filler's random digits), so that two pages given the same challenge do
  // not redo the same tries.
  const start = crypto.getRandomValues(new Uint16Array(1))[0];
  let tries = 0;
  for (let step = 0; step < 65536; step++) {
    const highValue = (start + step) & 0xffff;
    W[high] = hexWord(highValue);
    state.set(fixed);
    rounds(state, W, high, low);
    for (let lowValue = 0; lowValue < 65536; lowValue++) {
      W[low] = hexWord(lowValue);
      schedule(W);
      digest.set(state);
      rounds(digest, W, low, 64);
      tries++;
      // The digest's first word, and its second when more than 32 bits are asked for.
      const first = (m0 + digest[0]) | 0;
      const zeros = first !== 0 ? Math.clz32(first) : 32 + Math.clz32((m1 + digest[1]) | 0);
      if (zeros >= bits) {
        const counter = (highValue << 16) | lowValue;
        for (let i = 0; i < 8; i++) message[at + i] = HEX[(counter >>> (28 - 4 * i)) & 15];
        const nonce = new TextDecoder().decode(message.subarray(prefix.length, at + 8));
        return { nonce, tries, ms: performance.now() - started };
      }
    }
  }
  throw new Error("no nonce found");
}

self.onmessage = (event) => {
  const { challenge, bits } = event.data;
  try {
    self.postMessage(solve(challenge, bits));
  } catch (error) {
    self.postMessage({ error: String(error) });
  }
};
