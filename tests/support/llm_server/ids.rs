//! Deterministic ids (real ones look random) and small string helpers.

pub(crate) fn seed(port: u16, index: usize, kind: u64, i: usize) -> u64 {
    (u64::from(port) << 40) ^ ((index as u64) << 16) ^ (kind << 8) ^ i as u64
}

/// A deterministic id of base62 characters (real ids look random).
pub(crate) fn fake_id(seed: u64, len: usize) -> String {
    const ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let mut x = seed;
    (0..len)
        .map(|_| {
            // splitmix64
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            ALPHABET[(z % 62) as usize] as char
        })
        .collect()
}

pub(crate) fn floor_char(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

pub(crate) fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(n).collect::<String>())
    }
}
