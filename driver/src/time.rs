//! Timestamps for audit lines and agent results, without a date-time
//! dependency: RFC 3339 in UTC with milliseconds; and durations as
//! messages say them.

/// A duration as messages say it, with its unit: whole seconds when whole,
/// else to a tenth ("30 s", "1.5 s", not "30.002458249s"); under a second
/// in milliseconds ("20 ms", not "0 s").
pub(crate) fn spoken(d: std::time::Duration) -> String {
    if d < std::time::Duration::from_millis(950) {
        return format!("{} ms", d.as_millis());
    }
    let tenths = (d.as_secs_f64() * 10.0).round() / 10.0;
    if tenths.fract() == 0.0 {
        format!("{tenths:.0} s")
    } else {
        format!("{tenths:.1} s")
    }
}

/// Now as RFC 3339 UTC with milliseconds.
pub(crate) fn timestamp_now() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    rfc3339(now.as_millis() as i64)
}

pub(crate) fn rfc3339(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        ms.rem_euclid(1000)
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn durations_read_as_seconds() {
        use std::time::Duration;
        assert_eq!(super::spoken(Duration::from_millis(30_002)), "30 s");
        assert_eq!(super::spoken(Duration::from_millis(1_460)), "1.5 s");
        assert_eq!(super::spoken(Duration::from_millis(960)), "1 s");
        assert_eq!(super::spoken(Duration::from_millis(20)), "20 ms");
    }

    #[test]
    fn timestamps() {
        let now = super::timestamp_now();
        assert_eq!(now.len(), 24, "{now}");
        assert!(now.starts_with("20") && now.ends_with('Z'));
        assert_eq!(super::rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(super::rfc3339(1_795_305_600_123), "2026-11-22T00:00:00.123Z");
        assert_eq!(super::rfc3339(951_782_400_000), "2000-02-29T00:00:00.000Z");
    }
}
