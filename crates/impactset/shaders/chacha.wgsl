// ChaCha8 exactly as rand_chacha 0.9's `ChaCha8Rng` (docs/model.md §7): state
// words 0–3 the constants "expand 32-byte k", 4–11 the key, 12–13 the 64-bit
// block counter (low, high), 14–15 the 64-bit stream number (low, high);
// 8 rounds (4 double rounds); output block = rounds(state) + state, read word
// 0..15, then the counter increments. A stream is read from word 0.
// Only 32-bit integer arithmetic.

struct Stream {
    key: array<u32, 8>,
    stream_lo: u32,
    stream_hi: u32,
    block_lo: u32,     // counter of the next block to generate
    block_hi: u32,
    buf: array<u32, 16>,
    pos: u32,          // next word of `buf`; 16 = empty
    words: u32,        // words read so far (the stream position)
}

fn rotl(x: vec4<u32>, k: u32) -> vec4<u32> {
    return (x << vec4<u32>(k)) | (x >> vec4<u32>(32u - k));
}

// One ChaCha block with 8 rounds for `counter` (low, high).
fn chacha8_block(s: ptr<function, Stream>) {
    let k = vec4<u32>(0x61707865u, 0x3320646eu, 0x79622d32u, 0x6b206574u);
    let key0 = vec4<u32>((*s).key[0], (*s).key[1], (*s).key[2], (*s).key[3]);
    let key1 = vec4<u32>((*s).key[4], (*s).key[5], (*s).key[6], (*s).key[7]);
    let ctr = vec4<u32>((*s).block_lo, (*s).block_hi, (*s).stream_lo, (*s).stream_hi);
    var a = k;
    var b = key0;
    var c = key1;
    var d = ctr;
    for (var r = 0u; r < 4u; r++) {
        // Column round.
        a += b; d ^= a; d = rotl(d, 16u);
        c += d; b ^= c; b = rotl(b, 12u);
        a += b; d ^= a; d = rotl(d, 8u);
        c += d; b ^= c; b = rotl(b, 7u);
        // Diagonal round: rotate rows so diagonals become columns.
        b = b.yzwx; c = c.zwxy; d = d.wxyz;
        a += b; d ^= a; d = rotl(d, 16u);
        c += d; b ^= c; b = rotl(b, 12u);
        a += b; d ^= a; d = rotl(d, 8u);
        c += d; b ^= c; b = rotl(b, 7u);
        b = b.wxyz; c = c.zwxy; d = d.yzwx;
    }
    a += k; b += key0; c += key1; d += ctr;
    for (var i = 0u; i < 4u; i++) {
        (*s).buf[i] = a[i];
        (*s).buf[4u + i] = b[i];
        (*s).buf[8u + i] = c[i];
        (*s).buf[12u + i] = d[i];
    }
    (*s).block_lo += 1u;
    if (*s).block_lo == 0u {
        (*s).block_hi += 1u;
    }
    (*s).pos = 0u;
}

// A stream `(stream_lo, stream_hi)` under `key`, positioned at word 0.
fn stream_new(key: array<u32, 8>, stream_lo: u32, stream_hi: u32) -> Stream {
    return stream_at(key, stream_lo, stream_hi, 0u);
}

// The same stream positioned at word `word` (to resume a sample).
fn stream_at(key: array<u32, 8>, stream_lo: u32, stream_hi: u32, word: u32) -> Stream {
    var s: Stream;
    s.key = key;
    s.stream_lo = stream_lo;
    s.stream_hi = stream_hi;
    s.block_lo = word / 16u;
    s.block_hi = 0u;
    s.pos = 16u;
    s.words = word;
    if word % 16u != 0u {
        chacha8_block(&s);
        s.pos = word % 16u;
    }
    return s;
}

// The next word of the stream (`RngCore::next_u32`).
fn next_word(s: ptr<function, Stream>) -> u32 {
    if (*s).pos >= 16u {
        chacha8_block(s);
    }
    let x = (*s).buf[(*s).pos];
    (*s).pos += 1u;
    (*s).words += 1u;
    return x;
}

// `stream::unit`: (x >> 8) · 2⁻²⁴ ∈ [0, 1), exact in f32 and f64.
fn unit(x: u32) -> scalar {
    return scalar(x >> 8u) * scalar(5.9604644775390625e-8);
}

// `stream::cover`: 2⁻⁶ + (x >> 8) · 2⁻²⁴ ∈ [1/64, 1 + 1/64), exact in f32
// and f64 (the sum needs at most 24 significant bits).
fn cover(x: u32) -> scalar {
    return scalar(0.015625) + unit(x);
}

// `stream::index`: ((x >> 16) · k) >> 16 ∈ 0..k for 1 ≤ k ≤ 2¹⁶.
fn index(x: u32, k: u32) -> u32 {
    return ((x >> 16u) * k) >> 16u;
}
