#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| impactset_fuzz::extremes_args(data));
