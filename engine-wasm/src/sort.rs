//! The engine's one sort: plain `u64` keys, ascending.
//!
//! Why not `[u64]::sort_unstable`: its pattern-defeating quicksort with
//! sorting networks takes ~3.9 KB of .wasm, and the module has a size
//! budget; this heapsort takes a few hundred bytes. Sorting integers has
//! one right answer, so the order is the same. It runs in O(n log n) with
//! no allocation; the engine sorts at most one key per element.

/// Sorts `v` ascending.
pub fn sort_u64(v: &mut [u64]) {
    let n = v.len();
    for start in (0..n / 2).rev() {
        sift_down(v, start, n);
    }
    for end in (1..n).rev() {
        v.swap(0, end);
        sift_down(v, 0, end);
    }
}

/// Moves `v[node]` down the max-heap `v[..end]` to its place.
fn sift_down(v: &mut [u64], mut node: usize, end: usize) {
    loop {
        let mut child = 2 * node + 1;
        if child >= end {
            return;
        }
        if child + 1 < end && v[child] < v[child + 1] {
            child += 1;
        }
        if v[node] >= v[child] {
            return;
        }
        v.swap(node, child);
        node = child;
    }
}

#[cfg(test)]
mod tests {
    use super::sort_u64;

    fn check(mut v: Vec<u64>) {
        let mut want = v.clone();
        want.sort_unstable();
        sort_u64(&mut v);
        assert_eq!(v, want);
    }

    #[test]
    fn sorts_like_the_standard_library() {
        check(vec![]);
        check(vec![7]);
        check(vec![2, 1]);
        check(vec![1, 2, 3, 4, 5]);
        check(vec![5, 4, 3, 2, 1]);
        check(vec![3, 3, 1, 3, 0, u64::MAX, 0, u64::MAX]);
        // Pseudo-random lengths and values (a fixed xorshift), with duplicates.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for len in [10, 31, 100, 257, 1000, 4096] {
            let v = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    if x.is_multiple_of(5) {
                        x % 16
                    } else {
                        x
                    }
                })
                .collect();
            check(v);
        }
    }
}
