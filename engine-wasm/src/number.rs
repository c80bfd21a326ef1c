//! Decimal number parsing without `str::parse::<f64>`.
//!
//! The standard parser is correctly rounded for every input, and its tables
//! and big-decimal fallback cost about 10 KB of the size-budgeted `.wasm`.
//! The engine only parses pixel offsets, protocol numbers and ARIA values,
//! where a result within an ulp or two is as good.

/// An integer between whitespace, as `str::parse::<i64>` reads it
/// (narrower types convert with `try_from`): the engine's one integer
/// parser, since each type `parse` is instantiated for costs ~500 bytes
/// of .wasm.
pub fn parse_int(s: &str) -> Option<i64> {
    s.trim().parse().ok()
}

/// Consumes an optional `+` or `-` at `b[*i]`; true for `-`.
fn take_sign(b: &[u8], i: &mut usize) -> bool {
    match b.get(*i) {
        Some(b'-') => {
            *i += 1;
            true
        }
        Some(b'+') => {
            *i += 1;
            false
        }
        _ => false,
    }
}

/// Parses `[+-]digits[.digits][(e|E)[+-]digits]` (at least one digit in the
/// mantissa); anything else, including surrounding whitespace, is `None`.
pub fn parse_decimal(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let mut i = 0;
    let negative = take_sign(b, &mut i);
    // Up to 19 significant digits fit a u64; later ones only shift the scale.
    let (mut mantissa, mut digits, mut scale) = (0u64, 0u32, 0i32);
    let mut seen_digit = false;
    let mut take_digit = |d: u8, after_point: bool, mantissa: &mut u64, scale: &mut i32| {
        if digits < 19 {
            *mantissa = *mantissa * 10 + u64::from(d - b'0');
            if *mantissa != 0 {
                digits += 1;
            }
            if after_point {
                *scale -= 1;
            }
        } else if !after_point {
            *scale += 1;
        }
    };
    while i < b.len() && b[i].is_ascii_digit() {
        take_digit(b[i], false, &mut mantissa, &mut scale);
        seen_digit = true;
        i += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            take_digit(b[i], true, &mut mantissa, &mut scale);
            seen_digit = true;
            i += 1;
        }
    }
    if !seen_digit {
        return None;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        let exp_negative = take_sign(b, &mut i);
        let start = i;
        let mut exp: i32 = 0;
        while i < b.len() && b[i].is_ascii_digit() {
            exp = exp.saturating_mul(10).saturating_add(i32::from(b[i] - b'0'));
            i += 1;
        }
        if i == start {
            return None;
        }
        scale = scale.saturating_add(if exp_negative { -exp } else { exp });
    }
    if i != b.len() {
        return None;
    }
    let mut value = mantissa as f64;
    if value != 0.0 {
        // Powers of ten above 22 are inexact anyway; split huge scales so an
        // intermediate never overflows or underflows early.
        while scale > 0 {
            let step = scale.min(22);
            value *= 10f64.powi(step);
            scale -= step;
        }
        while scale < 0 {
            let step = (-scale).min(22);
            value /= 10f64.powi(step);
            scale += step;
        }
    }
    Some(if negative { -value } else { value })
}

#[cfg(test)]
mod tests {
    use super::parse_decimal;

    #[test]
    fn parses_the_numbers_the_engine_meets() {
        for (text, want) in [
            ("0", 0.0),
            ("3", 3.0),
            ("+3.50", 3.5),
            ("-12.25", -12.25),
            (".5", 0.5),
            ("5.", 5.0),
            ("1e3", 1000.0),
            ("2.5E-2", 0.025),
            ("1280", 1280.0),
            ("-0", 0.0),
            ("0.1", 0.1),
            ("123456789012345678901234", 1.2345678901234568e23),
            ("1e400", f64::INFINITY),
            ("1e-400", 0.0),
        ] {
            let got = parse_decimal(text).unwrap_or_else(|| panic!("{text} should parse"));
            let tolerance = want.abs() * 4.0 * f64::EPSILON;
            assert!(
                (got - want).abs() <= tolerance || got == want,
                "{text}: got {got}, want {want}"
            );
        }
    }

    #[test]
    fn rejects_what_is_not_a_plain_decimal() {
        for text in [
            "", "-", ".", "e3", "1e", "1e+", "3px", " 3", "3 ", "1.2.3", "0x10", "NaN", "inf",
        ] {
            assert_eq!(parse_decimal(text), None, "{text:?}");
        }
    }
}
