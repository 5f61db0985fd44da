/* The hub's phone-id work done as an attacker with one core and OpenSSL would do it
 * (docs/present-api.md, "Phone ids"; a hand-written kernel interleaving several tries' SHA
 * instructions might do more, not tried): find nonces such that SHA-256(challenge + "\n" + nonce)
 * starts with `bits` zero bits, for `seconds`, and say how many hashes that took.
 *
 *   phone-id-minter CHALLENGE BITS SECONDS [midstate|oneshot]
 *
 * midstate (the default, what a minter does): the nonce is a fixed filler (0 to 24 'x's, so that
 * the varying part and SHA-256's padding share the last 64-byte block) and 16 hex digits. The
 * state after every block before the last is computed once; each try is then one compression of
 * one block (OpenSSL's SHA256_Transform: its SHA extensions code where the CPU has them, sha_ni in
 * /proc/cpuinfo), on a block whose digits are stepped in place.
 * oneshot: each try hashes the whole text (OpenSSL's SHA256()), as a naive client would.
 * The nonce is at most 64 characters, as the hub asks.
 *
 * Prints one line per nonce found (`nonce NONCE`), then `hashes N cpu_seconds S wall_seconds W
 * compressions_per_hash C`. tools/bench/phone-id-mint compiles this, runs it and checks every
 * nonce it prints with Python's hashlib. */
#define OPENSSL_SUPPRESS_DEPRECATED /* SHA256_Transform: deprecated in OpenSSL 3, still exported */
#include <openssl/sha.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double seconds_of(clockid_t clock) {
    struct timespec now;
    clock_gettime(clock, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

static const char hex[] = "0123456789abcdef";

/* Steps the 16 hex digits at `digits` to the next value (the last digit fastest). */
static inline void step(unsigned char *digits) {
    for (int i = 15; i >= 0; i--) {
        unsigned char c = digits[i];
        if (c == '9') { digits[i] = 'a'; return; }
        if (c != 'f') { digits[i] = c + 1; return; }
        digits[i] = '0';
    }
}

static inline int zero_bits(uint32_t first, uint32_t second) {
    if (first) return __builtin_clz(first);
    return second ? 32 + __builtin_clz(second) : 64;
}

int main(int argc, char **argv) {
    if (argc < 4 || argc > 5) {
        fprintf(stderr, "usage: %s CHALLENGE BITS SECONDS [midstate|oneshot]\n", argv[0]);
        return 2;
    }
    const char *challenge = argv[1];
    int bits = atoi(argv[2]);
    double seconds = atof(argv[3]);
    int oneshot = argc == 5 && strcmp(argv[4], "oneshot") == 0;
    if (argc == 5 && !oneshot && strcmp(argv[4], "midstate") != 0) {
        fprintf(stderr, "phone-id-minter: the mode is midstate or oneshot, not %s\n", argv[4]);
        return 2;
    }
    if (bits < 1 || bits > 64) {
        fprintf(stderr, "phone-id-minter: bits must be 1 to 64\n");
        return 2;
    }

    size_t prefix = strlen(challenge) + 1; /* challenge + "\n" */
    /* The varying 16 digits and the padding (0x80, then the 8-byte length) fit in one block when
     * the text's length modulo 64 leaves 16 + 9 bytes; otherwise fill to the block's end first. */
    size_t filler = (prefix % 64) + 16 + 9 <= 64 ? 0 : 64 - prefix % 64;
    size_t length = prefix + filler + 16;
    unsigned char *text = malloc(length + 128);
    memcpy(text, challenge, prefix - 1);
    text[prefix - 1] = '\n';
    memset(text + prefix, 'x', filler);
    unsigned char *digits = text + prefix + filler;
    /* A random start, as the page's worker makes, so two runs do not redo the same tries. */
    uint64_t start;
    FILE *random = fopen("/dev/urandom", "rb");
    if (!random || fread(&start, sizeof start, 1, random) != 1) return 1;
    fclose(random);
    for (int i = 0; i < 16; i++) digits[i] = hex[(start >> (60 - 4 * i)) & 15];

    /* The state after the blocks every try shares, and the last block, padded. */
    size_t shared = length / 64 * 64;
    SHA256_CTX mid;
    SHA256_Init(&mid);
    for (size_t at = 0; at < shared; at += 64) SHA256_Transform(&mid, text + at);
    unsigned char block[64] = {0};
    size_t tail = length - shared;
    memcpy(block, text + shared, tail);
    uint64_t length_bits = (uint64_t)length * 8;
    for (int i = 0; i < 8; i++) block[56 + i] = (unsigned char)(length_bits >> (56 - 8 * i));
    block[tail] = 0x80;
    unsigned char *block_digits = block + (tail - 16);
    memcpy(block_digits, digits, 16);
    /* The digits each try steps: the last block's (midstate), or the whole text's (oneshot). */
    unsigned char *counter = oneshot ? digits : block_digits;

    double cpu_started = seconds_of(CLOCK_THREAD_CPUTIME_ID), wall_started = seconds_of(CLOCK_MONOTONIC);
    double deadline = wall_started + seconds;
    uint64_t hashes = 0;
    for (;;) {
        for (int batch = 0; batch < 65536; batch++) {
            int found;
            if (oneshot) {
                unsigned char digest[32];
                SHA256(text, length, digest);
                uint32_t first = (uint32_t)digest[0] << 24 | (uint32_t)digest[1] << 16 | (uint32_t)digest[2] << 8 | digest[3];
                uint32_t second = (uint32_t)digest[4] << 24 | (uint32_t)digest[5] << 16 | (uint32_t)digest[6] << 8 | digest[7];
                found = zero_bits(first, second) >= bits;
            } else {
                SHA256_CTX state = mid;
                SHA256_Transform(&state, block);
                found = zero_bits(state.h[0], state.h[1]) >= bits;
            }
            if (found) {
                if (counter != digits) memcpy(digits, counter, 16);
                printf("nonce %.*s\n", (int)(filler + 16), (const char *)text + prefix);
            }
            step(counter);
        }
        hashes += 65536;
        if (seconds_of(CLOCK_MONOTONIC) >= deadline) break;
    }
    double cpu = seconds_of(CLOCK_THREAD_CPUTIME_ID) - cpu_started, wall = seconds_of(CLOCK_MONOTONIC) - wall_started;
    printf("hashes %llu cpu_seconds %.4f wall_seconds %.4f compressions_per_hash %d\n", (unsigned long long)hashes, cpu, wall,
           oneshot ? (int)((length + 9 + 63) / 64) : 1);
    free(text);
    return 0;
}
