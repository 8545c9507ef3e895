//! The GPU's ChaCha8 words are rand_chacha's (docs/model.md §7).

mod common;

use impactset::gpu::chacha_words_gpu;
use impactset::sampling::stream::{SampleStreams, stream_key};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[test]
fn gpu_chacha_words_equal_rand_chacha() {
    let Some(ctx) = common::gpu::gpu() else { return };
    let streams: Vec<u64> = vec![
        0,
        1,
        2,
        63,
        64,
        1 << 31,
        (1 << 32) - 1,
        1 << 32,
        (1 << 32) + 5,
        0x1234_5678_9abc_def0,
        1 << 63,
        (1 << 63) + 1,
        (1 << 63) + 17,
        (1 << 63) + (1 << 32) + 3,
        u64::MAX,
    ];
    let words = 70; // more than four 16-word blocks
    for seed in [0u64, 1, 7, 0xdead_beef, u64::MAX] {
        let gpu = chacha_words_gpu(&ctx, seed, &streams, words).unwrap();
        for (k, &stream) in streams.iter().enumerate() {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            rng.set_stream(stream);
            let expected: Vec<u32> = (0..words).map(|_| rng.next_u32()).collect();
            assert_eq!(&gpu[k * words..(k + 1) * words], &expected[..], "seed {seed}, stream {stream}");
        }
    }
}

#[test]
fn gpu_chacha_streams_are_the_samplers_streams() {
    let Some(ctx) = common::gpu::gpu() else { return };
    let key = stream_key(3);
    let index = (1u64 << 32) + 9;
    let gpu = chacha_words_gpu(&ctx, 3, &[index, index.wrapping_add(1 << 63)], 20).unwrap();
    let mut s = SampleStreams::new(&key, index);
    for k in 0..20 {
        assert_eq!(gpu[k], s.cap_word());
        assert_eq!(gpu[20 + k], s.selection_word());
    }
}
