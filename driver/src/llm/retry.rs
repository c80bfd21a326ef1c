//! When to try a failed model call again: the server's `Retry-After` (or
//! OpenAI's `retry-after-ms`), else exponential backoff with jitter.

use std::time::{Duration, SystemTime};

/// Exponential backoff with jitter (50–100% of the step), or the server's
/// `Retry-After`, capped at `max`.
pub(crate) fn backoff_delay(attempt: u32, retry_after: Option<Duration>, base: Duration, max: Duration) -> Duration {
    if let Some(ra) = retry_after {
        return ra.min(max);
    }
    let step = base.saturating_mul(1u32 << (attempt.max(1) - 1).min(16));
    let jitter = 0.5 + 0.5 * pseudo_random();
    step.mul_f64(jitter).min(max)
}

/// `Retry-After` (seconds or an HTTP date) or OpenAI's `retry-after-ms`.
pub(crate) fn retry_after(h: &reqwest::header::HeaderMap) -> Option<Duration> {
    if let Some(ms) = h
        .get("retry-after-ms")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<f64>().ok())
    {
        if ms.is_finite() && ms >= 0.0 {
            return Some(Duration::from_secs_f64(ms / 1000.0));
        }
    }
    let v = h.get("retry-after")?.to_str().ok()?.trim().to_string();
    if let Ok(secs) = v.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let when = httpdate_to_unix(&v)?;
    let now = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).ok()?.as_secs();
    Some(Duration::from_secs(when.saturating_sub(now)))
}

/// `Sun, 06 Nov 1994 08:49:37 GMT` → seconds since the epoch.
fn httpdate_to_unix(s: &str) -> Option<u64> {
    let parts: Vec<&str> = s.split_whitespace().collect();
    if parts.len() != 6 {
        return None;
    }
    let day: i64 = parts[1].parse().ok()?;
    let month = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    .iter()
    .position(|m| *m == parts[2])? as i64
        + 1;
    let year: i64 = parts[3].parse().ok()?;
    let hms: Vec<i64> = parts[4].split(':').filter_map(|x| x.parse().ok()).collect();
    if hms.len() != 3 {
        return None;
    }
    // Days from civil (Howard Hinnant).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    u64::try_from(days * 86_400 + hms[0] * 3600 + hms[1] * 60 + hms[2]).ok()
}

/// A number in [0, 1) without a random-number dependency (jitter only).
fn pseudo_random() -> f64 {
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let mut x = u64::from(nanos) ^ 0x9E37_79B9_7F4A_7C15;
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    (x >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_headers() {
        let mut h = reqwest::header::HeaderMap::new();
        h.insert("retry-after", "2".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
        h.insert("retry-after-ms", "150".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_millis(150)));
        assert_eq!(httpdate_to_unix("Sun, 06 Nov 1994 08:49:37 GMT"), Some(784_111_777));
    }
}
