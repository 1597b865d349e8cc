//! Number formatting shared by every table, note and plot: thousands separators, significant
//! digits, durations with a readable unit. Exact decade arithmetic, so rendering does not depend
//! on the platform's math library.

/// `1234567` → `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (idx, ch) in digits.chars().enumerate() {
        if idx > 0 && (digits.len() - idx).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// A float with about `digits` significant digits, no exponent, thousands separators above 1000.
pub fn significant(x: f64, digits: i32) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    if x == 0.0 {
        return "0".to_owned();
    }
    let magnitude = decade_floor(x.abs());
    let decimals = (digits - 1 - magnitude).clamp(0, 6) as usize;
    if decimals == 0 {
        let rounded = x.abs().round() as u64;
        let sign = if x < 0.0 { "−" } else { "" };
        return format!("{sign}{}", thousands(rounded));
    }
    let text = format!("{:.*}", decimals, x.abs());
    let sign = if x < 0.0 { "−" } else { "" };
    format!("{sign}{text}")
}

/// `x` rounded to `digits` significant digits, as a whole number when it is one:
/// `23,809.5` to 3 digits is `23,800`.
pub fn round_significant(x: f64, digits: i32) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let step = pow10(decade_floor(x.abs()) - digits + 1);
    (x / step).round() * step
}

/// `10^e`, exactly where it can be (repeated multiplication, not `powi`, whose last bit may
/// differ between math libraries).
pub fn pow10(e: i32) -> f64 {
    let mut value = 1.0;
    for _ in 0..e.unsigned_abs() {
        value *= 10.0;
    }
    if e < 0 { 1.0 / value } else { value }
}

/// The largest `e` with `10^e <= v` (for `v > 0`), exact even where `log10` is off by a bit.
pub fn decade_floor(v: f64) -> i32 {
    let mut e = v.log10().floor() as i32;
    while pow10(e) > v {
        e -= 1;
    }
    while pow10(e + 1) <= v {
        e += 1;
    }
    e
}

/// Nanoseconds with a unit that keeps three significant digits readable.
pub fn format_nanos(ns: f64) -> String {
    let abs = ns.abs();
    if abs >= 1e9 {
        format!("{} s", significant(ns / 1e9, 3))
    } else if abs >= 1e6 {
        format!("{} ms", significant(ns / 1e6, 3))
    } else if abs >= 1e4 {
        format!("{} µs", significant(ns / 1e3, 3))
    } else {
        format!("{} ns", significant(ns, 3))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(152_000_000), "152,000,000");
    }

    #[test]
    fn decades_are_exact() {
        assert_eq!(decade_floor(1000.0), 3);
        assert_eq!(decade_floor(999.999), 2);
        assert_eq!(decade_floor(0.001), -3);
        assert_eq!(significant(0.000_115, 3), "0.000115");
        assert_eq!(round_significant(23_809.5, 3), 23_800.0);
    }
}
