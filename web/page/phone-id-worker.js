// The work a phone does for its id on the hub (docs/present-api.md, "Phone ids"): find a nonce such
// that SHA-256(challenge + "\n" + nonce) starts with `bits` zero bits. About a second on a
// mid-range phone at the hub's default, done in this worker while the page already listens, so
// nobody waits for it; what one machine pays for each id it asks for, so it cannot invent
// thousands of phones.
//
// Message in: {challenge, bits}; out: {nonce, tries, ms}.

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const W = new Uint32Array(64);

/** SHA-256 of `bytes` (already padded to whole 64-byte blocks): the first word of the digest, and
 * the second (enough to count up to 64 leading zero bits). */
function firstWords(blocks) {
  let h0 = 0x6a09e667, h1 = 0xbb67ae85, h2 = 0x3c6ef372, h3 = 0xa54ff53a;
  let h4 = 0x510e527f, h5 = 0x9b05688c, h6 = 0x1f83d9ab, h7 = 0x5be0cd19;
  for (let offset = 0; offset < blocks.length; offset += 64) {
    for (let i = 0; i < 16; i++) {
      const j = offset + i * 4;
      W[i] = (blocks[j] << 24) | (blocks[j + 1] << 16) | (blocks[j + 2] << 8) | blocks[j + 3];
    }
    for (let i = 16; i < 64; i++) {
      const a = W[i - 15], b = W[i - 2];
      const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
      const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
      W[i] = (W[i - 16] + s0 + W[i - 7] + s1) | 0;
    }
    let a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, h = h7;
    for (let i = 0; i < 64; i++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const t1 = (h + S1 + ((e & f) ^ (~e & g)) + K[i] + W[i]) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
    }
    h0 = (h0 + a) | 0; h1 = (h1 + b) | 0; h2 = (h2 + c) | 0; h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0; h5 = (h5 + f) | 0; h6 = (h6 + g) | 0; h7 = (h7 + h) | 0;
  }
  return [h0 >>> 0, h1 >>> 0];
}

function leadingZeroBits([first, second]) {
  return first === 0 ? 32 + Math.clz32(second) : Math.clz32(first);
}

/** The padded message `prefix` + the nonce (16 hex digits, written in place at `at`). */
function paddedMessage(prefix) {
  const length = prefix.length + 16;
  const blocks = new Uint8Array(Math.ceil((length + 9) / 64) * 64);
  blocks.set(prefix);
  blocks[length] = 0x80;
  const bits = length * 8;
  blocks[blocks.length - 4] = (bits >>> 24) & 255;
  blocks[blocks.length - 3] = (bits >>> 16) & 255;
  blocks[blocks.length - 2] = (bits >>> 8) & 255;
  blocks[blocks.length - 1] = bits & 255;
  return { blocks, at: prefix.length };
}

const HEX = new TextEncoder().encode("0123456789abcdef");

function solve(challenge, bits) {
  const started = performance.now();
  const { blocks, at } = paddedMessage(new TextEncoder().encode(challenge + "\n"));
  // A random start, so two pages given the same challenge (a reload) do not redo the same tries.
  const high = crypto.getRandomValues(new Uint32Array(1))[0];
  for (let i = 0; i < 8; i++) blocks[at + i] = HEX[(high >>> (28 - 4 * i)) & 15];
  for (let low = 0; low <= 0xffffffff; low++) {
    for (let i = 0; i < 8; i++) blocks[at + 8 + i] = HEX[(low >>> (28 - 4 * i)) & 15];
    if (leadingZeroBits(firstWords(blocks)) >= bits) {
      const nonce = new TextDecoder().decode(blocks.subarray(at, at + 16));
      return { nonce, tries: low + 1, ms: performance.now() - started };
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
