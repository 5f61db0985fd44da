import Crypto

/// The work a phone id costs, done as the listener page's worker does it
/// (web/page/phone-id-worker.js): a nonce such that SHA-256(challenge + "\n" + nonce) starts with
/// `bits` zero bits. 2^bits hashes on average: a bench hub lowers `limits.phoneIdWorkBits` so ten
/// thousand phones on one machine do not spend minutes of its cores on it (tools/bench/phones
/// says what it sets).
enum ProofOfWork {
    static func solve(challenge: String, bits: Int) -> String {
        let prefix = Array((challenge + "\n").utf8)
        var counter: UInt64 = 0
        while true {
            let nonce = hex16(counter)
            var hasher = SHA256()
            hasher.update(data: prefix)
            hasher.update(data: nonce)
            if leadingZeroBits(hasher.finalize()) >= bits { return String(decoding: nonce, as: UTF8.self) }
            counter += 1
        }
    }

    /// `counter` as 16 lower-case hex digits (the nonce's spelling hubtest.solve_work uses too).
    private static func hex16(_ counter: UInt64) -> [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        return (0..<16).map { digits[Int((counter >> (60 - 4 * UInt64($0))) & 0xF)] }
    }

    private static func leadingZeroBits(_ digest: SHA256.Digest) -> Int {
        var zeros = 0
        for byte in digest {
            if byte == 0 {
                zeros += 8
                continue
            }
            return zeros + byte.leadingZeroBitCount
        }
        return zeros
    }
}
